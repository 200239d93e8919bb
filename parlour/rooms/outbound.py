"""Outbound messages and views: what each member is sent, collected during a command, delivered after it."""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from parlour.dumps import json_bytes
from parlour.games import Event
from parlour.rooms import messages, scoreboard
from parlour.rooms.encoding import GameFrames
from parlour.rooms.enums import PLAYER
from parlour.rooms.members import Member, Message
from parlour.rooms.state import HURRIED_TURN, TABLE_LOG_HISTORY, RoomState

LOG_LATER_MAX = 5 * TABLE_LOG_HISTORY
"""Actions whose log entries may wait to be written (``Outbound._describe_later``): bounds the events a
room keeps for a log nobody reads."""
_NO_LOG: tuple[()] = ()
"""The ``log`` of a game message to a sink that does not take it (``Sink.log``)."""


class Outbound(RoomState):
    """Sending, broadcasting, and the room as each member (and the lobby) sees it."""

    def send(self, member: Member, message: Message) -> None:
        sink = member.sink
        if sink is not None and not self.replaying:
            self._out.append((sink.send, message))

    def broadcast(self, message: Message, exclude: Member | None = None) -> None:
        for member in self.members.values():
            if member is not exclude:
                self.send(member, message)

    def reply(self, message: Message) -> None:
        """The requester's reply (instead of ``ok``); delivered after every broadcast."""
        self._reply = message

    def broadcast_snapshots(self, exclude: Member | None = None) -> None:
        for member in self.members.values():
            if member.sink is not None and member is not exclude and not self.replaying:
                self.send(member, self.snapshot(member))

    @property
    def table_log(self) -> deque[Message]:
        """The current game's log entries (its latest ``TABLE_LOG_HISTORY``), written up to now."""
        if self._log_later:
            self._write_log()
        return self._table_log

    @property
    def table_log_count(self) -> int:
        """How many entries the current game's log has had (the next entry's ``n``)."""
        if self._log_later:
            self._write_log()
        return self._table_log_count

    def describe(
        self,
        events: list[Event],
        public: list[Message],
        stand_in: int | None = None,
        seats: list[Message] | None = None,
    ) -> list[Message]:
        """The game-log entries for ``events`` (``messages.log_entries``; ``public``: each event's
        ``for_seat(None)``, so nothing hidden), kept for snapshots. ``seats``: the game's seats when
        the events happened (entries written later, ``_write_log``), else now, after the entries still
        to be written."""
        if seats is None:
            if self._log_later:
                self._write_log()
            seats = self.seats
        names = [seat["name"] for seat in seats]
        first = self._table_log_count
        entries = messages.log_entries(self.engine.describe_event, events, public, names, first, stand_in)
        self._table_log.extend(entries)
        self._table_log_count = first + len(entries)
        return entries

    def _describe_later(self, events: list[Event], public: list[Message], stand_in: int | None) -> None:
        """``describe`` once someone reads the log: no recipient of these events takes it (an adapter,
        a bot, nobody while replaying). The entries come out the same, in the same order."""
        later = self._log_later
        later.append((events, public, self.seats, stand_in))
        if len(later) >= LOG_LATER_MAX:
            self._write_log()

    def _write_log(self) -> None:
        later, self._log_later = self._log_later, []
        describe = self.describe
        for events, public, seats, stand_in in later:
            describe(events, public, stand_in, seats)

    def broadcast_game(self, kind: str, events: list[Event], stand_in: int | None = None) -> None:
        # The events as a spectator sees them: the log's entries carry them, and so does the message
        # of every recipient no event tells more (the same dicts; nothing downstream changes them).
        shared = [e.for_seat(None) for e in events]
        if self.replaying:
            self._describe_later(events, shared, stand_in)
            return
        engine, game, seq, out = self.engine, self.game, self.seq, self._out
        public: Message | None = None  # built for the first recipient that takes views now
        private: set[int] = set()  # seats some event tells more (most events tell nobody more)
        for event in events:
            if event.private:
                private.update(event.private)
        turn = self.turn_info()
        seats = self.seats if kind == "game_started" else None
        # The log's entries are written for the first recipient that takes them (``Sink.log``).
        entries: list[Message] | None = None
        # What JSON sinks get is encoded once per action, and once per seat (rooms/encoding.py). A seat's
        # view is encoded again even when unchanged: comparing it with the last one read memory that the
        # other rooms had pushed out of the caches, and cost more CPU than it saved (benchmarks.md).
        frames: GameFrames | None = None
        encoded: dict[int | None, tuple[bytes, bytes]] = {}  # seat → its encoded events and seat view
        whole: dict[int | None, bytes] = {}  # seat → its whole encoded message
        plain: dict[int | None, tuple[list[Message], Message | LazyView]] = {}  # seat → events, view
        brief: dict[int | None, tuple[list[Message], Message | LazyView]] = {}  # the same without ``legal``
        without_legal = getattr(engine, "seat_view_without_legal", None)
        table, taken = self.seats, len(self.seats)
        for member in self.members.values():
            sink = member.sink
            if sink is None or not getattr(sink, "games", True):
                continue
            # ``game_seat`` inlined (a call per member was a tenth of this loop): a game is running.
            seat = member.seat
            if seat is not None and (
                member.role != PLAYER or seat >= taken or table[seat]["member"] != member.id
            ):
                seat = None
            if not getattr(sink, "json", False):
                lean = without_legal is not None and getattr(sink, "legal", True) is False
                views = brief if lean else plain
                told_view = views.get(seat)
                if told_view is None:
                    mine = [e.for_seat(seat) for e in events] if seat in private else shared
                    seat_view = without_legal if lean and without_legal is not None else engine.seat_view
                    if getattr(sink, "views", True) is False:
                        view: Message | LazyView = LazyView(self, seat_view, seat)
                    else:
                        if public is None:
                            public = engine.public_view(game)
                        view = {**public, **seat_view(game, seat)}
                    told_view = views[seat] = (mine, view)
                if getattr(sink, "log", True):
                    if entries is None:
                        entries = self.describe(events, shared, stand_in)
                    log: list[Message] | tuple[()] = entries
                else:
                    log = _NO_LOG
                update = messages.game_update(kind, seq, told_view[0], log, told_view[1], turn, seats)
                out.append((sink.send, update))
                continue
            if frames is None:
                if entries is None:
                    entries = self.describe(events, shared, stand_in)
                if public is None:
                    public = engine.public_view(game)
                frames = GameFrames(kind, seq, public, shared, entries, turn, seats)
            parts = encoded.get(seat)
            if parts is None:
                told = json_bytes([e.for_seat(seat) for e in events]) if seat in private else frames.events
                parts = encoded[seat] = (told, json_bytes(engine.seat_view(game, seat)))
            send_json = getattr(sink, "send_json", None)
            if send_json is not None:
                data = whole.get(seat)
                if data is None:
                    data = whole[seat] = frames.frame(*parts)
                out.append((send_json, data))
            else:
                out.append((sink.send, frames.message(*parts)))
        if entries is None:
            self._describe_later(events, shared, stand_in)

    def countdown_message(self) -> Message:
        if self.countdown is None:
            return messages.countdown(None, None, None)
        kind, deadline = self.countdown
        return messages.countdown(kind, deadline, _remaining(deadline))

    def grace_timer(self, member_id: str) -> Message | None:
        """How long a disconnected member keeps the seat: ``{"deadline", "remaining"}``."""
        deadline = self.grace.get(member_id)
        return None if deadline is None else {"deadline": deadline, "remaining": _remaining(deadline)}

    def turn_info(self) -> Message | None:
        if self.turn is None:
            return None
        seat, deadline = self.turn
        if self.all_away:  # the clock waits for a player to come back: no time is running out
            return {"seat": seat, "deadline": None, "remaining": None, "away": True}
        info = {"seat": seat, "deadline": deadline, "remaining": _remaining(deadline)}
        if self.paused:  # the game rests (between UNO's rounds): the clock is not a move's
            info["pause"] = True
        elif deadline is not None and self.missed and self.hurried(seat):  # short: it ran out twice in a row
            info["hurried"] = HURRIED_TURN
        return info

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
            "recent_games": [
                {k: v for k, v in g.items() if k != "players"}
                for g in self.recent_games
                if "players" not in g or member.profile in g["players"]
            ],
        }

    def meta(self) -> Message:
        return {
            "code": self.code,
            "game": self.game_name,
            "settings": self.settings_raw,
            "public": self.public,
            "has_password": self.password_hash is not None,
            "spectators_need_password": self.spectators_need_password,
            "capacity": self.capacity,
            "quick_play": self.quick_play,
            "bots_take_over": self.bots_take_over,
            "bot_catch_delay": self.bot_catch_delay,
        }

    def summary(self) -> Message:
        """The room as the lobby lists it (built after every command: one pass over the members)."""
        humans = bots = 0
        for m in self.members.values():
            if m.role == PLAYER:
                if m.bot:
                    bots += 1
                else:
                    humans += 1
        return {
            "code": self.code,
            "game": self.game_name,
            "players": humans + bots,
            "humans": humans,
            "bots": bots,
            "host": self.members[self.host].name if self.host in self.members else None,
            "capacity": self.capacity,
            "state": self.state,
            "has_password": self.password_hash is not None,
            "quick_play": self.quick_play,
        }


