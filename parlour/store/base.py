"""What the room layer needs from persistence, so SQLite and (later) Redis are interchangeable.

A room is ``(config, log)``: the config written once at creation, then one record per accepted
command. Replaying the log through the room's handlers rebuilds the room exactly, so the log is
the only thing that must be durable before a command's messages go out.
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

import orjson

from parlour.dumps import json_bytes

K = TypeVar("K", int, str)


def game_id(room: str, number: int, seed: int) -> str:
    """A finished game's public id: derived, so a replayed room names its games the same way, and
    opaque, so a game's id does not give away its (possibly unlisted) room's code."""
    digest = hashlib.blake2b(f"{room}:{number}:{seed}".encode(), digest_size=10).digest()
    return base64.b32encode(digest).decode().lower()


@dataclass(slots=True)
class SessionRecord:
    """A guest identity. Only a hash of the token is ever stored."""

    id: str
    name: str
    token_hash: str
    created_at: float
    profile: str | None = None
    """The guest profile the session identified with (its id), if any."""


@dataclass(slots=True)
class ProfileRecord:
    """A guest profile: who a browser is across visits and rooms. Only a hash of its secret is stored."""

    id: str
    name: str
    secret_hash: str
    created_at: float


@dataclass(slots=True)
class RoomRecord:
    """An open room as stored: its creation config and every logged command since."""

    code: str
    config: dict[str, Any]
    log: list[dict[str, Any]] = field(default_factory=list)
    broken: str | None = None
    """Why the stored config or a log row could not be read (the room is quarantined), else None."""


@dataclass(slots=True)
class GameRecord:
    """A finished (or abandoned) game, kept for replays and stats."""

    room: str
    number: int
    game: str
    settings: dict[str, Any]
    seed: int
    players: list[dict[str, Any]]
    result: dict[str, Any]
    started_at: float
    ended_at: float
    log: list[dict[str, Any]]
    private: bool = True
    """Played in an unlisted or password-protected room: shown only to its players."""

    @property
    def id(self) -> str:
        return game_id(self.room, self.number, self.seed)


def bot_profile(game: str, level: str) -> str:
    """The stable pseudo-profile every bot of ``game`` at ``level`` is counted under."""
    return f"bot-{game}-{level}"


@dataclass(slots=True)
class PlayerGame:
    """One seat of a finished game as a player's history and totals count it."""

    profile: str
    name: str
    bot: str | None
    seat: int
    won: bool
    counted: bool
    """Finished by the rules with a winner (not reset, terminated or idle, nor won by nobody): it counts
    in the player's totals."""
    stats: dict[str, int]


def player_games(record: GameRecord) -> list[PlayerGame]:
    """The seats of ``record`` that belong to a profile (a guest's, or a bot level's pseudo-profile);
    players of the seed protocols have none and are not counted."""
    # A tie (Dots' equal boxes, Connect Four's full board) names every tied seat a winner; nobody won it.
    winners = set() if record.result.get("tie") else set(record.result.get("winners") or ())
    rows = []
    for p in record.players:
        level = p.get("bot")
        profile = bot_profile(record.game, level) if level else p.get("profile")
        if not profile:
            continue
        name = f"Bot ({level})" if level else p["name"]
        stats = p.get("stats")
        rows.append(
            PlayerGame(profile, name, level, p["seat"], p["seat"] in winners, stats is not None, stats or {})
        )
    return rows


@dataclass(slots=True)
class PlayerTotals:
    """A profile's sums over its counted games of one game."""

    profile: str
    game: str
    name: str
    bot: str | None
    played: int
    won: int
    stats: dict[str, int] = field(default_factory=dict)


@dataclass(slots=True)
class GameQuery:
    """Which finished games to list, newest first, as ``viewer`` (a profile id or None) may see them."""

    viewer: str | None = None
    player: str | None = None
    game: str | None = None
    room: str | None = None
    before: str | None = None
    """The cursor a previous page ended with (opaque)."""
    limit: int = 20


def encode_cursor(ended_at: float, key: int | str) -> str:
    """An opaque list cursor: the last row's end time and the store's tie-breaker."""
    return base64.urlsafe_b64encode(json_bytes([ended_at, key])).decode().rstrip("=")


def decode_cursor(cursor: str | None, kind: type[K], start: tuple[float, K]) -> tuple[float, K]:
    """The position ``cursor`` names (``start`` for none); ValueError for one this store did not make."""
    if not cursor:
        return start
    try:
        ended_at, key = orjson.loads(base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)))
    except Exception:
        raise ValueError("bad cursor") from None
    if type(ended_at) not in (int, float) or type(key) is not kind:
        raise ValueError("bad cursor")
    return float(ended_at), key


class Fenced(Exception):
    """This node no longer holds the room's lease (a cluster's store): the write was refused, and the
    room's new owner takes what was being written."""

    def __init__(self, code: str) -> None:
        super().__init__(f"room {code} is owned by another node")
        self.code = code


class Store(Protocol):
    """Durable storage for sessions, room logs and finished games."""

    async def open(self) -> None:
        """Create or migrate the schema."""

    async def close(self) -> None:
        """Flush pending writes and release the database."""

    async def save_session(self, session: SessionRecord) -> None:
        """Insert or update a session."""

    async def find_session(self, token_hash: str) -> SessionRecord | None:
        """The session whose token hashes to ``token_hash``."""

    async def save_profile(self, profile: ProfileRecord) -> None:
        """Insert a profile, or update its name."""

    async def find_profile(self, profile_id: str) -> ProfileRecord | None:
        """The profile with this id, if any (the caller checks the secret against its hash)."""

    async def create_room(self, code: str, config: dict[str, Any]) -> bool:
        """Record a new room (its log starts empty); False if the code was ever used before."""

    async def append(self, code: str, record: dict[str, Any], game: GameRecord | None = None) -> None:
        """Durably append one command record (and a finished game, atomically with it).

        Appends from all rooms in one loop tick share a transaction; this returns once that
        transaction has committed.
        """

    def append_then(
        self,
        code: str,
        record: dict[str, Any],
        game: GameRecord | None,
        then: Callable[[BaseException | None], None],
    ) -> None:
        """``append``, then ``then(None)`` once committed, or ``then(error)`` if it was not.

        The room actor's way to append: it continues in ``then`` without a task of its own, so the
        store calls it right after the commit (or inline, if the append is already durable).
        """

    async def close_room(self, code: str, reason: str) -> None:
        """Mark a room closed: it is no longer recovered on startup."""

    async def open_rooms(self) -> list[RoomRecord]:
        """Every room not closed, with its full log, in creation order."""

    async def games(self, room: str) -> list[GameRecord]:
        """Finished games of a room, oldest first."""

    async def game(self, game_id: str) -> GameRecord | None:
        """The finished game whose public id (``GameRecord.id``) is ``game_id``, if any."""

    async def list_games(self, query: GameQuery) -> tuple[list[GameRecord], str | None]:
        """A page of finished games (their ``log`` left empty), newest first, and the cursor of the
        next page (None on the last). Private games only for a ``query.viewer`` who played them."""

    async def player_totals(self, profile: str) -> list[PlayerTotals]:
        """A profile's totals, one per game it played."""

    async def leaderboard(self, game: str, min_played: int, limit: int) -> list[PlayerTotals]:
        """Profiles with at least ``min_played`` counted games of ``game``: most wins first, then the
        best win rate."""
