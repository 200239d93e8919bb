"""SQLite's history index: finished games by player, game and room, and each player's totals.

``write_game`` runs inside the transaction that stores the game (``SQLiteStore._write_batch``), so the
index and the totals always agree with the games table. Every list is read newest first through an
index that ends in ``(ended_at, id)``, and a page ends where the cursor says, so a page costs the same
at the millionth game as at the first.
"""

from __future__ import annotations

import sqlite3
from typing import Any

import orjson

from parlour.dumps import json_bytes
from parlour.store.base import GameQuery, GameRecord, PlayerTotals, decode_cursor, encode_cursor, player_games

SCHEMA = """
CREATE TABLE IF NOT EXISTS player_games (
    profile TEXT NOT NULL, gid TEXT NOT NULL, game TEXT NOT NULL, row INTEGER NOT NULL,
    ended_at REAL NOT NULL, won INTEGER NOT NULL, private INTEGER NOT NULL,
    PRIMARY KEY (profile, gid));
CREATE INDEX IF NOT EXISTS player_games_recent ON player_games (profile, private, ended_at, row);
CREATE INDEX IF NOT EXISTS player_games_by_game ON player_games (profile, game, private, ended_at, row);
CREATE TABLE IF NOT EXISTS player_totals (
    profile TEXT NOT NULL, game TEXT NOT NULL, name TEXT NOT NULL, bot TEXT,
    played INTEGER NOT NULL, won INTEGER NOT NULL, stats TEXT NOT NULL,
    PRIMARY KEY (profile, game));
CREATE INDEX IF NOT EXISTS player_totals_board ON player_totals (game, won);
CREATE INDEX IF NOT EXISTS games_public ON games (private, ended_at, id);
CREATE INDEX IF NOT EXISTS games_public_by_game ON games (private, game, ended_at, id);
CREATE INDEX IF NOT EXISTS games_room_recent ON games (room, ended_at, id);
"""

GAME_COLUMNS = "room, number, game, settings, seed, players, result, started_at, ended_at, log, private"
SUMMARY = (
    "g.room, g.number, g.game, g.settings, g.seed, g.players, g.result, g.started_at, g.ended_at, '[]',"
    " g.private"
)
"""A list row: a game's columns as ``GAME_COLUMNS`` has them, with an empty log (lists never read it)."""
TOTALS = "profile, game, name, bot, played, won, stats"
_END = (float("inf"), 2**62)


def write_game(db: sqlite3.Connection, row: int, game: GameRecord) -> None:
    """Index a just-stored game (``row`` is its id in ``games``) and add it to its players' totals."""
    for seat in player_games(game):
        db.execute(
            "INSERT INTO player_games (profile, gid, game, row, ended_at, won, private)"
            " VALUES (?, ?, ?, ?, ?, ?, ?)"
            " ON CONFLICT (profile, gid) DO UPDATE SET won = max(won, excluded.won)",
            (seat.profile, game.id, game.game, row, game.ended_at, seat.won, game.private),
        )
        if not seat.counted:
            continue
        found = db.execute(
            "SELECT stats FROM player_totals WHERE profile = ? AND game = ?", (seat.profile, game.game)
        ).fetchone()
        stats: dict[str, int] = orjson.loads(found[0]) if found else {}
        for key, value in seat.stats.items():
            stats[key] = stats.get(key, 0) + value
        db.execute(
            f"INSERT INTO player_totals ({TOTALS}) VALUES (?, ?, ?, ?, 1, ?, ?)"
            " ON CONFLICT (profile, game) DO UPDATE SET name = excluded.name, played = played + 1,"
            " won = won + excluded.won, stats = excluded.stats",
            (seat.profile, game.game, seat.name, seat.bot, int(seat.won), json_bytes(stats).decode()),
        )


