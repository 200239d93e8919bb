"""Engine.IO protocol v3 (the socket.io 2.x clients' transport) as a small ASGI app.

python-socketio 5 speaks only Engine.IO v4 and answers ``EIO=3`` with HTTP 400, so the socket-uno
tutorial's page (socket.io 2.x) could not connect. This module is the v3 transport only: the
handshake, HTTP long-polling with v3 payload framing (``<length>:<packet>``, the length in
UTF-16 code units as JavaScript counts them), the websocket upgrade (``2probe``/``3probe``, a
``6`` noop to release the pending poll, then ``5``), client pings answered with pongs, the idle
timeout, and CORS with credentials for a page served from another origin. What the packets
mean (Socket.IO v2) is the ``Handler``'s business (``socketio_v2``), and so is whether to handle
a packet at all (``admit``: every packet, pings included, pays the session's rate allowance).

Supported: text packets over XHR polling and websocket. Not supported (HTTP 400 or a close):
binary payloads and frames, JSONP polling (``j=``), other transports.
"""

from __future__ import annotations

import asyncio
import contextlib
import enum
import logging
import secrets
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Protocol
from urllib.parse import parse_qs

import orjson
from starlette.requests import ClientDisconnect, Request
from starlette.responses import PlainTextResponse, Response
from starlette.types import Receive, Scope, Send
from starlette.websockets import WebSocket, WebSocketDisconnect

from parlour.net.websocket_protocol import ABORT

log = logging.getLogger(__name__)

OPEN, CLOSE, PING, PONG, MESSAGE, UPGRADE, NOOP = "0123456"
OUTBOX_LIMIT = 1024
"""Packets queued for a client that stopped polling (or reading its websocket); past this the
session is dropped."""
CLOSE_WAIT = 5.0
"""Seconds a websocket the server closed is read on for the peer's close reply before it is dropped."""


class BadPayload(ValueError):
    """A polling body that is not a sequence of ``<length>:<packet>``."""


class Transport(enum.Enum):
    POLLING = "polling"
    WEBSOCKET = "websocket"


class State(enum.Enum):
    OPEN = "open"
    UPGRADING = "upgrading"
    """A websocket answered the probe; polls get a noop until its ``5`` arrives."""
    CLOSED = "closed"


class Code(enum.IntEnum):
    """The v3 server's error codes, sent as ``{"code", "message"}`` with HTTP 400."""

    UNKNOWN_TRANSPORT = 0
    UNKNOWN_SID = 1
    BAD_HANDSHAKE_METHOD = 2
    BAD_REQUEST = 3


@dataclass(frozen=True, slots=True)
class Timing:
    """Sent in the open packet: the client pings every ``interval``; silence past both closes."""

    interval: float = 25.0
    timeout: float = 20.0


def utf16_length(text: str) -> int:
    """The length JavaScript gives ``text`` (astral characters count twice)."""
    return len(text) + sum(1 for ch in text if ord(ch) > 0xFFFF)


def encode_payload(packets: list[str]) -> str:
    """Packets as one polling body: ``<length>:<packet>`` each."""
    return "".join(f"{utf16_length(p)}:{p}" for p in packets)


def decode_payload(body: str) -> list[str]:
    """A polling body's packets; BadPayload when the framing or a length is wrong."""
    packets: list[str] = []
    i = 0
    while i < len(body):
        colon = body.find(":", i, i + 12)
        digits = body[i:colon]
        if colon < 0 or not digits or not digits.isascii() or not digits.isdigit():
            raise BadPayload("expected <length>:<packet>")
        want, units, j = int(digits), 0, colon + 1
        while units < want and j < len(body):
            units += 2 if ord(body[j]) > 0xFFFF else 1
            j += 1
        if units != want or want == 0:
            raise BadPayload("a packet length does not match")
        packets.append(body[colon + 1 : j])
        i = j
    if not packets:
        raise BadPayload("empty payload")
    return packets


class Handler(Protocol):
    """What the packets mean: the layer above (Socket.IO v2)."""

    async def opened(self, session: Session, scope: Scope) -> None:
        """A new session; may already ``send``."""

    async def admit(self, session: Session) -> bool:
        """Whether to handle the next packet from the client, whatever its kind (a rate limit: the
        handler closes a flooder's session itself)."""

    async def message(self, session: Session, data: str) -> None:
        """One ``4`` packet's data, in order."""

    async def closed(self, session: Session) -> None:
        """The session ended (client close, timeout, transport error); called once."""


