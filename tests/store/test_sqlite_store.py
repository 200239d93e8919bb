"""The SQLite store: a tick's appends commit together, survive reopening, and close leaves no WAL behind."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from collections.abc import Callable
from pathlib import Path

from parlour.store import GameRecord, SessionRecord, game_id, open_store
from parlour.store.sqlite import SQLiteStore


def checkpointers() -> set[threading.Thread]:
    return {t for t in threading.enumerate() if t.name == "parlour-checkpoint"}


async def test_appends_of_one_tick_commit_together_and_come_back(tmp_path: Path) -> None:
    before = checkpointers()
    store = await open_store(str(tmp_path))
    (mine,) = checkpointers() - before
    assert await store.create_room("ABCDE", {"game": "dots"})
    records = [{"k": "action", "s": "s1", "p": {"n": n}, "t": float(n)} for n in range(50)]
    await asyncio.gather(*(store.append("ABCDE", r) for r in records))
    await store.close()
    assert not mine.is_alive(), "close stops the checkpoint thread"
    wal = tmp_path / "parlour.db-wal"
    assert not wal.exists() or wal.stat().st_size == 0, "close checkpoints the WAL into the database"

    again = await open_store(str(tmp_path))
    (room,) = await again.open_rooms()
    assert room.code == "ABCDE" and room.log == records
    await again.close()


async def test_checkpoints_run_off_the_loop(tmp_path: Path) -> None:
    before = checkpointers()
    store = await open_store(str(tmp_path))
    new = checkpointers() - before
    assert len(new) == 1 and threading.current_thread() not in new
    await store.close()


def a_game(room: str = "ABCDE", number: int = 1) -> GameRecord:
    return GameRecord(
        room, number, "dots", {"width": 3}, 42, [{"seat": 0, "name": "Ada"}], {"winners": [0]}, 1.0, 2.0, []
    )


async def test_a_game_is_found_by_its_public_id(tmp_path: Path) -> None:
    store = await open_store(str(tmp_path))
    assert await store.create_room("ABCDE", {"game": "dots"})
    first, second = a_game(number=1), a_game(number=2)
    await store.append("ABCDE", {"k": "start", "s": None, "p": {}, "t": 1.0}, first)
    await store.append("ABCDE", {"k": "start", "s": None, "p": {}, "t": 2.0}, second)
    assert await store.game(second.id) == second and await store.game(first.id) == first
    assert await store.game("nosuchgame") is None
    await store.close()


async def test_an_older_database_gets_game_ids(tmp_path: Path) -> None:
    """A database written before games had public ids: its games are found by id after opening."""
    db = sqlite3.connect(tmp_path / "parlour.db")
    db.executescript(
        "CREATE TABLE games (id INTEGER PRIMARY KEY AUTOINCREMENT, room TEXT NOT NULL,"
        " number INTEGER NOT NULL, game TEXT NOT NULL, settings TEXT NOT NULL, seed INTEGER NOT NULL,"
        " players TEXT NOT NULL,"
        " result TEXT NOT NULL, started_at REAL NOT NULL, ended_at REAL NOT NULL, log TEXT NOT NULL);"
        "INSERT INTO games (room, number, game, settings, seed, players, result, started_at, ended_at, log)"
        " VALUES ('ABCDE', 1, 'dots', '{}', 42, '[]', '{}', 1.0, 2.0, '[]');"
    )
    db.commit()
    db.close()
    store = await open_store(str(tmp_path))
    old = await store.game(game_id("ABCDE", 1, 42))
    assert old is not None and old.room == "ABCDE"
    assert old.private, "an old game's room may have been unlisted: shown to its players only"
    await store.close()


async def test_open_rooms_read_only_their_own_log_from_their_checkpoint(tmp_path: Path) -> None:
    """The log has no index by room: each open room still gets exactly its rows, in order, from its
    latest checkpoint; a closed room's rows and rows written before a room existed are not read."""
    store = await open_store(str(tmp_path))
    assert await store.create_room("OLDER", {"game": "dots"})
    await store.append("OLDER", {"k": "action", "n": 0})
    assert await store.create_room("ABCDE", {"game": "dots"})
    assert not await store.create_room("ABCDE", {"game": "dots"}), "a code is made once"
    assert await store.create_room("FGHIJ", {"game": "dots"})
    await store.append("ABCDE", {"k": "action", "n": 1})
    await store.append("FGHIJ", {"k": "action", "n": 2})
    await store.append("ABCDE", {"k": "checkpoint", "n": 3})
    await store.append("OLDER", {"k": "action", "n": 4})
    await store.append("ABCDE", {"k": "action", "n": 5})
    await store.close_room("OLDER", "empty")
    await store.close()

    again = await open_store(str(tmp_path))
    logs = {r.code: [entry["n"] for entry in r.log] for r in await again.open_rooms()}
    assert logs == {"ABCDE": [3, 5], "FGHIJ": [2]}
    await again.close()


