"""SQLite (WAL) store: one file in the data directory, written from the event loop, batched per tick.

Every write made during one event-loop tick (any room's ``append``, a new session's row, a room's row
made or closed) is written in a single transaction two loop passes later (so the rooms the same I/O
woke join it; never a timer); each caller's await resolves, or its ``append_then`` callback runs, once
it has committed. The writes run on the loop's
own thread: a WAL commit with ``synchronous=NORMAL`` only hands pages to the OS (no fsync), and
handing each tick's batch to a writer thread cost more (a thread wake-up and GIL hand-offs per tick,
3–4% of the server's CPU per game action) than the commit itself. The part that does wait on the disk,
copying the WAL back into the database (checkpoints, with their fsyncs), runs on a thread of its own
with its own connection. ``synchronous=NORMAL`` in WAL mode survives a killed process (the OS has the
pages); only a power cut could lose the last transactions.
"""

from __future__ import annotations

import asyncio
import logging
import os
import sqlite3
import threading
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import IO, Any

import orjson

from parlour.dumps import json_bytes
from parlour.store import sqlite_history as history
from parlour.store import sqlite_retention as retention
from parlour.store.base import (
    GameQuery,
    GameRecord,
    PlayerTotals,
    ProfileRecord,
    RoomRecord,
    SessionRecord,
    game_id,
)

log = logging.getLogger("parlour.store")

DB_FILE = "parlour.db"
"""The database's name in the data directory (with its ``-wal`` and ``-shm`` files beside it)."""

_SCHEMA = """
CREATE TABLE IF NOT EXISTS sessions (
    id TEXT PRIMARY KEY, name TEXT NOT NULL, token_hash TEXT NOT NULL UNIQUE, created_at REAL NOT NULL,
    profile TEXT);
CREATE TABLE IF NOT EXISTS profiles (
    id TEXT PRIMARY KEY, name TEXT NOT NULL, secret_hash TEXT NOT NULL, created_at REAL NOT NULL);
CREATE TABLE IF NOT EXISTS rooms (
    code TEXT PRIMARY KEY, config TEXT NOT NULL, created_at REAL NOT NULL,
    closed_at REAL, closed_reason TEXT, log_from INTEGER NOT NULL DEFAULT 0);
CREATE TABLE IF NOT EXISTS room_log (id INTEGER PRIMARY KEY, room TEXT NOT NULL, data TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS checkpoints (room TEXT PRIMARY KEY, log_id INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS games (
    id INTEGER PRIMARY KEY AUTOINCREMENT, room TEXT NOT NULL, number INTEGER NOT NULL, game TEXT NOT NULL,
    settings TEXT NOT NULL, seed INTEGER NOT NULL, players TEXT NOT NULL, result TEXT NOT NULL,
    started_at REAL NOT NULL, ended_at REAL NOT NULL, log TEXT NOT NULL, gid TEXT,
    private INTEGER NOT NULL DEFAULT 1);
CREATE INDEX IF NOT EXISTS games_room ON games (room, id);
"""
_INDEXES = """
CREATE UNIQUE INDEX IF NOT EXISTS games_gid ON games (gid);
"""
_CHECKPOINT = '{"k":"checkpoint"'
_APPEND = "INSERT INTO room_log (room, data) VALUES (?, ?)"
_NEW_ROOM = (
    "INSERT OR IGNORE INTO rooms (code, config, created_at, log_from)"
    " VALUES (?, ?, ?, (SELECT COALESCE(MAX(id), 0) FROM room_log))"
)
_PASSIVE = "PRAGMA wal_checkpoint(PASSIVE)"
_CATCH_UP = 256  # WAL frames (~1 MB): what the checkpoint that empties the WAL may have left to copy
_Then = Callable[[BaseException | None], None]
_Pending = tuple[str, tuple[Any, ...], GameRecord | None, "asyncio.Future[bool] | _Then"]
"""One write of a tick's transaction: its SQL (``_APPEND`` for a log record), parameters, the game an
append stores, and the caller's future (its result: whether the row was written) or, for
``append_then``, the callback to run once it has committed."""