class Session:
    """One Engine.IO v3 connection, whichever transport it is on."""

    def __init__(self, sid: str, timing: Timing, on_close: Callable[[Session], Awaitable[None]]) -> None:
        self.sid = sid
        self.timing = timing
        self.transport = Transport.POLLING
        self.state = State.OPEN
        self.outbox: list[str] = []
        self.wake = asyncio.Event()
        self.polling = False
        self.websocket: WebSocket | None = None
        self.ws_lock = asyncio.Lock()
        self._unsent: list[str] = []
        """Packets posted for the websocket, written in order by ``_writer``."""
        self._writer: asyncio.Task[None] | None = None
        self._closer: asyncio.Task[None] | None = None
        self.lock = asyncio.Lock()
        """Packets from the client are handled one at a time, in order."""
        self._on_close = on_close
        self._deadline = 0.0
        self._watchdog: asyncio.Task[None] | None = None

    def open_packet(self, upgrades: list[str]) -> str:
        info = {
            "sid": self.sid,
            "upgrades": upgrades,
            "pingInterval": int(self.timing.interval * 1000),
            "pingTimeout": int(self.timing.timeout * 1000),
        }
        return OPEN + orjson.dumps(info).decode()

    def heard(self) -> None:
        """Any packet from the client keeps the session alive for one more ping period."""
        loop = asyncio.get_running_loop()
        self._deadline = loop.time() + self.timing.interval + self.timing.timeout
        if self._watchdog is None:
            self._watchdog = asyncio.create_task(self._watch())

    async def _watch(self) -> None:
        loop = asyncio.get_running_loop()
        while self.state is not State.CLOSED:
            left = self._deadline - loop.time()
            if left <= 0:
                await self.close()
                return
            await asyncio.sleep(left)

    async def send(self, packet: str) -> None:
        """Queue one packet (``4`` + data for a message) and, on a websocket, wait until it is
        written; never raises once the client is gone."""
        self.post(packet)
        await self._written()

    def post(self, packet: str) -> None:
        """Queue one packet without waiting, after every packet queued before it: for the next poll,
        or for the websocket's writer task. Too many unsent packets close the session."""
        if self.state is State.CLOSED:
            return
        if self.transport is Transport.WEBSOCKET and self.websocket is not None:
            queue = self._unsent
            queue.append(packet)
            if self._writer is None:
                self._writer = asyncio.get_running_loop().create_task(self._write())
        else:
            queue = self.outbox
            queue.append(packet)
            self.wake.set()
        if len(queue) > OUTBOX_LIMIT and self._closer is None:
            self._closer = asyncio.get_running_loop().create_task(self.close())

    async def _write(self) -> None:
        try:
            while self._unsent:
                packets, self._unsent = self._unsent, []
                for packet in packets:
                    await self._ws_send(packet)
        finally:
            self._writer = None

    async def _written(self) -> None:
        """Wait until the websocket's writer has written what was posted (not from the writer)."""
        writer = self._writer
        if writer is not None and writer is not asyncio.current_task():
            await asyncio.shield(writer)

    async def switch_to(self, websocket: WebSocket, first: list[str]) -> None:
        """Move to the websocket: ``first``, then everything queued, in order, then direct sends."""
        self.websocket = websocket
        self.outbox[:0] = first
        while self.outbox:
            queued, self.outbox = self.outbox, []
            for packet in queued:
                await self._ws_send(packet)
        self.transport = Transport.WEBSOCKET
        self.wake.set()

    async def _ws_send(self, packet: str) -> None:
        assert self.websocket is not None
        async with self.ws_lock:
            with contextlib.suppress(Exception):
                await self.websocket.send_text(packet)

    @property
    def pollable(self) -> bool:
        """Whether a poll should wait for packets (open, on polling, not upgrading)."""
        return self.state is State.OPEN and self.transport is Transport.POLLING

    def take(self) -> list[str]:
        """What the next poll carries: the queue, else a noop (upgrading), or the close packet."""
        packets, self.outbox = self.outbox, []
        self.wake.clear()
        if self.state is State.CLOSED:
            return [*packets, CLOSE]
        return packets or [NOOP]

    async def close(self) -> None:
        """End the session: release a pending poll with the close packet, drop the websocket."""
        if self.state is State.CLOSED:
            return
        self.state = State.CLOSED
        self.wake.set()
        watchdog, self._watchdog = self._watchdog, None
        if watchdog is not None and watchdog is not asyncio.current_task():
            watchdog.cancel()
        if self.websocket is not None:
            with contextlib.suppress(Exception):
                async with asyncio.timeout(CLOSE_WAIT):  # what was posted before goes out first
                    await self._written()
            with contextlib.suppress(Exception):
                await self.websocket.close()
        await self._on_close(self)