async def test_an_older_database_keeps_its_open_rooms_and_drops_the_log_index(tmp_path: Path) -> None:
    """A database from before rooms knew where their log starts: opened, its open rooms come back
    whole, and the per-room index that slowed every append is gone."""
    db = sqlite3.connect(tmp_path / "parlour.db")
    db.executescript(
        "CREATE TABLE rooms (code TEXT PRIMARY KEY, config TEXT NOT NULL, created_at REAL NOT NULL,"
        " closed_at REAL, closed_reason TEXT);"
        "CREATE TABLE room_log (id INTEGER PRIMARY KEY AUTOINCREMENT, room TEXT NOT NULL,"
        " data TEXT NOT NULL);"
        "CREATE INDEX room_log_room ON room_log (room, id);"
        "INSERT INTO rooms VALUES ('GONE1', '{}', 1.0, 2.0, 'empty'), ('ABCDE', '{}', 1.5, NULL, NULL),"
        " ('QUIET', '{}', 3.0, NULL, NULL);"
        "INSERT INTO room_log (room, data) VALUES ('GONE1', '{\"n\":0}'), ('ABCDE', '{\"n\":1}'),"
        " ('GONE1', '{\"n\":2}'), ('ABCDE', '{\"n\":3}');"
    )
    db.commit()
    db.close()
    store = await open_store(str(tmp_path))
    logs = {r.code: [entry["n"] for entry in r.log] for r in await store.open_rooms()}
    assert logs == {"ABCDE": [1, 3], "QUIET": []}
    await store.append("QUIET", {"n": 4})
    await store.close()
    db = sqlite3.connect(tmp_path / "parlour.db")
    assert not db.execute("SELECT name FROM sqlite_master WHERE name = 'room_log_room'").fetchall()
    db.close()
    again = await open_store(str(tmp_path))
    logs = {r.code: [entry["n"] for entry in r.log] for r in await again.open_rooms()}
    assert logs == {"ABCDE": [1, 3], "QUIET": [4]}
    await again.close()


async def test_append_then_runs_each_callback_after_the_commit_in_order(tmp_path: Path) -> None:
    """A tick's appends by ``append_then`` (as rooms make them): plain records around a checkpoint and
    another write go in one transaction; each callback runs once it is committed, in the order made."""
    store = await open_store(str(tmp_path))
    for code in ("ABCDE", "FGHIJ"):
        assert await store.create_room(code, {"game": "dots"})
    reader = sqlite3.connect(tmp_path / "parlour.db")
    seen: list[tuple[int, BaseException | None, int]] = []
    done = asyncio.get_running_loop().create_future()

    def then(n: int) -> Callable[[BaseException | None], None]:
        def committed(error: BaseException | None) -> None:
            # Another connection sees every row of the batch: the transaction has committed.
            seen.append((n, error, reader.execute("SELECT COUNT(*) FROM room_log").fetchone()[0]))
            if n == 5:
                done.set_result(None)

        return committed

    store.append_then("ABCDE", {"k": "action", "n": 0}, None, then(0))
    store.append_then("FGHIJ", {"k": "action", "n": 1}, None, then(1))
    store.append_then("ABCDE", {"k": "checkpoint", "n": 2}, None, then(2))
    saving = asyncio.ensure_future(store.save_session(SessionRecord("s1", "Ann", "h1", 0.0)))
    store.append_then("ABCDE", {"k": "action", "n": 3}, None, then(3))
    store.append_then("FGHIJ", {"k": "action", "n": 4}, None, then(4))
    store.append_then("ABCDE", {"k": "action", "n": 5}, None, then(5))
    assert seen == []  # nothing runs before the tick's flush
    await done
    await saving
    assert seen == [(n, None, 6) for n in range(6)]
    reader.close()
    await store.close()

    again = await open_store(str(tmp_path))
    logs = {r.code: [entry["n"] for entry in r.log] for r in await again.open_rooms()}
    assert logs == {"ABCDE": [2, 3, 5], "FGHIJ": [1, 4]}
    assert await again.find_session("h1") == SessionRecord("s1", "Ann", "h1", 0.0)
    await again.close()


def _wal_resets(wal: Path) -> int:
    """The WAL header's checkpoint sequence number: SQLite adds one each time it writes the WAL from
    its start again."""
    with wal.open("rb") as f:
        return int.from_bytes(f.read(16)[12:16], "big")


async def test_the_wal_stays_bounded_while_commits_never_pause(tmp_path: Path) -> None:
    """A passive checkpoint copies the WAL but never empties it while commits keep landing during the
    copy, so the WAL (and the disk it takes) grew for as long as the load lasted: here, to ~2x what
    was written. Here a commit comes every millisecond or so for three seconds, as under a busy
    server: the WAL is written from its start again and again, stays smaller than what was written,
    and every record is still there. (How far past its limit it gets depends on how long the disk's
    fsyncs take while it is emptied, which a loaded CI machine stretches: the restarts are the proof.)"""
    limit = 1 << 20
    store = SQLiteStore(tmp_path, checkpoint_every=0.05, wal_limit=limit)
    await store.open()
    assert await store.create_room("ABCDE", {"game": "uno"})
    wal = tmp_path / "parlour.db-wal"
    record = {"k": "action", "s": "s1", "p": {"pad": "x" * 3000}, "t": 0.0}
    first_reset = _wal_resets(wal)
    loop = asyncio.get_running_loop()
    deadline, written, largest = loop.time() + 3, 0, 0
    while loop.time() < deadline:
        await asyncio.gather(*(store.append("ABCDE", record) for _ in range(4)))
        written += 4
        largest = max(largest, wal.stat().st_size)
        await asyncio.sleep(0.001)
    assert written * 3000 > 8 * limit, "enough was written to outgrow the limit many times"
    assert _wal_resets(wal) - first_reset >= 3, "the WAL was written from its start again and again"
    assert largest < written * 3000, f"the WAL reached {largest} bytes"
    (room,) = await store.open_rooms()
    assert len(room.log) == written
    await store.close()
