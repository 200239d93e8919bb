"""The room actor: one task per room runs its commands one at a time.

Every change to a room — from any protocol, a bot or a timer — is a ``Command`` on the room's
queue. A command is handled synchronously (``rooms.handlers``), which mutates the room and
collects outbound messages; if it was accepted, its record is appended to the store and only
after that commit are the messages delivered to the members' sinks. Replaying the records
through the same handlers (with delivery switched off) rebuilds the room exactly, which is how
rooms come back after a restart and how a room heals itself if a handler ever raises.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import deque
from dataclasses import dataclass
from typing import Any, Protocol

from parlour.games import Event, IllegalAction, InvalidSettings, get_game
from parlour.rooms import scoreboard
from parlour.rooms.commands import Command, CommandError
from parlour.rooms.members import BotFactory, Member, Message, Sink
from parlour.rooms.timers import Timers
from parlour.rooms.wire import joined_object, json_bytes
from parlour.store import GameRecord, Store

log = logging.getLogger("parlour.rooms")

CHAT_HISTORY = 50
BOT_CATCH_DELAY = 2.0
"""Seconds a bot waits, after a human's play left them one card, before it may catch them without
UNO (humans may catch at once): a person needs a moment to press UNO!."""
TABLE_LOG_HISTORY = 200
"""Game-log entries a snapshot carries: the current game's most recent ones (a reload shows them)."""
_OK = {"type": "ok"}


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


def outcome_json(outcome: Any) -> dict[str, Any]:
    return {
        "winners": list(outcome.winners),
        "scores": {str(k): v for k, v in outcome.scores.items()},
        "reason": outcome.reason,
        "tie": outcome.tie,
    }