class _Checkpointer:
    """Copies the WAL into the database file every ``every`` seconds on a thread of its own, with
    its own connection: a checkpoint fsyncs, and the event loop that appends must never wait on a disk.

    A checkpoint alone never empties the WAL while commits keep coming: SQLite writes the WAL from
    its beginning again only when a transaction begins with every frame already copied, and under
    steady load a commit lands while the copy runs. So the WAL grew for as long as the load lasted
    (by ~24 MB/s with 20 UNO rooms playing flat out: 790 MB in 40 s). Once it holds more than
    ``limit`` bytes, a last checkpoint copies what the others left while ``commits`` is held, so
    nothing is committed meanwhile, and the next commit writes the WAL from its start (over the
    file, which keeps its size: truncating it would be the loop's work). The loop never waits for
    ``commits``: it keeps its batch until ``resume`` runs (a few milliseconds: ``_empty``). SQLite's
    own restarting checkpoint takes the write lock instead, and a commit that meets it sleeps in
    SQLite's busy handler, on the loop."""

    def __init__(
        self,
        path: Path,
        every: float,
        limit: int,
        resume: Callable[[], object],
        keep: float,
        prune_every: float,
    ) -> None:
        self._path, self._every, self._limit, self._resume = path, every, limit, resume
        self._keep, self._prune_every = keep, prune_every
        self.commits = threading.Lock()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="parlour-checkpoint", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        db = sqlite3.connect(self._path, isolation_level=None, check_same_thread=False)
        try:
            frame = db.execute("PRAGMA page_size").fetchone()[0] + 24  # a WAL frame: header and page
            prune_at = time.monotonic() + self._prune_every
            while not self._stop.wait(self._every):
                try:
                    _, frames, _ = db.execute(_PASSIVE).fetchone()
                    if frames * frame > self._limit:
                        self._empty(db, frames)
                except (sqlite3.Error, OSError):  # busy or full disk: the WAL keeps the data; try again later
                    log.warning("event=checkpoint_failed", exc_info=True)
                if time.monotonic() >= prune_at:
                    prune_at = time.monotonic() + self._prune_every
                    try:
                        self._prune(db)
                    except (sqlite3.Error, OSError):
                        log.warning("event=room_log_prune_failed", exc_info=True)
        except RuntimeError:  # the loop closed without closing the store: nothing left to write
            pass
        finally:
            db.close()

    def _empty(self, db: sqlite3.Connection, frames: int) -> None:
        """Copy what the last checkpoint left with no commit running meanwhile, so that the next
        commit restarts the WAL. First catch up without ``commits`` until a copy finds little new
        (``_CATCH_UP`` frames), syncing the database file after each copy: SQLite syncs it only in a
        checkpoint that reaches the WAL's end, which under load is the last one, and syncing all the
        copies there held the loop's commits for 50-90 ms."""
        fd = os.open(self._path, os.O_RDWR)
        try:
            for _ in range(8):
                _, now, _ = db.execute(_PASSIVE).fetchone()
                os.fsync(fd)
                if now - frames <= _CATCH_UP:
                    break
                frames = now
        finally:
            os.close(fd)
        try:
            with self.commits:
                db.execute(_PASSIVE)
        finally:  # a batch the loop kept while ``commits`` was held waits for this, even if the copy failed
            self._resume()

    def _prune(self, db: sqlite3.Connection) -> None:
        """Delete the room log's records past their retention (``sqlite_retention``), a chunk at a
        time, each with ``commits`` held (the loop keeps its batch meanwhile, as for ``_empty``)."""
        bound, gone = retention.prune_bound(db, time.time() - self._keep), 0
        while not self._stop.is_set():
            began = time.monotonic()
            try:
                with self.commits:
                    deleted = retention.prune_chunk(db, bound)
            finally:
                self._resume()
            if not deleted:
                break
            gone += deleted
            # As long again without ``commits``: the loop's kept batch commits before the next chunk
            # (taken at once, the lock would keep every commit waiting for the whole run).
            self._stop.wait(time.monotonic() - began)
        if gone:
            log.info("event=room_log_pruned rows=%d below=%d", gone, bound)

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()


