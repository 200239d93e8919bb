"""Pre-encoded game messages for sinks that write JSON themselves.

A game message's view is the engine's ``public_view`` (the same for every recipient) plus its
``seat_view``; its events and log entries are the same for every recipient no event tells more.
For sinks that encode with orjson (``Sink.json``) the room encodes those shared parts once per
action and each seat's part once: a sink that takes whole encoded messages (``send_json``: a
websocket) gets its message as one join of those bytes into ``game_update``'s encoding (``frame``),
any other JSON sink (another node) gets ``game_update`` with the parts as ``orjson.Fragment``s.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any, cast

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
        self.log = json_bytes(log)
        self.turn = json_bytes(turn)
        self.seats = None if seats is None else json_bytes(seats)
        self.template: tuple[bytes, bytes, bytes | None, bytes] | None = None

    def view(self, part: bytes) -> bytes:
        """A recipient's whole view: the shared public view joined with its encoded ``seat_view``."""
        return joined_object(self.public, part)

    def message(self, events: bytes, part: bytes) -> Message:
        """A recipient's message, from its encoded events and ``seat_view`` (for any JSON sink)."""
        fragment = orjson.Fragment
        seats = None if self.seats is None else fragment(self.seats)
        view = fragment(self.view(part))
        return messages.game_update(
            self.kind, self.seq, fragment(events), fragment(self.log), view, fragment(self.turn), seats
        )

    def frame(self, events: bytes, part: bytes) -> bytes:
        """A recipient's whole encoded message, from its encoded events and ``seat_view``: byte for byte
        what encoding its whole ``message`` gives. The action's pieces around the events and the view
        are joined once (``_skeleton``); each recipient's frame is one more join."""
        template = self.template
        if template is None:
            cut = _skeleton(self.kind, self.seats is not None)
            head = b"".join((cut[0], str(self.seq).encode(), cut[1]))
            middle = b"".join((cut[2], self.log, cut[3]))
            # Up to the view's members, then the public view without its closing brace, ready for a
            # seat's members (None when the public view is empty).
            public = self.public
            opened = None if public == b"{}" else b"".join((middle, public[:-1], b","))
            if self.seats is None:
                tail = b"".join((cut[4], self.turn, cut[5]))
            else:
                tail = b"".join((cut[4], self.turn, cut[5], self.seats, cut[6]))
            template = self.template = (head, middle, opened, tail)
        head, middle, opened, tail = template
        if opened is None or part == b"{}":
            return b"".join((head, events, middle, self.view(part), tail))
        return b"".join((head, events, opened, part[1:], tail))


# Bytes orjson never writes (it escapes control characters in strings), standing for a game message's
# parts in ``_skeleton``, in the order ``game_update`` writes them.
_PARTS = (b"\x00", b"\x01", b"\x02", b"\x03", b"\x04", b"\x05")  # seq, events, log, view, turn, seats
_MARK = re.compile(rb"([\x00-\x05])")


@cache
def _skeleton(kind: str, seats: bool) -> tuple[bytes, ...]:
    """``game_update``'s encoding for ``kind`` cut at its parts: the bytes before the seq, between the
    seq and the events, the events and the log, the log and the view, the view and the turn, and after
    the turn (then the seats, and after them)."""
    seq, events, log, view, turn, seat_list = (orjson.Fragment(mark) for mark in _PARTS)
    whole = json_bytes(
        messages.game_update(kind, cast("int", seq), events, log, view, turn, seat_list if seats else None)
    )
    pieces = _MARK.split(whole)
    marks = tuple(pieces[1::2])
    if marks != _PARTS[: 6 if seats else 5]:  # pragma: no cover - game_update's order is this module's
        raise RuntimeError(f"game_update writes its parts in an unexpected order: {marks!r}")
    return tuple(pieces[0::2])
