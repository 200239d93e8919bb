"""One python-socketio server (path ``/socket.io/``, namespace ``/``) for both UNO event sets.

A connection starts as a design-document client (it gets ``rooms-list`` at once); its first
``requestRoom`` turns it into a socket-uno tutorial client instead. Each connection's events are
handled one at a time, in order, like a native websocket's frames. The Engine.IO handshake sets
the browser cookie (``browser_cookie``) that a tutorial client's seat is reclaimed by.

The same ``/socket.io/`` also serves socket.io 2.x clients (the tutorial's original page):
requests with ``EIO=3`` go to ``engineio_v3`` + ``socketio_v2``, whose connections reach the
very same ``attach``/``event``/``detach`` as python-socketio's, behind the same cookie middleware.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any
from urllib.parse import parse_qs

import socketio
from starlette.types import Receive, Scope, Send

from parlour.net.adapters.browser_cookie import BrowserCookie, from_header
from parlour.net.adapters.engineio_v3 import EngineIOv3, Timing, engine_version
from parlour.net.adapters.link import Connector
from parlour.net.adapters.native_link import connector
from parlour.net.adapters.plain_socket import Peer
from parlour.net.adapters.socketio_v2 import SocketIOv2
from parlour.net.adapters.uno_document import EVENTS, DocClient
from parlour.net.adapters.uno_tutorial import Directory, TutorialClient

log = logging.getLogger(__name__)

_TUTORIAL_EVENTS = ("playCard", "drawCard")


class Connection:
    """The adapter client behind one socket id, and the lock that keeps its events in order."""

    def __init__(
        self, client: DocClient | TutorialClient, connect: Connector, peer: Peer, browser: str | None
    ) -> None:
        self.client = client
        self.connect = connect
        self.peer = peer
        self.browser = browser
        """The connection's browser cookie (None without one): a tutorial seat is reclaimed by it."""
        self.lock = asyncio.Lock()


class UnoSocketIO:
    """Builds the AsyncServer and routes every event to the connection's adapter client."""

    def __init__(self) -> None:
        self.sio = socketio.AsyncServer(async_mode="asgi", cors_allowed_origins="*")
        self.connections: dict[str, Connection] = {}
        self.directory = Directory()
        self.room_names: dict[str, str] = {}
        self.sio.on("connect", self._connect)
        self.sio.on("disconnect", self._disconnect)
        for event in ("requestRoom", *_TUTORIAL_EVENTS, *EVENTS):
            self.sio.on(event, self._handler(event))

    def _peer(self, sid: str) -> Peer:
        async def emit(event: str, data: Any) -> None:
            await self.sio.emit(event, data, to=sid)

        async def hangup() -> None:
            await self.sio.disconnect(sid)

        return Peer(sid, emit, hangup)

    async def _connect(self, sid: str, environ: dict[str, Any], auth: Any = None) -> None:
        query = parse_qs(environ.get("QUERY_STRING", ""))
        name = auth.get("name") if isinstance(auth, dict) else None
        if not isinstance(name, str):
            name = (query.get("name") or ["Guest"])[0]
        token = auth.get("token") if isinstance(auth, dict) else None
        if not isinstance(token, str):
            token = (query.get("token") or [None])[0]
        await self.attach(sid, self._peer(sid), environ["asgi.scope"], name, token)

    async def _disconnect(self, sid: str, reason: Any = None) -> None:
        await self.detach(sid)

    def _handler(self, event: str) -> Callable[..., Any]:
        async def handle(sid: str, data: Any = None) -> None:
            await self.event(sid, event, data)

        return handle

    async def attach(self, sid: str, peer: Peer, scope: Scope, name: str | None, token: str | None) -> None:
        """A new connection on either protocol version: a design-document client to start with."""
        connect = connector(scope["app"].state)
        client = DocClient(connect, peer, name or "Guest", self.room_names, token)
        conn = self.connections[sid] = Connection(client, connect, peer, _browser(scope))
        async with conn.lock:
            await client.start()

    async def event(self, sid: str, event: str, data: Any) -> None:
        """One event from a connection, after the ones before it."""
        conn = self.connections.get(sid)
        if conn is None:
            return
        if event != "requestRoom" and event not in _TUTORIAL_EVENTS and event not in EVENTS:
            return  # as python-socketio does with an event that has no handler
        async with conn.lock:
            try:
                await self._dispatch(conn, sid, event, data)
            except Exception:
                log.exception("socket.io event %s failed", event)
                await self._error(sid, "internal error")

    async def detach(self, sid: str) -> None:
        """The connection is gone (either version)."""
        conn = self.connections.pop(sid, None)
        if conn is not None:
            async with conn.lock:
                await conn.client.close()

    async def _dispatch(self, conn: Connection, sid: str, event: str, data: Any) -> None:
        """Route one event to the connection's client; ``requestRoom`` makes it a tutorial client."""
        client = conn.client
        if event == "requestRoom" and isinstance(client, DocClient):
            if client.in_room:
                await self._error(sid, "leave your room before requestRoom")
                return
            await client.close()
            client = conn.client = TutorialClient(conn.connect, conn.peer, self.directory, conn.browser)
        if isinstance(client, TutorialClient):
            if event == "requestRoom":
                await client.request_room(data)
            elif event == "playCard":
                await client.play_card(data)
            elif event == "drawCard":
                await client.draw_card(data)
            else:
                await self._error(sid, f"{event} is not a socket-uno event")
        elif event in _TUTORIAL_EVENTS:
            await self._error(sid, "send requestRoom first: you are in no room")
        else:
            await client.on_event(event, data)

    async def _error(self, sid: str, message: str) -> None:
        conn = self.connections.get(sid)
        if conn is not None:
            await conn.peer.emit("error", {"message": message})

    def asgi(self) -> BrowserCookie:
        """The ASGI app serving ``/socket.io/``: ``EIO=3`` to the v3 layer, the rest to python-socketio,
        both behind the middleware that gives each browser its cookie on the Engine.IO handshake."""
        v4 = socketio.ASGIApp(self.sio)
        v3 = EngineIOv3(SocketIOv2(self), _timing, _max_body)

        async def app(scope: Scope, receive: Receive, send: Send) -> None:
            if scope["type"] in ("http", "websocket") and engine_version(scope) == "3":
                await v3(scope, receive, send)
            else:
                await v4(scope, receive, send)

        return BrowserCookie(app)


def _browser(scope: Scope) -> str | None:
    """The browser cookie a connection's handshake came with (or was just given)."""
    for name, value in scope.get("headers", []):
        if name.lower() == b"cookie" and (found := from_header(value.decode("latin-1"))) is not None:
            return found
    return None


def _timing(scope: Scope) -> Timing:
    config = scope["app"].state.config
    return Timing(config.eio3_ping_interval, config.eio3_ping_timeout)


def _max_body(scope: Scope) -> int:
    return int(scope["app"].state.config.max_frame)