class SQLiteStore:
    """The embedded default ``Store``."""

    def __init__(
        self,
        data_dir: str | Path,
        checkpoint_every: float = 1.0,
        wal_limit: int = 64 << 20,
        log_retention: float = 7 * 86400.0,
        prune_every: float = 60.0,
    ) -> None:
        """``checkpoint_every``: seconds between checkpoints; ``wal_limit``: the WAL's size in bytes
        past which a checkpoint also empties it (``_Checkpointer``); ``log_retention``: seconds the
        room log's records are kept once no open room needs them (``sqlite_retention``), looked at
        every ``prune_every`` seconds."""
        self.path = Path(data_dir) / DB_FILE
        self._checkpoint_every, self._wal_limit = checkpoint_every, wal_limit
        self._log_retention, self._prune_every = log_retention, prune_every
        self._checkpointer: _Checkpointer | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._db: sqlite3.Connection | None = None
        self._pending: list[_Pending] = []
        self._flush_scheduled = False
        self._lock_file: IO[str] | None = None

    # --- lifecycle -----------------------------------------------------------

    async def open(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock()
        self._loop = asyncio.get_running_loop()
        db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=NORMAL")
        db.execute("PRAGMA wal_autocheckpoint=0")  # checkpoints (with their fsyncs) run off the loop
        db.executescript(_SCHEMA)
        _migrate(db)
        db.executescript(_INDEXES)
        db.executescript(history.SCHEMA)
        self._db = db
        resume = partial(self._loop.call_soon_threadsafe, self._resume)
        self._checkpointer = _Checkpointer(
            self.path, self._checkpoint_every, self._wal_limit, resume, self._log_retention, self._prune_every
        )

    def _lock(self) -> None:
        """One server per data directory: two would interleave their logs. The OS drops the lock
        when the process dies, however it dies."""
        try:
            import fcntl
        except ImportError:  # Windows: no advisory locks; run one server per directory
            return
        self._lock_file = (self.path.parent / "parlour.lock").open("w")
        try:
            fcntl.flock(self._lock_file, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            raise SystemExit(f"another parlour server is using {self.path.parent}") from None

    async def close(self) -> None:
        if self._checkpointer is not None:
            self._checkpointer.stop()
            self._checkpointer = None
        if self._pending:
            self._flush()
        if self._db is not None:
            self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            self._db.close()
            self._db = None
        if self._lock_file is not None:
            self._lock_file.close()

    # --- sessions ------------------------------------------------------------

    async def save_session(self, session: SessionRecord) -> None:
        await self._write(
            "INSERT INTO sessions (id, name, token_hash, created_at, profile) VALUES (?, ?, ?, ?, ?) "
            "ON CONFLICT (id) DO UPDATE SET name = excluded.name",
            (session.id, session.name, session.token_hash, session.created_at, session.profile),
        )

    async def find_session(self, token_hash: str) -> SessionRecord | None:
        rows = self._query(
            "SELECT id, name, token_hash, created_at, profile FROM sessions WHERE token_hash = ?",
            (token_hash,),
        )
        return SessionRecord(*rows[0]) if rows else None

    # --- profiles ------------------------------------------------------------

    async def save_profile(self, profile: ProfileRecord) -> None:
        await self._write(
            "INSERT INTO profiles (id, name, secret_hash, created_at) VALUES (?, ?, ?, ?) "
            "ON CONFLICT (id) DO UPDATE SET name = excluded.name",
            (profile.id, profile.name, profile.secret_hash, profile.created_at),
        )

    async def find_profile(self, profile_id: str) -> ProfileRecord | None:
        rows = self._query(
            "SELECT id, name, secret_hash, created_at FROM profiles WHERE id = ?", (profile_id,)
        )
        return ProfileRecord(*rows[0]) if rows else None

    # --- rooms ---------------------------------------------------------------

    async def create_room(self, code: str, config: dict[str, Any]) -> bool:
        # ``log_from``: the log's last id before the room's first record, where recovery starts reading.
        return await self._write(_NEW_ROOM, (code, json_bytes(config).decode(), time.time()))

    async def append(self, code: str, record: dict[str, Any], game: GameRecord | None = None) -> None:
        await self._write(_APPEND, (code, json_bytes(record).decode()), game)

    def append_then(self, code: str, record: dict[str, Any], game: GameRecord | None, then: _Then) -> None:
        self._queue((_APPEND, (code, json_bytes(record).decode()), game, then))

    def _write(
        self, sql: str, params: tuple[Any, ...], game: GameRecord | None = None
    ) -> asyncio.Future[bool]:
        """Queue a write for this tick's transaction; the future resolves once it has committed."""
        done: asyncio.Future[bool] = (self._loop or asyncio.get_running_loop()).create_future()
        self._queue((sql, params, game, done))
        return done

    def _queue(self, write: _Pending) -> None:
        self._pending.append(write)
        if not self._flush_scheduled:
            # Flush one loop pass after the next: the rooms the same pass's I/O reached (other rooms'
            # moves that arrived together) append first and join this transaction. No timer. (One
            # ``call_soon`` would already run after this poll's read callbacks, uvloop and asyncio
            # alike, but its smaller batches cost more CPU per move at 20 rooms and no 200-room p99
            # gain showed: docs/benchmarks.md, "Issue 11, ninth round: the SQLite tick".)
            loop = self._loop or asyncio.get_running_loop()  # cached: get_running_loop() calls getpid()
            self._flush_scheduled = True
            loop.call_soon(loop.call_soon, self._flush)

    def _resume(self) -> None:
        """The checkpoint that empties the WAL let go of ``commits``: write what waited for it."""
        if self._pending and not self._flush_scheduled:
            self._flush()

    def _flush(self) -> None:
        """Write this tick's appends as one transaction, then resolve each caller's await."""
        self._flush_scheduled = False
        if not self._pending:
            return
        commits = self._checkpointer.commits if self._checkpointer is not None else None
        if commits is not None and not commits.acquire(blocking=False):
            return  # the WAL is being emptied; ``_resume`` writes the batch (``_Checkpointer``)
        batch, self._pending = self._pending, []
        error: Exception | None = None
        try:
            written = self._write_batch(batch)
        except Exception as exc:  # every caller of the batch learns it was not durable
            error, written = exc, []
        finally:
            if commits is not None:
                commits.release()
        for (*_, done), wrote in zip(batch, written or [False] * len(batch), strict=True):
            if not isinstance(done, asyncio.Future):
                try:
                    done(error)  # a room's continuation: it delivers what the append made durable
                except Exception:  # never the other callers' concern
                    log.exception("event=append_callback_failed")
            elif done.done():
                continue
            elif error is None:
                done.set_result(wrote)
            else:
                done.set_exception(error)

    def _write_batch(self, batch: list[_Pending]) -> list[bool]:
        """Run the batch in one transaction; for each write, whether it wrote a row."""
        db = self._require()
        execute, written = db.execute, list[bool]()
        run: list[tuple[Any, ...]] = []  # consecutive plain appends, inserted by one executemany
        with db:
            execute("BEGIN")
            for sql, params, _, _ in batch:
                if sql is _APPEND and not params[1].startswith(_CHECKPOINT):
                    run.append(params)
                    continue
                if run:
                    _append_run(db, run, written)
                cursor = execute(sql, params)
                written.append(cursor.rowcount == 1)
                if sql is _APPEND:  # a checkpoint: recovery starts reading the room's log at its row
                    execute(
                        "INSERT OR REPLACE INTO checkpoints (room, log_id) VALUES (?, ?)",
                        (params[0], cursor.lastrowid),
                    )
            if run:
                _append_run(db, run, written)
            for _, _, game, _ in batch:
                if game is not None:
                    cursor = db.execute(
                        f"INSERT INTO games ({history.GAME_COLUMNS}, gid) VALUES ({', '.join('?' * 12)})"
                        " ON CONFLICT (gid) DO NOTHING",
                        (
                            game.room,
                            game.number,
                            game.game,
                            json_bytes(game.settings).decode(),
                            game.seed,
                            json_bytes(game.players).decode(),
                            json_bytes(game.result).decode(),
                            game.started_at,
                            game.ended_at,
                            json_bytes(game.log).decode(),
                            game.private,
                            game.id,
                        ),
                    )
                    if cursor.rowcount == 1:  # a game stored once is counted once
                        history.write_game(db, cursor.lastrowid or 0, game)
        return written

    async def close_room(self, code: str, reason: str) -> None:
        await self._write(
            "UPDATE rooms SET closed_at = ?, closed_reason = ? WHERE code = ?", (time.time(), reason, code)
        )

    async def open_rooms(self) -> list[RoomRecord]:
        db = self._require()
        rooms: dict[str, RoomRecord] = {}
        for code, config in db.execute(
            "SELECT code, config FROM rooms WHERE closed_at IS NULL ORDER BY created_at, rowid"
        ):
            rooms[code] = record = RoomRecord(code, {})
            try:
                record.config = orjson.loads(config)
            except orjson.JSONDecodeError:  # one unreadable room is quarantined, never the server
                record.broken = "unreadable config"
        # Each open room's log from its latest checkpoint on (earlier records are audit only:
        # sqlite_retention). The log has no index by room (it would cost every append a second B-tree
        # write): read it from the earliest place an open room starts, by id, and keep each open room's
        # rows from its own start.
        starts = dict(
            db.execute(
                "SELECT r.code, COALESCE(c.log_id, r.log_from + 1) FROM rooms r"
                " LEFT JOIN checkpoints c ON c.room = r.code WHERE r.closed_at IS NULL"
            )
        )
        rows = db.execute(
            "SELECT room, id, data FROM room_log WHERE id >= ?"
            " AND room IN (SELECT code FROM rooms WHERE closed_at IS NULL) ORDER BY id",
            (min(starts.values(), default=0),),
        )
        for room, row, data in rows if starts else ():
            found = rooms[room]
            if row < starts[room] or found.broken is not None:
                continue
            try:
                found.log.append(orjson.loads(data))
            except orjson.JSONDecodeError:
                found.broken, found.log = f"unreadable log row {row}", []
        return list(rooms.values())

    async def games(self, room: str) -> list[GameRecord]:
        rows = self._query(f"SELECT {history.GAME_COLUMNS} FROM games WHERE room = ? ORDER BY id", (room,))
        return [history.game_record(r) for r in rows]

    async def game(self, game_id: str) -> GameRecord | None:
        rows = self._query(f"SELECT {history.GAME_COLUMNS} FROM games WHERE gid = ?", (game_id,))
        return history.game_record(rows[0]) if rows else None

    async def list_games(self, query: GameQuery) -> tuple[list[GameRecord], str | None]:
        return history.list_games(self._require(), query)

    async def player_totals(self, profile: str) -> list[PlayerTotals]:
        return history.player_totals(self._require(), profile)

    async def leaderboard(self, game: str, min_played: int, limit: int) -> list[PlayerTotals]:
        return history.leaderboard(self._require(), game, min_played, limit)

    # --- helpers ------------------------------------------------------------------

    def _require(self) -> sqlite3.Connection:
        if self._db is None:
            raise RuntimeError("store is not open")
        return self._db

    def _query(self, sql: str, params: tuple[Any, ...]) -> list[tuple[Any, ...]]:
        return self._require().execute(sql, params).fetchall()


def _append_run(db: sqlite3.Connection, run: list[tuple[Any, ...]], written: list[bool]) -> None:
    """Insert a run of log records with one statement (one ``execute`` each was ~4% of a /dots move).
    A plain INSERT writes its row or raises (failing the whole batch), so each one wrote."""
    db.executemany(_APPEND, run)
    written.extend([True] * len(run))
    run.clear()


def _migrate(db: sqlite3.Connection) -> None:
    """Bring a database written by an older version up to this schema (columns added since)."""
    if "log_from" not in {row[1] for row in db.execute("PRAGMA table_info(rooms)")}:
        with db:  # open rooms start reading where their first record is (found by the old index)
            db.execute("BEGIN")
            db.execute("ALTER TABLE rooms ADD COLUMN log_from INTEGER NOT NULL DEFAULT 0")
            db.execute(
                "UPDATE rooms SET log_from = COALESCE((SELECT MIN(id) - 1 FROM room_log WHERE room = code),"
                " (SELECT COALESCE(MAX(id), 0) FROM room_log)) WHERE closed_at IS NULL"
            )
            db.execute("DROP INDEX IF EXISTS room_log_room")
    if "profile" not in {row[1] for row in db.execute("PRAGMA table_info(sessions)")}:
        db.execute("ALTER TABLE sessions ADD COLUMN profile TEXT")
    columns = {row[1] for row in db.execute("PRAGMA table_info(games)")}
    if "private" not in columns:  # whether an old game's room was public is not known: keep it private
        db.execute("ALTER TABLE games ADD COLUMN private INTEGER NOT NULL DEFAULT 1")
    if "gid" not in columns:
        with db:
            db.execute("BEGIN")
            db.execute("ALTER TABLE games ADD COLUMN gid TEXT")
            rows = db.execute("SELECT id, room, number, seed FROM games").fetchall()
            db.executemany(
                "UPDATE games SET gid = ? WHERE id = ?", [(game_id(r, n, s), i) for i, r, n, s in rows]
            )
