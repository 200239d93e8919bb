"""How long the room log outlives its use.

An open room replays its log from its latest checkpoint, so those records are its recovery. Everything
older, and every record of a closed room, is an audit trail only: the finished games keep logs of their
own for replays. Left alone, the table grew with every move ever made (cluster mode's Redis store drops a
closed room's log at once). Records no open room needs are deleted once they are older than the
retention, oldest first, a chunk at a time, so the loop's commits never wait long.

Two facts keep this safe with no lock held while the bound is computed:
- what an open room needs never moves back: a new room starts reading after the log's last id, and a
  checkpoint only moves forward;
- the log's last row is never deleted, so ids never start over (the table reuses the highest id + 1).
"""

from __future__ import annotations

import sqlite3

CHUNK = 5000
"""Rows one delete removes: a few milliseconds, during which the loop's next commit waits."""


def prune_bound(db: sqlite3.Connection, cutoff: float) -> int:
    """The first room-log id to keep: below it, every row was written before ``cutoff`` (a Unix time)
    and no open room replays it."""
    last = db.execute("SELECT MAX(id) FROM room_log").fetchone()[0]
    if last is None:
        return 0
    needed = db.execute(
        "SELECT MIN(COALESCE(c.log_id, r.log_from + 1)) FROM rooms r"
        " LEFT JOIN checkpoints c ON c.room = r.code WHERE r.closed_at IS NULL"
    ).fetchone()[0]
    bound = min(last, _written_by(db, cutoff) + 1)
    return bound if needed is None else min(bound, needed)


def _written_by(db: sqlite3.Connection, cutoff: float) -> int:
    """The highest log id known written by ``cutoff``: a room records the log's last id when it is
    created (``log_from``), so the last room created by then tells. Rooms are numbered in the order
    they were created: a binary search over ``rowid``, a few lookups."""
    low, high = db.execute("SELECT MIN(rowid), MAX(rowid) FROM rooms").fetchone()
    found = 0
    while low is not None and low <= high:
        middle = (low + high) // 2
        row = db.execute(
            "SELECT rowid, created_at, log_from FROM rooms WHERE rowid >= ? ORDER BY rowid LIMIT 1", (middle,)
        ).fetchone()
        if row is None or row[1] > cutoff:
            high = middle - 1
        else:
            found, low = max(found, row[2]), row[0] + 1
    return found


def prune_chunk(db: sqlite3.Connection, bound: int) -> int:
    """Delete up to ``CHUNK`` of the oldest rows below ``bound`` (one transaction: the connection
    commits each statement); how many went."""
    first = db.execute("SELECT MIN(id) FROM room_log").fetchone()[0]
    if first is None or first >= bound:
        return 0
    return db.execute("DELETE FROM room_log WHERE id < ?", (min(bound, first + CHUNK),)).rowcount