class Room:
    """One room: configuration, members, chat, the current game, deadlines, and its actor task."""

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
        self.log: list[dict[str, Any]] = []
        # The command queue: a deque and one wake-up future, cheaper per command than asyncio.Queue.
        self._queue: deque[tuple[Command, asyncio.Future[str | None] | None] | None] = deque()
        self._wake: asyncio.Future[None] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._task: asyncio.Task[None] | None = None
        self._timers = Timers(self._timer_due)
        self.replaying = False
        self._out: list[tuple[Sink, Message]] = []
        self._reply: Message | None = None
        self._record: GameRecord | None = None
        self._checkpoint_due = False
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
        self.capacity: int = config["capacity"]
        self.state = "waiting"
        self.members: dict[str, Member] = {}
        self.member_count = 0
        self.host: str | None = None
        self.chat: deque[Message] = deque(maxlen=CHAT_HISTORY)
        self.banned: set[str] = set()
        self.game: Any = None
        self.seats: list[Message] = []
        self.seat_sessions: list[str] = []
        self.seq = 0
        self.games_played = 0
        self.seed = 0
        self.started_at = 0.0
        self.game_log: list[dict[str, Any]] = []
        self.table_log: deque[Message] = deque(maxlen=TABLE_LOG_HISTORY)
        self.table_log_count = 0
        self.scoreboard: scoreboard.Scoreboard = {}
        self.outcome: Message | None = None
        self.countdown: tuple[str, float] | None = None
        self.turn: tuple[int, float | None] | None = None
        self.grace: dict[str, float] = {}
        # A room nobody ever joins still closes: idle from creation until the first member.
        self.idle: float | None = config.get("created_at", time.time()) + self.timings.empty_room

    # --- actor ---------------------------------------------------------------------

    def start(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._task = self._loop.create_task(self._run(), name=f"room-{self.code}")

    def submit(self, cmd: Command) -> asyncio.Future[str | None]:
        """Queue a command; the future resolves to None (accepted) or the error code once handled."""
        done: asyncio.Future[str | None] = (self._loop or asyncio.get_running_loop()).create_future()
        if self.state == "closed":
            _send_error(cmd, "room_closed", "the room is closed")
            done.set_result("room_closed")
        else:
            self._put((cmd, done))
        return done

    def submit_nowait(self, cmd: Command) -> None:
        """Queue a command whose outcome the caller does not wait for (its sink still gets any error)."""
        if self.state == "closed":
            _send_error(cmd, "room_closed", "the room is closed")
        else:
            self._put((cmd, None))

    def _put(self, item: tuple[Command, asyncio.Future[str | None] | None] | None) -> None:
        self._queue.append(item)
        wake = self._wake
        if wake is not None:
            self._wake = None
            if not wake.done():
                wake.set_result(None)

    async def stop(self) -> None:
        """End the task after the commands already queued (server shutdown)."""
        self._timers.cancel_all()
        if self._task is not None and not self._task.done():
            self._put(None)
            await self._task

    async def _run(self) -> None:
        queue = self._queue
        loop = asyncio.get_running_loop()
        while True:
            if not queue:
                wake = self._wake = loop.create_future()
                await wake
                continue
            item = queue.popleft()
            if item is None:
                break
            cmd, done = item
            started = time.perf_counter()
            try:
                error = await self._process(cmd)
            except Exception:
                log.exception("room=%s command=%s failed; rebuilding from the log", self.code, cmd.kind)
                _send_error(cmd, "internal_error", "the server failed handling this request")
                error = "internal_error"
                try:
                    self._rebuild()
                except Exception:  # the log itself no longer replays: keep serving what we have
                    log.exception("room=%s could not be rebuilt from its log", self.code)
            if done is not None and not done.done():
                done.set_result(error)
            self.hooks.processed(self, cmd.kind, error, time.perf_counter() - started)
            if self.state == "closed":
                break
        self._timers.cancel_all()
        while queue:
            item = queue.popleft()
            if item is not None:
                _send_error(item[0], "room_closed", "the room is closed")
                if item[1] is not None:
                    item[1].set_result("room_closed")

    async def _process(self, cmd: Command) -> str | None:
        self._out, self._reply, self._record = [], None, None
        log_before, logged_before = self.log, len(self.log)
        try:
            accepted = self._apply(cmd)
        except CommandError as exc:
            _send_error(cmd, exc.code, exc.message)
            return exc.code
        except IllegalAction as exc:
            _send_error(cmd, exc.code, exc.message)
            return exc.code
        except InvalidSettings as exc:
            _send_error(cmd, exc.code, exc.message)
            return exc.code
        if accepted:
            try:
                await self.store.append(self.code, self.log[-1], self._record)
            except Exception:
                # Not durable, so it never happened: drop the record; the caller rebuilds from the log.
                del log_before[logged_before:]
                self.log = log_before
                raise
        # Registry and lobby first: once a client reads a reply, the manager agrees with it.
        self.hooks.changed(self)
        for sink, message in self._out:
            sink.send(message)
        # Free this command's messages now, while their memory is still in the CPU's caches: left
        # to the next command of this room, freeing them was a tenth of the server's CPU under load.
        self._out.clear()
        if cmd.sink is not None and accepted is not None:
            # A bare ``ok`` only answers a request that carries an ``id``: without one it would say
            # nothing the broadcasts do not (an ``ok`` frame was a fifth of the frames per game action).
            reply = self._reply
            if cmd.request_id is not None:
                cmd.sink.send({**(reply or _OK), "id": cmd.request_id})
            elif reply is not None:
                cmd.sink.send(reply)
        if self.state == "closed":
            await self.store.close_room(self.code, self.config.get("closed_reason", "closed"))
        else:
            self._timers.sync(self._deadlines())
        return None

    def _apply(self, cmd: Command) -> bool | None:
        """Handle one command; True if it changed the room (and was logged), False/None if not.

        None means "ignore silently" (a stale timer or disconnect): no reply at all.
        """
        from parlour.rooms.handlers import HANDLERS

        handler = HANDLERS.get(cmd.kind)
        if handler is None:
            raise CommandError("unknown_type", f"rooms do not handle {cmd.kind!r}")
        in_game = self.state == "playing"
        changed = handler(self, cmd)
        if changed:
            record = cmd.record()
            if self._checkpoint_due:
                # Back in the waiting room: the state is small, so it replaces the log so far.
                self._checkpoint_due = False
                self.log = [{"k": "checkpoint", "s": None, "p": self.checkpoint(), "t": cmd.at}]
            else:
                self.log.append(record)
            if in_game or self.state == "playing" or self._record is not None:
                self.game_log.append(record)
            if self._record is not None:
                self._record.log = self.game_log
        return changed

    def replay(self, records: list[dict[str, Any]]) -> None:
        """Rebuild from logged records without sending anything (startup recovery)."""
        self.replaying = True
        try:
            for record in records:
                self._out, self._reply, self._record = [], None, None
                self._apply(Command.from_record(record))
        finally:
            self.replaying = False
            self._out, self._reply, self._record = [], None, None

    def _rebuild(self) -> None:
        """Make the room equal to its log again after a handler failed half-way."""
        sinks = {m.session: m.sink for m in self.members.values()}
        for member in self.members.values():
            if not member.bot:
                self.hooks.membership(member.session, None)
        records, self.log = self.log, []
        self._reset_state()
        self.replay(records)
        for member in self.members.values():
            member.sink = sinks.get(member.session)
            if not member.connected and not member.bot and not member.replaced and member.sink is not None:
                member.sink.close()  # a takeover the failed command began: its driver goes
                member.sink = None
        self._timers.sync(self._deadlines())

    def after_recovery(self) -> None:
        """Called once the log is replayed at startup: nobody is connected any more."""
        for member in self.members.values():
            if (member.bot or member.replaced) and self.bot_factory is not None:
                member.sink = self.bot_factory(self, member)
                member.sink.send(self.snapshot(member))
            elif not member.bot and not member.replaced:
                self.submit(Command("disconnect", member.session, {"restart": True}))
        self._timers.sync(self._deadlines())

    def _timer_due(self, name: str, deadline: float) -> None:
        self.submit(Command("timer", None, {"name": name, "deadline": deadline}))

    def _deadlines(self) -> dict[str, float]:
        due: dict[str, float] = {f"grace:{mid}": t for mid, t in self.grace.items()}
        if self.countdown is not None:
            due["countdown"] = self.countdown[1]
        if self.turn is not None and self.turn[1] is not None:
            due["turn"] = self.turn[1]
        if self.idle is not None:
            due["idle"] = self.idle
        return due

    # --- outbound ------------------------------------------------------------------

    def send(self, member: Member, message: Message) -> None:
        if member.sink is not None and not self.replaying:
            self._out.append((member.sink, message))

    def broadcast(self, message: Message, exclude: Member | None = None) -> None:
        for member in self.members.values():
            if member is not exclude:
                self.send(member, message)

    def reply(self, message: Message) -> None:
        """The requester's reply (instead of ``ok``); delivered after every broadcast."""
        self._reply = message

    def broadcast_snapshots(self) -> None:
        for member in self.members.values():
            if member.sink is not None and not self.replaying:
                self.send(member, self.snapshot(member))

    # --- members -------------------------------------------------------------------

    def member_by_session(self, session: str | None) -> Member | None:
        for member in self.members.values():
            if member.session == session:
                return member
        return None

    def require_member(self, cmd: Command) -> Member:
        member = self.member_by_session(cmd.session)
        if member is None:
            raise CommandError("not_in_room", "you are not in this room")
        return member

    def require_host(self, cmd: Command) -> Member:
        member = self.require_member(cmd)
        if member.id != self.host:
            raise CommandError("not_host", "only the host may do that")
        return member

    def players(self) -> list[Member]:
        return sorted((m for m in self.members.values() if m.is_player), key=lambda m: m.seat or 0)

    def free_seat(self) -> int:
        taken = {m.seat for m in self.members.values() if m.is_player}
        return next(s for s in range(self.capacity + 1) if s not in taken)

    def add_member(self, session: str, name: str, role: str, bot: bool = False) -> Member:
        self.member_count += 1
        member = Member(f"m{self.member_count}", session, name, role=role, bot=bot)
        if role == "player":
            member.seat = self.free_seat()
        self.members[member.id] = member
        if self.host is None and not bot:
            self.host = member.id
        if not bot:
            self.hooks.membership(session, self)
        return member

    def remove_member(self, member: Member, reason: str, at: float) -> None:
        """Take a member out; mid-game a seated player's departure goes through the game's leave rule."""
        seat = self.game_seat(member)
        del self.members[member.id]
        self.grace.pop(member.id, None)
        if member.replaced:
            member.replaced = False
            if member.sink is not None and not self.replaying:
                member.sink.close()  # the bot that played the seat
            member.sink = None
        if not member.bot:
            self.hooks.membership(member.session, None)
        self.broadcast({"type": "member_left", "member": member.id, "reason": reason})
        if member.id == self.host:
            self.pass_host()
        if self.state == "playing" and seat is not None:
            self.seats[seat]["left"] = True
            self.game_events(self.engine.on_leave(self.game, seat), at, None)
        self.update_countdown(at)
        self.update_idle(at)

    def can_take_over(self, member: Member) -> bool:
        """Whether a bot takes ``member``'s seat now that its grace ran out (instead of the leave rule)."""
        seat = self.game_seat(member)
        return (
            self.bots_take_over
            and self.bot_factory is not None
            and self.state == "playing"
            and seat is not None
            and not self.seats[seat].get("left")
        )

    def take_over(self, member: Member, at: float) -> None:
        """A bot plays ``member``'s seat until they resume (``reconnect``) or the game ends."""
        member.replaced = True
        self.grace.pop(member.id, None)
        if self.bot_factory is not None and not self.replaying:
            member.sink = self.bot_factory(self, member)
            self.send(member, self.snapshot(member))
        self.broadcast({"type": "member_updated", "member": member.public(self.host)}, exclude=member)
        if member.id == self.host and any(m.connected and not m.bot for m in self.members.values()):
            self.pass_host()

    def hand_back(self, member: Member) -> None:
        """``member`` resumed: its bot stops (the caller attaches the member's own sink)."""
        member.replaced = False
        if member.sink is not None and not self.replaying:
            member.sink.close()
        member.sink = None

    def release_replaced(self, at: float) -> None:
        """The game is over: seats still played by a bot were given up when grace ran out."""
        for member in [m for m in self.members.values() if m.replaced]:
            self.remove_member(member, "timeout", at)

    def pass_host(self) -> None:
        """The host role goes to the longest-present connected human, players first."""
        humans = [m for m in self.members.values() if not m.bot]
        ranked = sorted(humans, key=lambda m: (not m.connected, not m.is_player))
        self.host = ranked[0].id if ranked else None
        self.broadcast({"type": "host_changed", "host": self.host})

    def game_seat(self, member: Member) -> int | None:
        """The engine seat this member plays in the current (or last) game, if any."""
        seat = member.seat
        if self.game is None or seat is None or not member.is_player or seat >= len(self.seats):
            return None
        return seat if self.seats[seat]["member"] == member.id else None

    def update_idle(self, at: float) -> None:
        if any(m.connected and not m.bot for m in self.members.values()):
            self.idle = None
        elif self.idle is None:
            self.idle = at + self.timings.empty_room

    # --- countdown and game ------------------------------------------------------------

    def update_countdown(self, at: float, joined: bool = False) -> None:
        """Start, restart or cancel the automatic start (ready-all, or quick play's join clock)."""
        if self.state not in ("waiting", "countdown"):
            return
        players = self.players()
        enough = len(players) >= self.engine.min_players
        if self.quick_play:
            kind, seconds = ("quick_play" if enough else None), self.timings.quick_play_countdown
        else:
            all_ready = enough and all(p.ready for p in players)
            kind, seconds, joined = ("ready" if all_ready else None), self.timings.ready_countdown, False
        if kind is None:
            if self.countdown is not None:
                self.countdown, self.state = None, "waiting"
                self.broadcast({"type": "countdown", "kind": None, "deadline": None, "remaining": None})
            return
        if self.countdown is None or joined:
            self.countdown, self.state = (kind, at + seconds), "countdown"
            self.broadcast(self.countdown_message())

    def countdown_message(self) -> Message:
        if self.countdown is None:
            return {"type": "countdown", "kind": None, "deadline": None, "remaining": None}
        kind, deadline = self.countdown
        return {"type": "countdown", "kind": kind, "deadline": deadline, "remaining": _remaining(deadline)}

    def start_game(self, cmd: Command) -> None:
        import random
        import secrets

        players = self.players()
        if len(players) < self.engine.min_players:
            raise CommandError(
                "not_enough_players", f"{self.game_name} needs {self.engine.min_players} players"
            )
        seed = cmd.payload.setdefault("seed", secrets.randbits(63))
        self.seats, self.seat_sessions = [], []
        for seat, member in enumerate(players):
            member.seat, member.ready = seat, False
            self.seats.append({"seat": seat, "member": member.id, "name": member.name})
            self.seat_sessions.append(member.session)
        self.game = self.engine.setup(self.rules, len(players), random.Random(seed))
        self.seed, self.started_at, self.seq = seed, cmd.at, 0
        self.games_played += 1
        self.game_log, self.outcome, self.countdown = [], None, None
        self.table_log.clear()
        self.table_log_count = 0
        self.state = "playing"
        self.turn = None
        self.set_turn(cmd.at, None)
        events = self.engine.start_events(self.game)
        self._broadcast_game("game_started", events)
        self.check_over(cmd.at)

    def game_events(self, events: list[Event], at: float, actor: int | None) -> None:
        """After the engine changed the game: tell everyone, move the clock, detect the end."""
        self.seq += 1
        self.set_turn(at, actor)
        self._broadcast_game("game", events)
        self.check_over(at)

    def describe(self, events: list[Event]) -> list[Message]:
        """The game-log entries for ``events`` (public, numbered), kept for snapshots; built while
        replaying too, so a room brought back after a restart still shows its history."""
        entries = []
        for event in events:
            entry = self.engine.describe(event)
            if entry is not None:
                entry["n"] = self.table_log_count
                self.table_log_count += 1
                self.table_log.append(entry)
                entries.append(entry)
        return entries

    def _broadcast_game(self, kind: str, events: list[Event]) -> None:
        entries = self.describe(events)
        if self.replaying:
            return
        engine, game = self.engine, self.game
        public = engine.public_view(game)
        public_json: bytes | None = None
        parts: dict[int | None, dict[str, Any]] = {}
        views: dict[tuple[int | None, bool], Any] = {}  # (seat, pre-encoded) → the view to send
        seen: dict[int | None, list[Message]] = {}  # seat → its events; one list for all who see the same
        shared: list[Message] | None = None
        private = {seat for e in events for seat in e.private}  # seats some event tells more
        turn = self.turn_info()
        for member in self.members.values():
            sink = member.sink
            if sink is None:
                continue
            seat = self.game_seat(member)
            encoded = getattr(sink, "json", False)
            view = views.get((seat, encoded))
            if view is None:
                part = parts.get(seat)
                if part is None:
                    part = parts[seat] = engine.seat_view(game, seat)
                if encoded:  # the shared part encoded once per action (rooms/wire.py)
                    if public_json is None:
                        public_json = json_bytes(public)
                    view = joined_object(public_json, json_bytes(part))
                else:
                    view = {**public, **part}
                views[seat, encoded] = view
            mine = seen.get(seat)
            if mine is None:
                if seat not in private:
                    if shared is None:
                        shared = [e.for_seat(None) for e in events]
                    mine = shared
                else:
                    mine = [e.for_seat(seat) for e in events]
                seen[seat] = mine
            message = {
                "type": kind,
                "seq": self.seq,
                "events": mine,
                "log": entries,
                "view": view,
                "turn": turn,
            }
            if kind == "game_started":
                message["seats"] = self.seats
            self.send(member, message)

    def set_turn(self, at: float, actor: int | None) -> None:
        """The clock restarts when the seat on it changes or that seat acted; others acting don't reset it."""
        to_act = self.engine.to_act(self.game) if self.state == "playing" else []
        if not to_act:
            self.turn = None
            return
        seat = to_act[0]
        if self.turn is not None and self.turn[0] == seat and actor != seat:
            return
        limit = getattr(self.rules, "turn_timer", 0) or 0
        self.turn = (seat, at + limit if limit else None)

    def grace_timer(self, member_id: str) -> Message | None:
        """How long a disconnected member keeps the seat: ``{"deadline", "remaining"}``."""
        deadline = self.grace.get(member_id)
        return None if deadline is None else {"deadline": deadline, "remaining": _remaining(deadline)}

    def turn_info(self) -> Message | None:
        if self.turn is None:
            return None
        seat, deadline = self.turn
        return {"seat": seat, "deadline": deadline, "remaining": _remaining(deadline)}

    def check_over(self, at: float) -> None:
        outcome = self.engine.outcome(self.game)
        if outcome is None or self.state != "playing":
            return
        self.outcome = outcome_json(outcome)
        self.end_game(at, self.outcome)
        scoreboard.record(self.scoreboard, self.game_name, self.seats, self.outcome)
        self.broadcast(
            {
                "type": "game_over",
                "outcome": self.outcome,
                "seats": self.seats,
                "scoreboard": scoreboard.as_list(self.scoreboard),
            }
        )
        self.release_replaced(at)

    def end_game(self, at: float, result: Message) -> None:
        """Leave ``playing`` and keep the game's record (saved with this command's log entry)."""
        self.state, self.turn = "finished", None
        players = [{**s, "session": sess} for s, sess in zip(self.seats, self.seat_sessions, strict=True)]
        self._record = GameRecord(
            self.code,
            self.games_played,
            self.game_name,
            self.settings_raw,
            self.seed,
            players,
            result,
            self.started_at,
            at,
            [],
        )

    def to_waiting(self) -> None:
        """Back to the waiting room (rematch, reset): seats renumbered, everyone unready."""
        self.state, self.countdown, self.turn = "waiting", None, None
        self.game, self.outcome, self.seats, self.seat_sessions = None, None, [], []
        for seat, member in enumerate(self.players()):
            member.seat, member.ready = seat, member.bot
        self._checkpoint_due = True

    def checkpoint(self) -> dict[str, Any]:
        """The whole room between games, as JSON: replaying it equals replaying the log before it."""
        return {
            "settings": self.settings_raw,
            "public": self.public,
            "bots_take_over": self.bots_take_over,
            "bot_catch_delay": self.bot_catch_delay,
            "password_hash": self.password_hash,
            "capacity": self.capacity,
            "members": [
                {
                    "id": m.id,
                    "session": m.session,
                    "name": m.name,
                    "role": m.role,
                    "seat": m.seat,
                    "ready": m.ready,
                    "connected": m.connected,
                    "bot": m.bot,
                    "bot_options": m.bot_options,
                    "replaced": m.replaced,
                }
                for m in self.members.values()
            ],
            "member_count": self.member_count,
            "host": self.host,
            "chat": list(self.chat),
            "banned": sorted(self.banned),
            "games_played": self.games_played,
            "scoreboard": self.scoreboard,
            "grace": self.grace,
            "idle": self.idle,
        }

    def restore(self, data: dict[str, Any]) -> None:
        """Load a ``checkpoint`` (replay only: the members' sinks are not part of it)."""
        for member in self.members.values():
            if not member.bot:
                self.hooks.membership(member.session, None)
        self._reset_state()
        self.settings_raw = dict(data["settings"])
        self.rules = self.engine.settings(self.settings_raw)
        self.public, self.password_hash, self.capacity = (
            data["public"],
            data["password_hash"],
            data["capacity"],
        )
        self.bots_take_over = data.get("bots_take_over", self.bots_take_over)
        self.bot_catch_delay = data.get("bot_catch_delay", self.bot_catch_delay)
        self.members = {m["id"]: Member(**m) for m in data["members"]}
        self.member_count, self.host = data["member_count"], data["host"]
        self.chat.extend(data["chat"])
        self.banned = set(data["banned"])
        self.games_played, self.grace, self.idle = data["games_played"], dict(data["grace"]), data["idle"]
        self.scoreboard = {mid: dict(line) for mid, line in data.get("scoreboard", {}).items()}
        for member in self.members.values():
            if not member.bot:
                self.hooks.membership(member.session, self)

    # --- views ---------------------------------------------------------------------

    def snapshot(self, member: Member) -> Message:
        """Everything ``member`` may know about the room right now."""
        seat = self.game_seat(member)
        table = None
        if self.game is not None:
            table = {
                "seq": self.seq,
                "seats": self.seats,
                "view": self.engine.view(self.game, seat),
                "turn": self.turn_info(),
                "log": list(self.table_log),
            }
        return {
            "type": "room",
            **self.meta(),
            "state": self.state,
            "host": self.host,
            "members": [m.public(self.host) for m in self.members.values()],
            "chat": list(self.chat),
            "you": {"member": member.id, "role": member.role, "seat": member.seat},
            "timers": {
                "countdown": None if self.countdown is None else self.countdown_message(),
                "turn": self.turn_info(),
                "grace": {mid: self.grace_timer(mid) for mid in self.grace},
            },
            "table": table,
            "outcome": self.outcome,
            "scoreboard": scoreboard.as_list(self.scoreboard),
        }

    def meta(self) -> Message:
        return {
            "code": self.code,
            "game": self.game_name,
            "settings": self.settings_raw,
            "public": self.public,
            "has_password": self.password_hash is not None,
            "capacity": self.capacity,
            "quick_play": self.quick_play,
            "bots_take_over": self.bots_take_over,
            "bot_catch_delay": self.bot_catch_delay,
        }

    def summary(self) -> Message:
        """The room as the lobby lists it."""
        return {
            "code": self.code,
            "game": self.game_name,
            "players": sum(1 for m in self.members.values() if m.is_player),
            "capacity": self.capacity,
            "state": self.state,
            "has_password": self.password_hash is not None,
            "quick_play": self.quick_play,
        }

    def close(self, reason: str) -> None:
        self.config["closed_reason"] = reason
        self.broadcast({"type": "room_closed", "reason": reason})
        for member in list(self.members.values()):
            if not member.bot:
                self.hooks.membership(member.session, None)
            if (member.bot or member.replaced) and member.sink is not None and not self.replaying:
                member.sink.close()
        self.state = "closed"
        self.countdown, self.turn, self.idle = None, None, None
        self.grace.clear()


def _remaining(deadline: float | None) -> float | None:
    return None if deadline is None else max(0.0, round(deadline - time.time(), 3))


def _send_error(cmd: Command, code: str, message: str) -> None:
    if cmd.sink is not None:
        error: Message = {"type": "error", "code": code, "message": message}
        if cmd.request_id is not None:
            error["id"] = cmd.request_id
        cmd.sink.send(error)
