"""The room log's retention: records no open room replays go once older than the retention; an open
room's records from its checkpoint on always stay, and every room still comes back whole."""

from __future__ import annotations

import asyncio
import sqlite3
import time
from pathlib import Path

from parlour.config import Config
from parlour.store.sqlite import SQLiteStore
from parlour.store.sqlite_retention import prune_bound, prune_chunk


def record(n: int) -> dict[str, object]:
    return {"k": "action", "s": "s1", "p": {"n": n}, "t": float(n)}


CHECKPOINT = {"k": "checkpoint", "state": {"n": "all so far"}, "t": 0.0}


def ids(path: Path) -> list[tuple[int, str]]:
    with sqlite3.connect(path / "parlour.db") as db:
        return list(db.execute("SELECT id, room FROM room_log ORDER BY id"))


async def until(check, seconds: float = 10.0) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, "the pruning never came"
        await asyncio.sleep(0.05)


async def test_records_no_open_room_needs_are_pruned_and_every_room_comes_back(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path, checkpoint_every=0.02, log_retention=0, prune_every=0.05)
    await store.open()
    # A: played and closed. B: open, checkpointed after 10 records, 5 since. C: open, nothing yet.
    await store.create_room("AAAAA", {"game": "dots"})
    for n in range(30):
        await store.append("AAAAA", record(n))
    await store.close_room("AAAAA", "idle")
    await store.create_room("BBBBB", {"game": "uno"})
    for n in range(10):
        await store.append("BBBBB", record(n))
    await store.append("BBBBB", CHECKPOINT)
    for n in range(10, 15):
        await store.append("BBBBB", record(n))
    await store.create_room("CCCCC", {"game": "cheat"})
    await until(lambda: len(ids(tmp_path)) == 6)
    assert {room for _, room in ids(tmp_path)} == {"BBBBB"}, "A's records and B's before its checkpoint"
    await store.append("CCCCC", record(99))
    await store.close()

    again = SQLiteStore(tmp_path, log_retention=0, prune_every=3600)
    await again.open()
    rooms = {room.code: room.log for room in await again.open_rooms()}
    assert rooms == {"BBBBB": [CHECKPOINT, *(record(n) for n in range(10, 15))], "CCCCC": [record(99)]}
    await again.close()


async def test_with_every_room_closed_the_last_record_stays_so_ids_never_start_over(tmp_path: Path) -> None:
    """The log's ids are the table's highest plus one: had the pruning emptied the table, a room made
    next would read its log from after its ``log_from`` (the old last id), past its own new rows."""
    store = SQLiteStore(tmp_path, checkpoint_every=0.02, log_retention=0, prune_every=0.05)
    await store.open()
    await store.create_room("AAAAA", {"game": "dots"})
    for n in range(20):
        await store.append("AAAAA", record(n))
    await store.create_room("BBBBB", {"game": "dots"})  # open, nothing written: it starts after id 20
    await store.close_room("AAAAA", "finished")
    await until(lambda: len(ids(tmp_path)) == 1)
    assert ids(tmp_path) == [(20, "AAAAA")]
    await store.append("BBBBB", record(1))
    await store.append("BBBBB", record(2))
    await store.close()

    again = SQLiteStore(tmp_path, log_retention=0, prune_every=3600)
    await again.open()
    (room,) = await again.open_rooms()
    assert (room.code, room.log) == ("BBBBB", [record(1), record(2)])
    await again.close()


async def test_records_younger_than_the_retention_stay(tmp_path: Path) -> None:
    """What a room wrote is known old once a room created after it is: rooms made three and two hours
    ago, and one made now; with an hour's retention only the first room's records are old enough."""
    store = SQLiteStore(tmp_path, log_retention=3600, prune_every=3600)  # pruned by hand below
    await store.open()
    for code, count in (("AAAAA", 10), ("BBBBB", 5), ("CCCCC", 5)):
        await store.create_room(code, {"game": "dots"})
        for n in range(count):
            await store.append(code, record(n))
        await store.close_room(code, "finished")
    await store.close()
    db = sqlite3.connect(tmp_path / "parlour.db", isolation_level=None)
    now = time.time()
    for code, hours in (("AAAAA", 3), ("BBBBB", 2)):
        db.execute("UPDATE rooms SET created_at = ? WHERE code = ?", (now - hours * 3600, code))
    bound = prune_bound(db, now - 3600)
    assert bound == 11, "B was made two hours ago, after A's 10 records: those are old enough"
    assert prune_chunk(db, bound) == 10
    assert prune_chunk(db, bound) == 0
    assert [room for _, room in db.execute("SELECT id, room FROM room_log")] == ["BBBBB"] * 5 + ["CCCCC"] * 5
    # Nothing is old enough with a day's retention; with an infinite one, never.
    assert prune_bound(db, now - 86400) == 1
    assert prune_bound(db, now - float("inf")) == 1
    db.close()


def test_a_retention_that_is_not_a_number_of_days_is_refused() -> None:
    for bad in ("-1", "nan"):
        try:
            Config.from_env({"PARLOUR_LOG_RETENTION_DAYS": bad})
        except SystemExit as refused:
            assert "log retention" in str(refused)
        else:
            raise AssertionError(f"{bad} was taken")
    assert Config.from_env({"PARLOUR_LOG_RETENTION_DAYS": "inf"}).log_retention_days == float("inf")
    assert Config.from_env({}).log_retention_days == 7.0
