"""The room's data: what a room holds, as created and between commands.

Each part of the room (``actor``, ``membership``, ``game_flow``, ``outbound``, ``checkpoint``) is a
mixin over this class; ``room.Room`` combines them. The methods one part calls on another are
declared here for the type checker only.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

from parlour.bots.catalog import get_game
from parlour.games import Event
from parlour.rooms import scoreboard
from parlour.rooms.commands import Command
from parlour.rooms.enums import WAITING, CountdownKind, Phase
from parlour.rooms.members import BotFactory, Member, Message
from parlour.rooms.timers import Timers
from parlour.store import GameRecord, Store

if TYPE_CHECKING:
    from parlour.rooms.room import Room

CHAT_HISTORY = 50
RECENT_GAMES = 10
"""Finished games a room lists (with their replay ids) in its snapshot."""
TABLE_LOG_HISTORY = 200
"""Game-log entries a snapshot carries: the current game's most recent ones (a reload shows them)."""
FORWARDED_HISTORY = 1024
"""Forwarded moves (``Command.fid``) a room remembers having applied: far more than a room gets in
the seconds a move may be sent again (``ClusterManager._unsure_seconds``)."""
BOT_CATCH_DELAY = 2.0
"""Seconds a bot waits, after a human's play left them one card, before it may catch them without
UNO (humans may catch at once): a person needs a moment to press UNO!."""
HURRY_AFTER = 2
"""Turns in a row a seat's clock runs out on before its turns are short (``HURRIED_TURN``)."""
HURRIED_TURN = 5
"""Seconds on a seat's clock once it ran out ``HURRY_AFTER`` times in a row, until the seat moves."""


@dataclass(frozen=True, slots=True)
class Timings:
    """Room clocks in seconds (configurable for tests and deployments)."""

    grace: float = 60.0
    empty_room: float = 600.0
    ready_countdown: float = 5.0
    quick_play_countdown: float = 10.0


class RoomHooks(Protocol):
    """What a room tells the rest of the server (the manager implements it)."""

    def membership(self, session: str, room: Room | None) -> None:
        """``session`` entered ``room`` (or left its room, when None)."""

    def changed(self, room: Room) -> None:
        """The room may look different in the lobby and metrics."""

    def processed(self, room: Room, kind: str, error: str | None, seconds: float) -> None:
        """One command finished (for metrics)."""

    def forwarded_done(self, room: Room, cmd: Command, error: str | None) -> None:
        """A move another node forwarded with an id (``Command.fid``) was handled: applied, refused, or
        (``moved``) fenced out. Called as it finishes, so what it sends joins the move's messages."""


