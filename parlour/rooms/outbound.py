"""Outbound messages and views: what each member is sent, collected during a command, delivered after it."""

from __future__ import annotations

import time
from typing import Any

import orjson

from parlour.dumps import json_bytes
from parlour.games import Event
from parlour.rooms import messages, scoreboard
from parlour.rooms.encoding import joined_object
from parlour.rooms.enums import PLAYER
from parlour.rooms.members import Member, Message
from parlour.rooms.state import RoomState


class Outbound(RoomState):
    """Sending, broadcasting, and the room as each member (and the lobby) sees it."""

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

    def describe(self, events: list[Event], public: list[Message]) -> list[Message]:
        """The game-log entries for ``events``: each game's ``describe_event`` line for the event as a
        spectator sees it (``public``: each event's ``for_seat(None)``, so nothing hidden), numbered,
        with that public event for clients to draw from (a Cheat reveal's cards, a Dots line). Kept
        for snapshots, and built while replaying too, so a room brought back after a restart still
        shows its history."""
        names = [seat["name"] for seat in self.seats]
        entries = []
        describe_event = self.engine.describe_event
        for event, seen in zip(events, public, strict=True):
            text = describe_event(seen, names)
            if text is None:
                continue
            seat = seen.get("seat")
            entry = {
                "n": self.table_log_count,
                "kind": event.type,
                "seat": seat if isinstance(seat, int) else None,
                "text": text,
                "event": seen,
            }
            self.table_log_count += 1
            self.table_log.append(entry)
            entries.append(entry)
        return entries

    def broadcast_game(self, kind: str, events: list[Event]) -> None:
        # The events as a spectator sees them: the log's entries carry them, and so does the message
        # of every recipient no event tells more (the same dicts; nothing downstream changes them).
        shared = [e.for_seat(None) for e in events]
        entries = self.describe(events, shared)
        if self.replaying:
            return
        engine, game = self.engine, self.game
        public = engine.public_view(game)
        parts: dict[int | None, dict[str, Any]] = {}
        views: dict[tuple[int | None, bool], Any] = {}  # (seat, pre-encoded) → the view to send
        seen: dict[tuple[int | None, bool], Any] = {}  # (seat, pre-encoded) → its events
        private = {seat for e in events for seat in e.private}  # seats some event tells more
        # What every recipient of a JSON sink gets alike, encoded once per action (rooms/encoding.py).
        common: _Encoded | None = None
        turn = self.turn_info()
        seats = self.seats if kind == "game_started" else None
        for member in self.members.values():
            sink = member.sink
            if sink is None or not getattr(sink, "games", True):
                continue
            seat = self.game_seat(member)
            encoded = getattr(sink, "json", False)
            if encoded and common is None:
                common = _Encoded(public, shared, entries)
            key = (seat, encoded)
            view = views.get(key)
            if view is None:
                part = parts.get(seat)
                if part is None:
                    part = parts[seat] = engine.seat_view(game, seat)
                if common is not None and encoded:
                    view = joined_object(common.public, json_bytes(part))
                else:
                    view = {**public, **part}
                views[key] = view
            mine = seen.get(key)
            if mine is None:
                if seat in private:
                    mine = [e.for_seat(seat) for e in events]
                    if encoded:
                        mine = orjson.Fragment(json_bytes(mine))
                elif common is not None and encoded:
                    mine = common.events
                else:
                    mine = shared
                seen[key] = mine
            log = common.log if common is not None and encoded else entries
            self.send(member, messages.game_update(kind, self.seq, mine, log, view, turn, seats))

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
        return {"seat": seat, "deadline": deadline, "remaining": _remaining(deadline)}

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
            "recent_games": list(self.recent_games),
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


class _Encoded:
    """The parts of a game message that are the same for every JSON-sink recipient, encoded once."""

    __slots__ = ("events", "log", "public")

    def __init__(self, public: Message, events: list[Message], log: list[Message]) -> None:
        self.public = json_bytes(public)
        self.events = orjson.Fragment(json_bytes(events))
        self.log = orjson.Fragment(json_bytes(log))


def _remaining(deadline: float | None) -> float | None:
    return None if deadline is None else max(0.0, round(deadline - time.time(), 3))
