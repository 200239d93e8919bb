"""``parlour backup``: a consistent copy of the SQLite database, taken while the server runs.

Copying ``parlour.db`` by hand while a server runs misses what its write-ahead log still holds (the
last second of moves, or more) and may catch a page mid-checkpoint. SQLite's online backup reads the
database, WAL included, in one read transaction: the copy is the database at one moment, and the
server's writes go on meanwhile (WAL readers never block the writer).
"""

from __future__ import annotations

import os
import sqlite3
from dataclasses import dataclass
from pathlib import Path

from parlour.store.sqlite import DB_FILE


@dataclass(frozen=True, slots=True)
class BackupSummary:
    """What a backup holds, for the operator to see it is the database they meant."""

    path: Path
    size: int
    open_rooms: int
    finished_games: int
    profiles: int

    def report(self) -> str:
        return (
            f"Backed up to {self.path} ({self.size / 1e6:.1f} MB): {self.open_rooms} open rooms, "
            f"{self.finished_games} finished games, {self.profiles} profiles"
        )


def backup(data_dir: str | Path, dest: str | Path) -> BackupSummary:
    """Copy ``data_dir``'s database into ``dest``, a new file (an existing one is never overwritten).
    To restore: stop the server, then put the copy in place as ``parlour.db`` in an empty data
    directory (no ``-wal`` or ``-shm`` file of the old database beside it)."""
    source = Path(data_dir) / DB_FILE
    target = Path(dest)
    if not source.is_file():
        raise SystemExit(f"parlour: no database at {source} (is --data-dir right?)")
    if target.exists():
        raise SystemExit(f"parlour: {target} already exists: name a new file")
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(target.name + ".part")
    partial.unlink(missing_ok=True)
    try:
        rooms, games, profiles = _copy(source, partial)
    except sqlite3.DatabaseError as exc:  # not SQLite, or not Parlour's (no rooms table)
        partial.unlink(missing_ok=True)
        raise SystemExit(f"parlour: cannot back up {source}: {exc}") from None
    except BaseException:
        partial.unlink(missing_ok=True)  # never a half copy left to be taken for a backup
        raise
    os.replace(partial, target)
    return BackupSummary(target, target.stat().st_size, rooms, games, profiles)


def _copy(source: Path, partial: Path) -> tuple[int, int, int]:
    """Copy and check; the copy's open rooms, finished games and profiles."""
    src = sqlite3.connect(f"{source.resolve().as_uri()}?mode=ro", uri=True)
    try:
        dst = sqlite3.connect(partial)
        try:
            src.backup(dst)  # every page in one step: one read transaction, so one moment
            dst.execute("PRAGMA journal_mode=DELETE")  # a single file; the server turns WAL on again
            check = dst.execute("PRAGMA quick_check").fetchone()[0]
            if check != "ok":
                raise SystemExit(f"parlour: the copy failed SQLite's check ({check}); {source} is unchanged")
            return (
                dst.execute("SELECT count(*) FROM rooms WHERE closed_at IS NULL").fetchone()[0],
                dst.execute("SELECT count(*) FROM games").fetchone()[0],
                dst.execute("SELECT count(*) FROM profiles").fetchone()[0],
            )
        finally:
            dst.close()
    finally:
        src.close()
