"""What pruning the room log costs the loop's commits (not a test).

``python bench/log_prune.py [--rows 400000] [--seconds 8]``

A database holds ``--rows`` records of closed rooms, all past their retention; one open room then
appends a record every millisecond or so (a busy server's commits), and each append's wait for its
commit is timed. Two stores in one run: one that keeps every record (retention ``inf``) and one that
prunes them all (retention 0) within the window, on the checkpoint thread in 5,000-row chunks.
"""

from __future__ import annotations

import argparse
import asyncio
import sqlite3
import statistics
import tempfile
import time
from pathlib import Path

import orjson

from parlour.store.sqlite import SQLiteStore

RECORD = {"k": "action", "s": "s0123456789", "p": {"type": "play", "card": 17}, "t": 1764640000.123}


def fill(data: Path, rows: int) -> None:
    """A database made by the store, then ``rows`` log records of a room closed long ago."""
    asyncio.run(_make(data))
    db = sqlite3.connect(data / "parlour.db", isolation_level=None)
    row = (orjson.dumps(RECORD).decode(),)
    db.execute("BEGIN")
    db.executemany("INSERT INTO room_log (room, data) VALUES ('OLDRM', ?)", (row for _ in range(rows)))
    db.execute("UPDATE rooms SET closed_at = 0, created_at = 0 WHERE code = 'OLDRM'")
    db.execute("COMMIT")
    db.close()


async def _make(data: Path) -> None:
    store = SQLiteStore(data, log_retention=float("inf"))
    await store.open()
    await store.create_room("OLDRM", {"game": "uno"})
    await store.close()


async def measure(data: Path, keep: float, seconds: float) -> tuple[list[float], int]:
    """Each append's wait (ms) for ``seconds``, and how many records were left at the end."""
    store = SQLiteStore(data, log_retention=keep, prune_every=1.0)
    await store.open()
    await store.create_room("LIVE1", {"game": "uno"})  # made now: every older record is past its age
    waits: list[float] = []
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        began = time.perf_counter()
        await store.append("LIVE1", RECORD)
        waits.append((time.perf_counter() - began) * 1000)
        await asyncio.sleep(0.001)
    await store.close()
    with sqlite3.connect(data / "parlour.db") as db:
        left = db.execute("SELECT COUNT(*) FROM room_log").fetchone()[0]
    return waits, left


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=400_000)
    parser.add_argument("--seconds", type=float, default=8.0)
    args = parser.parse_args()
    print(f"{args.rows} old records; one room appending for {args.seconds:g} s; waits for the commit in ms")
    heads = ("appends", 8), ("p50", 6), ("p99", 6), ("p99.9", 6), ("max", 6), ("records left", 13)
    print(f"{'retention':>10}", *(f"{name:>{width}}" for name, width in heads))
    for keep in (float("inf"), 0.0):
        with tempfile.TemporaryDirectory() as tmp:
            data = Path(tmp)
            fill(data, args.rows)
            waits, left = asyncio.run(measure(data, keep, args.seconds))
        ranked = sorted(waits)
        cut = statistics.quantiles(ranked, n=1000)
        print(
            f"{keep:>10g} {len(waits):>8} {statistics.median(ranked):6.2f} {cut[989]:6.2f} {cut[998]:6.2f}"
            f" {ranked[-1]:6.2f} {left:>13}"
        )


if __name__ == "__main__":
    main()