class LazyView(Mapping[str, Any]):
    """A seat's game view built when first read: what a sink whose ``views`` attribute is false gets
    in its game messages (``Sink``). The ``/dots`` adapter reads a view only to answer a BOARD packet,
    so building one per move (the public view copies the whole board) was work nobody used.

    It never shows a change that is not committed yet. It is ``ready`` while the room's game is still
    the one it was made for, in the same state (the same ``seq``: every change to a game moves it on),
    which was committed before the view was delivered; and whenever the room is ``settled`` (no command
    between changing the room and its commit), when the game as it is then is all committed. Read when
    not ready (the game has moved on, its change not committed yet), it raises: a reader waits for
    ``when_ready``. Built once the game has moved on, it shows the room's game as it is then (after a
    failed commit, the game rebuilt from the log; with no game, nothing): a later committed state.
    """

    __slots__ = ("_built", "_game", "_room", "_seat", "_seat_view", "_seq")

    def __init__(
        self, room: RoomState, seat_view: Callable[[Any, int | None], Message], seat: int | None
    ) -> None:
        self._room = room
        self._game = room.game
        self._seq = room.seq
        self._seat_view = seat_view
        self._seat = seat
        self._built: Message | None = None

    @property
    def ready(self) -> bool:
        """Whether reading it now shows only committed changes."""
        if self._built is not None:
            return True
        room = self._room
        return (room.game is self._game and room.seq == self._seq) or room.settled

    def when_ready(self, call: Callable[[], None]) -> None:
        """Run ``call`` once the view is ready: now, or once the room has delivered (or undone) the
        command it is committing — the same or the next loop pass."""
        if self.ready:
            call()
        else:
            self._room.when_settled(call)

    def _view(self) -> Message:
        built = self._built
        if built is None:
            if not self.ready:
                raise RuntimeError("read a view whose game has a change not committed yet (see when_ready)")
            room = self._room
            game = room.game
            if game is None:
                built = {}
            else:
                built = {**room.engine.public_view(game), **self._seat_view(game, self._seat)}
            self._built = built
        return built

    def __getitem__(self, key: str) -> Any:
        return self._view()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._view())

    def __len__(self) -> int:
        return len(self._view())

    def __bool__(self) -> bool:
        return True  # telling a view is there must not build it


def _remaining(deadline: float | None) -> float | None:
    return None if deadline is None else max(0.0, round(deadline - time.time(), 3))
