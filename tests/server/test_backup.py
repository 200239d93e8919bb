"""``parlour backup`` while the server runs: the copy restores every open room (mid-game, as its
players last saw it, with the moves still in the write-ahead log) and every finished game."""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

from tests.server.client import Client, close_all, first_legal, open_table
from tests.server.conftest import FAST_ENV, ServerProcess
from tests.server.history import fetch, finished_game
from tests.server.test_recovery import _stable


def _backup(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "parlour", "backup", *args],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "PARLOUR_REDIS_URL": "", **(env or {})},
    )


def _a_database(data_dir: Path) -> None:
    data_dir.mkdir()
    sqlite3.connect(data_dir / "parlour.db").execute("CREATE TABLE t (x)").connection.close()


async def test_a_backup_taken_while_the_server_runs_restores_every_room_and_game(server_factory, tmp_path):
    srv = server_factory()
    _, finished_code = await finished_game(srv)
    seated, watchers, _ = await open_table(srv.ws, "uno", 3, {"turn_timer": 120})
    for _ in range(4):
        leader = max(seated, key=lambda c: c.seq)
        actor = next(c for c in seated if c.seat == leader.turn["seat"])
        await actor.wait_seq(leader.seq)
        await actor.ok("action", action=first_legal(actor.view))
    await seated[0].ok("chat", text="just before the backup")
    # The room as its host sees it now (a resume: the host's client plays on from the new socket).
    token = seated[0].token
    await seated[0].close()
    seated[0] = await Client.open(srv.ws)
    await seated[0].ok("resume", token=token)
    before = _stable(await seated[0].expect("room"))

    dest = tmp_path / "backups" / "parlour-copy.db"
    out = _backup("--data-dir", str(srv.data_dir), str(dest))
    assert out.returncode == 0, out.stderr
    assert f"Backed up to {dest}" in out.stdout and "1 finished games" in out.stdout
    assert not dest.with_name(dest.name + ".part").exists()
    # A single file, whatever the server's journal: no -wal to carry along.
    assert sqlite3.connect(dest).execute("PRAGMA journal_mode").fetchone()[0] == "delete"
    # The server went on meanwhile.
    leader = max(seated, key=lambda c: c.seq)
    actor = next(c for c in seated if c.seat == leader.turn["seat"])
    await actor.wait_seq(leader.seq)
    await actor.ok("action", action=first_legal(actor.view))
    await close_all(seated, watchers)

    restored_dir = tmp_path / "restored"
    restored_dir.mkdir()
    shutil.copy(dest, restored_dir / "parlour.db")
    restored = ServerProcess(restored_dir, dict(FAST_ENV))
    restored.start()
    try:
        back = await Client.open(restored.ws)
        await back.ok("resume", token=token)
        assert _stable(await back.expect("room")) == before, "the room as it was at the backup"
        await back.close()
        status, body, _ = fetch(restored, f"/api/games?room={finished_code}")
        assert status == 200 and len(body["games"]) == 1
    finally:
        restored.stop()


def test_a_backup_never_overwrites_and_says_when_there_is_no_database(tmp_path):
    out = _backup("--data-dir", str(tmp_path / "nothing-here"), str(tmp_path / "copy.db"))
    assert out.returncode == 1 and "no database at" in out.stderr
    taken = tmp_path / "taken.db"
    taken.write_bytes(b"precious")
    _a_database(tmp_path / "data")
    out = _backup("--data-dir", str(tmp_path / "data"), str(taken))
    assert out.returncode == 1 and "already exists" in out.stderr
    assert taken.read_bytes() == b"precious"


def test_a_backup_in_cluster_mode_points_at_redis(tmp_path):
    """A node's data directory holds nothing of the cluster's: copying it would back up nothing."""
    _a_database(tmp_path / "data")
    out = _backup(
        "--data-dir",
        str(tmp_path / "data"),
        str(tmp_path / "copy.db"),
        env={"PARLOUR_REDIS_URL": "redis://h:6379/0"},
    )
    assert out.returncode == 1 and "back Redis up instead" in out.stderr
    assert not (tmp_path / "copy.db").exists()


def test_a_database_that_is_not_parlours_is_refused_and_leaves_nothing(tmp_path):
    _a_database(tmp_path / "data")  # SQLite, but no rooms in it
    dest = tmp_path / "copy.db"
    out = _backup("--data-dir", str(tmp_path / "data"), str(dest))
    assert out.returncode == 1 and "cannot back up" in out.stderr and "no such table: rooms" in out.stderr
    assert "Traceback" not in out.stderr
    assert list(tmp_path.iterdir()) == [tmp_path / "data"]  # neither the copy nor a part of it
