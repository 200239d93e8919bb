"""The SQLite store: a tick's appends commit together, survive reopening, and close leaves no WAL behind."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

from parlour.store import open_store


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
