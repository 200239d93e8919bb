"""Who is in a room, and how messages reach them.

Every recipient (a native websocket, a protocol adapter, a bot) is a ``Sink``: the room calls
``send`` with native protocol messages (plain dicts) from its own task, so ``send`` must never
block. Adapters translate those messages to their wire format inside their sink; bots react to
them by submitting commands like any client. No rules live outside the room and the engines.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from parlour.rooms.enums import PLAYER, Role

Message = dict[str, Any]


class Sink(Protocol):
    """Where a member's messages go. ``send`` must not block and must not raise.

    A sink with a true ``json`` attribute encodes messages with orjson, so they may hold
    ``orjson.Fragment`` values (pre-encoded JSON, see ``rooms/encoding.py``); every other sink gets
    plain data. A sink with a false ``games`` attribute is sent no game frames (``game_started``,
    ``game``): a member that only follows who is in the room (the ``/dots`` adapter's admin session).
    A plain sink with a false ``legal`` attribute may get game views without ``legal``, when the engine
    can build them for less (``seat_view_without_legal``): for one that never reads it (``/ws`` Cheat).
    A plain sink with a false ``log`` attribute gets game messages with an empty ``log``: the adapters
    and bots, which never read it; while no recipient takes an action's entries, the room writes them
    only once its log is read (``Outbound.table_log``: a snapshot). A plain sink with a false ``views``
    attribute gets each game view as a ``rooms.outbound.LazyView``, built when first read but never
    showing a change that is not committed yet: for one that reads few views (``/dots``, for BOARD).
    """

    def send(self, message: Message) -> None:
        """Queue one native protocol message for delivery."""

    def close(self, code: int = 1000, reason: str = "") -> None:
        """End the underlying connection (no-op for sinks without one)."""


@dataclass(slots=True)
class CallbackSink:
    """A sink that hands each message to a function: the hook for bots and in-process tests."""

    callback: Callable[[Message], None]
    closed: bool = False

    def send(self, message: Message) -> None:
        if not self.closed:
            self.callback(message)

    def close(self, code: int = 1000, reason: str = "") -> None:
        self.closed = True


@dataclass(slots=True)
class Member:
    """A player or spectator. ``sink`` is None while the member is disconnected."""

    id: str
    session: str
    name: str
    role: Role = PLAYER
    seat: int | None = None
    ready: bool = False
    connected: bool = True
    bot: bool = False
    bot_options: dict[str, Any] = field(default_factory=dict)
    replaced: bool = False  # a disconnected human whose seat a bot plays until they resume
    origin: str | None = None  # a hash of the client's address, so a kick holds against a new identity
    profile: str | None = None  # the guest profile id a human joined with (kept in game records)
    sink: Sink | None = None

    @property
    def is_player(self) -> bool:
        return self.role == PLAYER

    def public(self, host: str | None) -> Message:
        """The member as every other member sees it; a bot with its level (the room said only "bot")."""
        out: Message = {
            "id": self.id,
            "name": self.name,
            "role": self.role,
            "seat": self.seat,
            "ready": self.ready,
            "host": self.id == host,
            "connected": self.connected,
            "bot": self.bot,
            "replaced": self.replaced,
        }
        if self.bot:
            out["level"] = self.bot_options.get("level")
        return out


BotFactory = Callable[[Any, Member], Sink]
"""``factory(room, member) -> sink``: called when a bot member is added (or recovered).

The bot receives its seat's messages through the returned sink (``send`` runs inside the room's
task: schedule work, never block) and acts by submitting
``Command("action", member.session, {"engine_action": a})`` with ``a`` one of
``room.engine.legal_actions(room.game, seat)`` (or its wire form,
``{"action": room.engine.format_action(a)}``). The server installs ``parlour.rooms.bot_seats.bot_factory``.
"""