class EngineIOv3:
    """The ASGI app for ``/socket.io/?EIO=3``: sessions by sid, each handed to ``handler``."""

    def __init__(self, handler: Handler, timing: Callable[[Scope], Timing], max_body: Callable[[Scope], int]):
        self.handler = handler
        self.timing = timing
        self.max_body = max_body
        self.sessions: dict[str, Session] = {}
        self.sid_prefix = ""
        """Starts every sid (a cluster node's tag: ``eio_forward``)."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        query = {k: v[0] for k, v in parse_qs(scope.get("query_string", b"").decode("latin-1")).items()}
        if scope["type"] == "websocket":
            await self._websocket(WebSocket(scope, receive, send), query)
            return
        request = Request(scope, receive)
        try:
            response = await self._http(request, query)
        except ClientDisconnect:
            return
        origin = request.headers.get("origin")
        if origin:
            response.headers["Access-Control-Allow-Origin"] = origin
            response.headers["Access-Control-Allow-Credentials"] = "true"
            response.headers["Vary"] = "Origin"
        await response(scope, receive, send)

    # --- HTTP long-polling -------------------------------------------------------

    async def _http(self, request: Request, query: dict[str, str]) -> Response:
        if request.method == "OPTIONS":
            return self._preflight(request)
        if query.get("transport") != Transport.POLLING.value or "j" in query:
            return _error(Code.UNKNOWN_TRANSPORT, "Transport unknown")
        sid = query.get("sid")
        if sid is None:
            if request.method != "GET":
                return _error(Code.BAD_HANDSHAKE_METHOD, "Bad handshake method")
            return await self._handshake(request.scope)
        session = self.sessions.get(sid)
        if session is None or session.state is State.CLOSED:
            return _error(Code.UNKNOWN_SID, "Session ID unknown")
        if session.transport is not Transport.POLLING:
            return _error(Code.BAD_REQUEST, "Bad request")
        if request.method == "GET":
            return await self._poll(session)
        if request.method == "POST":
            return await self._post(session, request)
        return _error(Code.BAD_REQUEST, "Bad request")

    def _preflight(self, request: Request) -> Response:
        headers = {
            "Access-Control-Allow-Methods": "GET, POST, OPTIONS",
            "Access-Control-Allow-Headers": request.headers.get(
                "access-control-request-headers", "content-type"
            ),
            "Access-Control-Max-Age": "86400",
        }
        return Response(status_code=204, headers=headers)

    async def _handshake(self, scope: Scope) -> Response:
        session = await self._open(scope)
        packets = [session.open_packet([Transport.WEBSOCKET.value]), *session.outbox]
        session.outbox.clear()
        return _payload(packets)

    async def _open(self, scope: Scope) -> Session:
        session = Session(self.sid_prefix + secrets.token_urlsafe(15), self.timing(scope), self._closed)
        self.sessions[session.sid] = session
        session.heard()
        async with session.lock:
            await self.handler.opened(session, scope)
        return session

    async def _closed(self, session: Session) -> None:
        self.sessions.pop(session.sid, None)
        try:
            await self.handler.closed(session)
        except Exception:
            log.exception("engine.io v3 close handler failed")

    async def _poll(self, session: Session) -> Response:
        if session.polling:  # two polls at once: the client is confused; drop it as v3 servers do
            await session.close()
            return _error(Code.BAD_REQUEST, "Overlapping polls")
        session.polling = True
        try:
            while not session.outbox and session.pollable:
                await session.wake.wait()
                session.wake.clear()
            return _payload(session.take())
        finally:
            session.polling = False

    async def _post(self, session: Session, request: Request) -> Response:
        if "octet-stream" in request.headers.get("content-type", ""):
            return await self._refuse(session, "binary payloads are not supported")
        limit, body = self.max_body(request.scope), bytearray()
        async for chunk in request.stream():
            body += chunk
            if len(body) > limit:
                return await self._refuse(session, "payload too large")
        try:
            packets = decode_payload(body.decode("utf-8"))
        except (UnicodeDecodeError, BadPayload) as exc:
            return await self._refuse(session, str(exc))
        for packet in packets:
            await self._packet(session, packet)
        return Response("ok", media_type="text/html")

    async def _refuse(self, session: Session, reason: str) -> Response:
        await session.close()
        return _error(Code.BAD_REQUEST, reason)

    # --- websocket -------------------------------------------------------------

    async def _websocket(self, websocket: WebSocket, query: dict[str, str]) -> None:
        if query.get("transport") != Transport.WEBSOCKET.value:
            await websocket.close(1008)
            return
        sid = query.get("sid")
        if sid is None:
            await websocket.accept()
            fresh = await self._open(websocket.scope)
            await fresh.switch_to(websocket, [fresh.open_packet([])])
            await self._ws_loop(fresh, websocket)
            return
        polled = self.sessions.get(sid)
        if polled is None or polled.transport is not Transport.POLLING or polled.state is not State.OPEN:
            await websocket.close(1008)
            return
        await websocket.accept()
        if await self._upgrade(polled, websocket):
            await self._ws_loop(polled, websocket)

    async def _upgrade(self, session: Session, websocket: WebSocket) -> bool:
        """Probe, noop the pending poll, then switch on ``5``; False leaves the session on polling."""
        try:
            while session.state is not State.CLOSED:
                packet = await websocket.receive_text()
                if packet == PING + "probe" and session.state is State.OPEN:
                    await websocket.send_text(PONG + "probe")
                    session.state = State.UPGRADING
                    session.wake.set()
                elif packet == UPGRADE and session.state is State.UPGRADING:
                    session.heard()
                    await session.switch_to(websocket, [])
                    session.state = State.OPEN
                    return True
                else:
                    break
        except (WebSocketDisconnect, RuntimeError, KeyError):
            pass
        if session.state is State.UPGRADING:
            session.state = State.OPEN
            session.wake.set()
        with contextlib.suppress(Exception):
            await websocket.close(1008)
        return False

    async def _ws_loop(self, session: Session, websocket: WebSocket) -> None:
        try:
            while session.state is not State.CLOSED:
                message = await websocket.receive()
                if message["type"] == "websocket.disconnect":
                    return
                text = message.get("text")
                if text is None or len(text) > self.max_body(websocket.scope):
                    break  # binary frames and oversized packets end the session
                await self._packet(session, text)
        except (WebSocketDisconnect, RuntimeError):
            return
        finally:
            await session.close()
        with contextlib.suppress(Exception):
            # A session refused while it opened closed before it had this socket: close it here.
            await websocket.close()
        await _drain(websocket)

    # --- packets ---------------------------------------------------------------

    async def _packet(self, session: Session, packet: str) -> None:
        """One client packet: ping, message, close; anything else ends the session."""
        if session.state is State.CLOSED or not await self.handler.admit(session):
            return
        session.heard()
        kind, data = packet[:1], packet[1:]
        if kind == PING:
            await session.send(PONG + data)
        elif kind == MESSAGE:
            async with session.lock:
                try:
                    await self.handler.message(session, data)
                except Exception:
                    log.exception("engine.io v3 message handler failed")
                    await session.close()
        elif kind == NOOP:
            pass
        else:  # close, or a packet a client may not send
            await session.close()


async def _drain(websocket: WebSocket) -> None:
    """Read on after the server's close until the peer's close reply: a reader paused behind a
    flooder's backlog would never see it, and the peer would wait for the TCP close. A peer that
    does not answer within ``CLOSE_WAIT`` seconds is dropped."""
    try:
        async with asyncio.timeout(CLOSE_WAIT):
            while (await websocket.receive())["type"] != "websocket.disconnect":
                pass
        return
    except TimeoutError:
        pass
    except (WebSocketDisconnect, RuntimeError):
        return
    abort = websocket.scope.get("extensions", {}).get(ABORT)
    if abort is not None:
        abort()


def _payload(packets: list[str]) -> Response:
    return PlainTextResponse(encode_payload(packets), media_type="text/plain; charset=UTF-8")


def _error(code: Code, message: str) -> Response:
    body = orjson.dumps({"code": int(code), "message": message})
    return Response(body, status_code=400, media_type="application/json")


def engine_version(scope: Scope) -> str | None:
    """The ``EIO`` query parameter of a request, for routing v3 beside v4."""
    values = parse_qs(scope.get("query_string", b"").decode("latin-1")).get("EIO")
    return values[0] if values else None
