"""The SQLite store: a tick's appends commit together, survive reopening, and close leaves no WAL behind."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

from parlour.store import open_store


async def test_appends_of_one_tick_commit_together_and_come_back(tmp_path: Path) -> None:
    store = await open_store(str(tmp_path))
    assert await store.create_room("ABCDE", {"game": "dots"})
    records = [{"k": "action", "s": "s1", "p": {"n": n}, "t": float(n)} for n in range(50)]
    await asyncio.gather(*(store.append("ABCDE", r) for r in records))
    await store.close()
    assert not [t for t in threading.enumerate() if t.name == "parlour-checkpoint"]
    wal = tmp_path / "parlour.db-wal"
    assert not wal.exists() or wal.stat().st_size == 0, "close checkpoints the WAL into the database"

    again = await open_store(str(tmp_path))
    (room,) = await again.open_rooms()
    assert room.code == "ABCDE" and room.log == records
    await again.close()


async def test_checkpoints_run_off_the_loop(tmp_path: Path) -> None:
    store = await open_store(str(tmp_path))
    checkpointers = [t for t in threading.enumerate() if t.name == "parlour-checkpoint"]
    assert len(checkpointers) == 1 and checkpointers[0] is not threading.current_thread()
    await store.close()