def list_games(db: sqlite3.Connection, query: GameQuery) -> tuple[list[GameRecord], str | None]:
    ended_at, row = decode_cursor(query.before, int, _END)
    want = query.limit + 1
    if query.player is not None:
        rows = _player_page(db, query, ended_at, row, want)
    else:
        rows = _page(db, "games g", "g.private = 0", [], query, "g", ended_at, row, want)
        if query.viewer is not None:  # and the private games the viewer played
            rows += _page(
                db,
                "player_games pg JOIN games g ON g.id = pg.row",
                "pg.profile = ? AND pg.private = 1",
                [query.viewer],
                query,
                "pg",
                ended_at,
                row,
                want,
            )
            rows.sort(key=lambda r: (r[8], r[-1]), reverse=True)
    games = [game_record(r) for r in rows[: query.limit]]
    more = len(rows) > query.limit
    last = rows[query.limit - 1] if more else None
    return games, (encode_cursor(last[8], last[-1]) if last is not None else None)


def _player_page(
    db: sqlite3.Connection, query: GameQuery, ended_at: float, row: int, want: int
) -> list[tuple[Any, ...]]:
    """One player's games: the public ones, and the private ones the viewer played too (all of them
    for the player themself). Each part reads an index in order; the two are merged."""
    assert query.player is not None
    join = "player_games pg JOIN games g ON g.id = pg.row"
    public = "pg.profile = ? AND pg.private = 0"
    rows = _page(db, join, public, [query.player], query, "pg", ended_at, row, want)
    if query.viewer == query.player:
        private = "pg.profile = ? AND pg.private = 1"
        rows += _page(db, join, private, [query.player], query, "pg", ended_at, row, want)
    elif query.viewer is not None:  # read the viewer's private games, keeping those the player was in
        rows += _page(
            db,
            "player_games pg JOIN player_games p ON p.gid = pg.gid AND p.profile = ?"
            " JOIN games g ON g.id = pg.row",
            "pg.profile = ? AND pg.private = 1",
            [query.player, query.viewer],
            query,
            "pg",
            ended_at,
            row,
            want,
        )
    rows.sort(key=lambda r: (r[8], r[-1]), reverse=True)
    return rows


def _page(
    db: sqlite3.Connection,
    source: str,
    where: str,
    params: list[Any],
    query: GameQuery,
    table: str,
    ended_at: float,
    row: int,
    want: int,
) -> list[tuple[Any, ...]]:
    """Up to ``want`` rows of ``source`` before the cursor, newest first, with the query's filters."""
    order = "pg.row" if table == "pg" else "g.id"
    clauses, args = [where], list(params)
    if query.game is not None:
        clauses.append(f"{table}.game = ?")
        args.append(query.game)
    if query.room is not None:
        clauses.append("g.room = ?")
        args.append(query.room)
    clauses.append(f"{table}.ended_at <= ? AND ({table}.ended_at < ? OR {order} < ?)")
    args += [ended_at, ended_at, row]
    sql = (
        f"SELECT {SUMMARY}, {order} FROM {source} WHERE {' AND '.join(clauses)}"
        f" ORDER BY {table}.ended_at DESC, {order} DESC LIMIT ?"
    )
    return db.execute(sql, [*args, want]).fetchall()


def game_record(r: tuple[Any, ...]) -> GameRecord:
    """A ``GameRecord`` from a row of ``GAME_COLUMNS`` (or ``SUMMARY``)."""
    return GameRecord(
        r[0],
        r[1],
        r[2],
        orjson.loads(r[3]),
        r[4],
        orjson.loads(r[5]),
        orjson.loads(r[6]),
        r[7],
        r[8],
        orjson.loads(r[9]),
        bool(r[10]),
    )


def player_totals(db: sqlite3.Connection, profile: str) -> list[PlayerTotals]:
    rows = db.execute(
        f"SELECT {TOTALS} FROM player_totals WHERE profile = ? ORDER BY game",
        (profile,),
    ).fetchall()
    return [_totals(r) for r in rows]


def leaderboard(db: sqlite3.Connection, game: str, min_played: int, limit: int) -> list[PlayerTotals]:
    rows = db.execute(
        f"SELECT {TOTALS} FROM player_totals"
        " WHERE game = ? AND played >= ? ORDER BY won DESC, CAST(won AS REAL) / played DESC, profile LIMIT ?",
        (game, min_played, limit),
    ).fetchall()
    return [_totals(r) for r in rows]


def _totals(r: tuple[Any, ...]) -> PlayerTotals:
    return PlayerTotals(r[0], r[1], r[2], r[3], r[4], r[5], orjson.loads(r[6]))