class RoomState:
    """One room: configuration, members, chat, the current game, deadlines, and its command queue."""

    handlers: ClassVar[Mapping[str, Callable[[Any, Command], bool | None]]]
    """The command table (``rooms.handlers.HANDLERS``), set by ``room.Room``."""

    def __init__(
        self,
        config: dict[str, Any],
        store: Store,
        hooks: RoomHooks,
        timings: Timings,
        bot_factory: BotFactory | None = None,
    ) -> None:
        self.config = config
        self.code: str = config["code"]
        self.game_name: str = config["game"]
        self.engine = get_game(self.game_name)
        self.quick_play: bool = config.get("quick_play", False)
        self.store = store
        self.hooks = hooks
        self.timings = timings
        self.bot_factory = bot_factory
        self.records: list[dict[str, Any]] = []
        # The command queue (rooms/actor.py): None asks the actor to stop once it gets there.
        self._queue: deque[tuple[Command, asyncio.Future[str | None] | None] | None] = deque()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._busy = True
        """A command is under way (handled, waiting for its commit, or being delivered), or the actor
        is not running (before ``start``, once halted): new commands queue."""
        self._draining = False
        self._halted = False
        self._started = 0.0
        self._waiting: (
            tuple[Command, asyncio.Future[str | None] | None, Phase, list[dict[str, Any]], int] | None
        ) = None
        """The command whose append the store is committing, with what undoing its record needs."""
        self._settle_calls: list[Callable[[], None]] = []
        """What waits for the command being committed to be delivered or undone (``when_settled``)."""
        self._stopped: asyncio.Future[None] | None = None
        self._closing: asyncio.Task[None] | None = None
        self._timers = Timers(self._timer_due)
        self.replaying = False
        # What this command sends, delivered after its commit: (a sink's ``send``, or a websocket's
        # ``send_json`` for a message the room encoded itself (rooms/encoding.py), and the message).
        self._out: list[tuple[Callable[[Any], None], Any]] = []
        self._reply: Message | None = None
        self._record: GameRecord | None = None
        self._removed: list[Member] = []
        """Members the command being handled took out, with their connections: if it fails, the
        rebuilt room gives each its connection back (``RoomActor._rebuild``)."""
        self._checkpoint_due = False
        self._failed: dict[str, None] = {}
        """Fingerprints of commands whose handler raised (newest last, bounded): each such command
        costs one rebuild from the log, then is refused unhandled (a CPU amplifier otherwise)."""
        self._reset_state()

    def _reset_state(self) -> None:
        """The room as created, before any command."""
        config = self.config
        self.settings_raw: dict[str, Any] = dict(config.get("settings") or {})
        self.rules = self.engine.settings(self.settings_raw)
        self.public: bool = config.get("public", False)
        self.bots_take_over: bool = config.get("bots_take_over", True)
        self.bot_catch_delay: float = config.get("bot_catch_delay", BOT_CATCH_DELAY)
        self.password_hash: str | None = config.get("password_hash")
        self.spectators_need_password: bool = config.get("spectators_need_password", True)
        """False for a room made by /dots CREATE: its spectators need no password (that seed's rule)."""
        self.capacity: int = config["capacity"]
        self.state = WAITING
        self.members: dict[str, Member] = {}
        self.member_count = 0
        self.host: str | None = None
        self.chat: deque[Message] = deque(maxlen=CHAT_HISTORY)
        self.banned: set[str] = set()
        """Who was kicked from the room: sessions, address hashes (``Member.origin``) and guest profiles
        (prefixed, ``handlers.kick``)."""
        self.joined: set[str] = set()
        """Every human session that has been a member: a kick's address ban does not bar them (the
        kicked player's housemates, or anyone behind the same NAT, who were here before)."""
        self.game: Any = None
        self.seats: list[Message] = []
        self.seat_sessions: list[str] = []
        self.seat_tags: dict[int, dict[str, str]] = {}
        """Seat → ``{"bot": level}`` or ``{"profile": id}`` in the current game (for its ``GameRecord``)."""
        self.seats_lost: dict[str, bool] = {}
        """Sessions whose seat in the current game was given up when their grace ran out: told so if
        they come back to watch it. True: a bot had played the seat to the game's end."""
        self.seq = 0
        self.games_played = 0
        self.seed = 0
        self.started_at = 0.0
        self.game_log: list[dict[str, Any]] = []
        self._new_table_log()
        self.scoreboard: scoreboard.Scoreboard = {}
        self.colours: dict[str, int] = {}
        """Each player's colour (an index into the client's palette) by session, a bot's by member id:
        kept from game to game, where seats are renumbered (``to_waiting``), so a Dots player who was
        blue stays blue after someone before them left."""
        self.recent_games: deque[Message] = deque(maxlen=RECENT_GAMES)
        self.outcome: Message | None = None
        self.countdown: tuple[CountdownKind, float] | None = None
        self.turn: tuple[int, float | None] | None = None
        self.missed: dict[int, int] = {}
        """Seat → turns in a row its clock ran out on, in this game: from ``HURRY_AFTER`` on, the seat's
        turns are short (``set_turn``) until it moves, so a player who went away without closing the page
        no longer holds the table up for the whole clock every round."""
        self.paused = False
        """The clock in ``turn`` times the game's pause (``Game.pause``), not a move: nobody is told it is
        their turn."""
        self.all_away = False
        """Every person seated in the game is away (``Membership.check_away``): its turn clock and its
        bots wait for one of them to come back."""
        self.grace: dict[str, float] = {}
        self.forwarded: dict[str, None] = {}
        """The ``fid`` of each forwarded move this room applied (newest last, ``FORWARDED_HISTORY``):
        one sent again, because the node that owned the room died before it was known to be handled,
        is ignored. Rebuilt by replay (the log's records carry it) and kept by checkpoints."""
        # A room nobody ever joins still closes: idle from creation until the first member.
        self.idle: float | None = config.get("created_at", time.time()) + self.timings.empty_room

    def _new_table_log(self) -> None:
        """An empty game log (the room as created, or a new game): ``Outbound.table_log``."""
        self._table_log: deque[Message] = deque(maxlen=TABLE_LOG_HISTORY)
        self._table_log_count = 0
        self._log_later: list[tuple[list[Event], list[Message], list[Message], int | None]] = []
        """Game-log entries not written yet, oldest first: (the events, each as a spectator sees it,
        the game's seats, the stand-in seat) of each action whose game messages no recipient took the
        log of (``Outbound.broadcast_game``); ``Outbound.table_log`` writes them when it is read."""

    if TYPE_CHECKING:  # what the parts call on one another (defined in the module named)

        def _timer_due(self, name: str, deadline: float) -> None: ...  # actor

        @property
        def settled(self) -> bool: ...  # actor

        def when_settled(self, call: Callable[[], None]) -> None: ...  # actor

        def players(self) -> list[Member]: ...  # membership

        def game_seat(self, member: Member) -> int | None: ...  # membership

        def release_replaced(self, at: float) -> None: ...  # membership

        def check_away(self, at: float, exclude: Member | None = None) -> None: ...  # membership

        def update_countdown(self, at: float, joined: bool = False) -> None: ...  # game_flow

        def restart_clock(self, at: float) -> None: ...  # game_flow

        def hurried(self, seat: int) -> bool: ...  # game_flow

        def check_deserted(self, at: float) -> None: ...  # game_flow

        def game_events(
            self, events: list[Event], at: float, actor: int | None, *, by_bot: bool = False
        ) -> None: ...  # game_flow

        def send(self, member: Member, message: Message) -> None: ...  # outbound

        def broadcast(self, message: Message, exclude: Member | None = None) -> None: ...  # outbound

        def broadcast_snapshots(self, exclude: Member | None = None) -> None: ...  # outbound

        def broadcast_game(
            self, kind: str, events: list[Event], stand_in: int | None = None
        ) -> None: ...  # outbound

        def countdown_message(self) -> Message: ...  # outbound

        def snapshot(self, member: Member) -> Message: ...  # outbound

        def checkpoint(self) -> dict[str, Any]: ...  # checkpoint
