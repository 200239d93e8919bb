"""Socket.IO protocol v2 packets (socket.io 2.x clients) over ``engineio_v3`` sessions.

Only the default namespace ``/`` exists, as on the v4 server: it is joined implicitly (``40`` is
sent on open, v2 clients do not ask), events are ``42["name", arg]``, an event with an ack id gets
an empty ack (``43<id>[]``), ``41`` disconnects. Each event goes to the same per-connection
adapter client (``sio_server.UnoSocketIO``) a v4 connection's events reach, so nothing about UNO
lives here. Binary events, other namespaces and undecodable packets are refused: a namespace
gets v2's ``4/nsp,"Invalid namespace"``, the rest closes the connection.

Every packet first passes the same gate as on v4 (``event_gate``): it pays the session's allowance
(a ``40`` too, so connecting the namespace again buys nothing; a sustained flood closes the
session), and an event a client may not send gets the adapter's ``error`` event. A session over
its address's connection limit is refused (``44``) and closed.
"""

from __future__ import annotations

import asyncio
import enum
import logging
from dataclasses import dataclass
from typing import Any, Protocol
from urllib.parse import parse_qs

import orjson
from starlette.types import Scope

from parlour.net.adapters.engineio_v3 import MESSAGE, Session
from parlour.net.adapters.event_gate import Allowance, Verdict, refusal
from parlour.net.adapters.plain_socket import Peer

log = logging.getLogger(__name__)

DEFAULT = "/"


class Kind(enum.IntEnum):
    CONNECT = 0
    DISCONNECT = 1
    EVENT = 2
    ACK = 3
    ERROR = 4
    BINARY_EVENT = 5
    BINARY_ACK = 6


class BadPacket(ValueError):
    """Not a Socket.IO v2 packet this server accepts."""


@dataclass(frozen=True, slots=True)
class Packet:
    kind: Kind
    namespace: str
    ack: int | None
    data: Any


def decode(text: str) -> Packet:
    """``<kind>[/nsp,][ack id][json]``; BadPacket for anything else."""
    if not text or text[0] not in "0123456":
        raise BadPacket("unknown packet type")
    kind, rest, namespace = Kind(int(text[0])), text[1:], DEFAULT
    if rest.startswith("/"):
        comma = rest.find(",")
        namespace, rest = (rest, "") if comma < 0 else (rest[:comma], rest[comma + 1 :])
    digits = len(rest) - len(rest.lstrip("0123456789"))
    if digits > 15:
        raise BadPacket("ack id too long")
    ack = int(rest[:digits]) if digits else None
    try:
        data = orjson.loads(rest[digits:]) if rest[digits:] else None
    except orjson.JSONDecodeError:
        raise BadPacket("not valid JSON") from None
    return Packet(kind, namespace, ack, data)


def encode(kind: Kind, data: Any = None, namespace: str = DEFAULT, ack: int | None = None) -> str:
    """One Socket.IO v2 packet as the Engine.IO message data."""
    text = str(int(kind))
    if namespace != DEFAULT:
        text += namespace + ","
    if ack is not None:
        text += str(ack)
    if data is not None:
        text += orjson.dumps(data, option=orjson.OPT_NON_STR_KEYS).decode()
    return text


class Events(Protocol):
    """The per-connection adapter behind a socket id (``sio_server.UnoSocketIO``)."""

    async def attach(self, sid: str, peer: Peer, scope: Scope, name: str | None, token: str | None) -> bool:
        """False when the connection may not be attached (its address holds too many)."""

    async def event(self, sid: str, event: str, data: Any) -> None: ...

    async def error(self, sid: str, message: str) -> None: ...

    async def detach(self, sid: str) -> None: ...


class SocketIOv2:
    """The Engine.IO v3 ``Handler`` that speaks Socket.IO v2 to the adapter's events."""

    def __init__(self, events: Events) -> None:
        self.events = events
        self.allowances: dict[str, Allowance] = {}
        """By session id, from ``opened`` to ``closed``."""
        self._tasks: set[asyncio.Task[None]] = set()

    async def opened(self, session: Session, scope: Scope) -> None:
        config = scope["app"].state.config
        self.allowances[session.sid] = Allowance(*config.rate_for("socketio"))
        query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
        name = (query.get("name") or [None])[0]
        token = (query.get("token") or [None])[0]
        await session.send(MESSAGE + encode(Kind.CONNECT))
        if not await self.events.attach(session.sid, self._peer(session), scope, name, token):
            await session.send(MESSAGE + encode(Kind.ERROR, "too many connections from your address"))
            await session.close()

    async def admit(self, session: Session) -> bool:
        allowance = self.allowances.get(session.sid)
        verdict = Verdict.CLOSE if allowance is None else allowance.take()
        if verdict is Verdict.CLOSE and self.allowances.pop(session.sid, None) is not None:
            log.warning("event=flood_closed path=/socket.io eio=3 sid=%s", session.sid)
            await self._disconnect(session)
        return verdict is Verdict.PASS

    async def message(self, session: Session, data: str) -> None:
        try:
            packet = decode(data)
        except BadPacket:
            await session.close()
            return
        if packet.namespace != DEFAULT:
            if packet.kind is Kind.CONNECT:
                await session.send(MESSAGE + encode(Kind.ERROR, "Invalid namespace", packet.namespace))
            return
        if packet.kind is Kind.CONNECT:
            await session.send(MESSAGE + encode(Kind.CONNECT))
        elif packet.kind is Kind.DISCONNECT:
            await session.close()
        elif packet.kind is Kind.EVENT:
            args = packet.data
            if not isinstance(args, list) or not args:
                await session.close()
                return
            why = refusal(args)
            if why is not None:
                await self.events.error(session.sid, why)
                return
            await self.events.event(session.sid, args[0], args[1] if len(args) > 1 else None)
            if packet.ack is not None:
                await session.send(MESSAGE + encode(Kind.ACK, [], ack=packet.ack))
        elif packet.kind is not Kind.ACK:  # an error packet or binary: not for this server
            await session.close()

    async def closed(self, session: Session) -> None:
        self.allowances.pop(session.sid, None)
        await self.events.detach(session.sid)

    def _peer(self, session: Session) -> Peer:
        def emit(event: str, data: Any) -> None:
            session.post(MESSAGE + encode(Kind.EVENT, [event] if data is None else [event, data]))

        def hangup() -> None:
            """Sent from inside the adapter's own handlers, so the close runs as its own task."""
            task = asyncio.create_task(self._disconnect(session))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

        return Peer(session.sid, emit, hangup)

    async def _disconnect(self, session: Session) -> None:
        await session.send(MESSAGE + encode(Kind.DISCONNECT))
        await session.close()
