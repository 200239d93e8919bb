"""Pre-encoded game messages for sinks that write JSON themselves.

A game message's view is the engine's ``public_view`` (the same for every recipient) plus its
``seat_view``; its events and log entries are the same for every recipient no event tells more.
For sinks that encode with orjson (``Sink.json``) the room encodes those shared parts once per
action. A sink that also takes whole encoded messages (``send_json``, a websocket) gets each
recipient's frame joined from them as bytes; any other JSON sink gets the message with the parts as
``orjson.Fragment``s.
"""

from __future__ import annotations

from typing import Any

from parlour.dumps import json_bytes


def joined_object(first: bytes, second: bytes) -> bytes:
    """The JSON object with the members of the encoded objects ``first`` and ``second`` (no key in both)."""
    if first == b"{}":
        return second
    if second == b"{}":
        return first
    return first[:-1] + b"," + second[1:]


class GameFrames:
    """One action's game message, encoded once in parts: ``head`` (type and seq) + events + ``middle``
    (the log) + view + ``tail`` (turn and, for ``game_started``, the seats), in ``game_update``'s
    key order."""

    __slots__ = ("events", "head", "log", "middle", "public", "tail")

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
        self.public = json_bytes(public)
        self.events = json_bytes(events)
        self.log = json_bytes(log)
        self.head = b'{"type":"' + kind.encode() + b'","seq":' + str(seq).encode() + b',"events":'
        self.middle = b',"log":' + self.log + b',"view":'
        tail = b',"turn":' + json_bytes(turn)
        if seats is not None:
            tail += b',"seats":' + json_bytes(seats)
        self.tail = tail + b"}"

    def view(self, part: Any) -> bytes:
        """A recipient's whole view: the shared public view joined with its ``seat_view``."""
        return joined_object(self.public, json_bytes(part))

    def frame(self, events: bytes, view: bytes) -> bytes:
        """A recipient's whole encoded message, from its encoded events and view."""
        return self.head + events + self.middle + view + self.tail
