"""Pre-encoded game messages for sinks that write JSON themselves.

A game message's view is the engine's ``public_view`` (the same for every recipient) plus its
``seat_view``; its events and log entries are the same for every recipient no event tells more.
For sinks that encode with orjson (``Sink.json``) the room encodes those shared parts once per
action, and each recipient's message is ``game_update`` with those parts as ``orjson.Fragment``s: a
sink that takes whole encoded messages (``send_json``: a websocket, another node) gets it encoded
once more (orjson copies fragments as they are), any other JSON sink gets it as it is.
"""

from __future__ import annotations

from typing import Any

import orjson

from parlour.dumps import json_bytes
from parlour.rooms import messages
from parlour.rooms.members import Message


def joined_object(first: bytes, second: bytes) -> bytes:
    """The JSON object with the members of the encoded objects ``first`` and ``second`` (no key in both)."""
    if first == b"{}":
        return second
    if second == b"{}":
        return first
    return first[:-1] + b"," + second[1:]


class GameFrames:
    """One action's shared parts, each encoded once: the public view, the events and log entries as a
    spectator sees them, the turn and (for ``game_started``) the seats. A recipient's whole message is
    ``game_update`` around them, the parts embedded as they are."""

    __slots__ = ("events", "kind", "log", "public", "seats", "seq", "template", "turn")

    def __init__(
        self,
        kind: str,
        seq: int,
        public: Any,
        events: list[Any],
        log: list[Any],
        turn: Any,
        seats: list[Any] | None,
    ) -> None:
        self.kind, self.seq = kind, seq
        self.public = json_bytes(public)
        self.events = json_bytes(events)
        self.log = orjson.Fragment(json_bytes(log))
        self.turn = orjson.Fragment(json_bytes(turn))
        self.seats = None if seats is None else orjson.Fragment(json_bytes(seats))
        self.template: tuple[bytes, bytes, bytes] | None = None

    def view(self, part: Any) -> bytes:
        """A recipient's whole view: the shared public view joined with its ``seat_view``."""
        return joined_object(self.public, json_bytes(part))

    def message(self, events: bytes, view: bytes) -> Message:
        """A recipient's message, from its encoded events and view (for any JSON sink)."""
        fragment = orjson.Fragment
        return messages.game_update(
            self.kind, self.seq, fragment(events), self.log, fragment(view), self.turn, self.seats
        )

    def frame(self, events: bytes, view: bytes) -> bytes:
        """A recipient's whole encoded message, from its encoded events and view: the action's message
        encoded once with a marker byte for each (``_EVENTS``, ``_VIEW``), cut there, and the pieces
        joined around each recipient's parts, byte for byte what encoding its whole message gives."""
        template = self.template
        if template is None:
            whole = json_bytes(self.message(_EVENTS, _VIEW))
            head, _, rest = whole.partition(_EVENTS)
            middle, _, tail = rest.partition(_VIEW)
            template = self.template = (head, middle, tail)
        head, middle, tail = template
        return b"".join((head, events, middle, view, tail))


# Bytes orjson never writes (it escapes control characters in strings): the places of a message's
# events and view in ``GameFrames.frame``'s template.
_EVENTS = b"\x00"
_VIEW = b"\x01"
