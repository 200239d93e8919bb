"""One python-socketio server (path ``/socket.io/``, namespace ``/``) for both UNO event sets.

A connection starts as a design-document client (it gets ``rooms-list`` at once); its first
``requestRoom`` turns it into a socket-uno tutorial client instead. Each connection's events are
handled one at a time, in order, like a native websocket's frames. The Engine.IO handshake sets
the browser cookie (``browser_cookie``) that a tutorial client's seat is reclaimed by.

Every event passes one gate before anything else runs (``_GatedServer``): a rate limit per
Engine.IO connection (a flooder loses the whole connection, not just the namespace, so sending
``40`` again does not buy a fresh allowance), and a refusal of events a client may not send
(the reserved ``connect``/``disconnect``, non-string names, more than one argument).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any
from urllib.parse import parse_qs

import socketio

from parlour.net.adapters.browser_cookie import BrowserCookie, browser_of
from parlour.net.adapters.link import Connector
from parlour.net.adapters.native_link import connector
from parlour.net.adapters.plain_socket import Peer
from parlour.net.adapters.uno_document import EVENTS, DocClient
from parlour.net.adapters.uno_tutorial import Directory, TutorialClient
from parlour.net.connection import TokenBucket
from parlour.net.limits import client_key

log = logging.getLogger(__name__)

_TUTORIAL_EVENTS = ("playCard", "drawCard")


class Connection:
    """The adapter client behind one socket id, and the lock that keeps its events in order."""

    def __init__(
        self,
        client: DocClient | TutorialClient,
        connect: Connector,
        browser: str | None,
        address: str,
        eio_sid: str,
    ) -> None:
        self.client = client
        self.connect = connect
        self.browser = browser
        """The connection's browser cookie (None without one): a tutorial seat is reclaimed by it."""
        self.address = address
        self.eio_sid = eio_sid
        self.lock = asyncio.Lock()


class _Allowance:
    """One Engine.IO connection's event rate: ``patience`` runs out for a sustained flood."""

    __slots__ = ("bucket", "patience")

    def __init__(self, rate: float, burst: int) -> None:
        self.bucket = TokenBucket(rate, burst)
        self.patience = TokenBucket(5.0, 50)


class _GatedServer(socketio.AsyncServer):  # type: ignore[misc]
    """``AsyncServer`` whose every client event first passes ``gate`` (see the module doc)."""

    gate: Callable[[str, str, Any], Any]

    async def _handle_event(self, eio_sid: str, namespace: str, id: Any, data: Any) -> None:
        if await self.gate(eio_sid, namespace, data):
            await super()._handle_event(eio_sid, namespace, id, data)


class UnoSocketIO:
    """Builds the AsyncServer and routes every event to the connection's adapter client."""

    def __init__(self) -> None:
        self.sio = _GatedServer(async_mode="asgi", cors_allowed_origins="*")
        self.sio.gate = self._gate
        self.allowances: dict[str, _Allowance] = {}  # by Engine.IO sid
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

    async def _gate(self, eio_sid: str, namespace: str, data: Any) -> bool:
        """True if the event may be handled; a flooder's Engine.IO connection is closed."""
        state = self._state
        allowance = self.allowances.get(eio_sid)
        if allowance is None or state is None:
            return False
        if not allowance.bucket.take():
            if not allowance.patience.take():
                log.warning("event=flood_closed path=/socket.io sid=%s", eio_sid)
                self.allowances.pop(eio_sid, None)
                await self.sio.eio.disconnect(eio_sid)
            return False
        sid = self.sio.manager.sid_from_eio_sid(eio_sid, namespace or "/")
        event = data[0] if isinstance(data, list) and data else None
        if not isinstance(event, str) or event in self.sio.reserved_events:
            if sid is not None:
                await self._error(sid, "that is not an event a client may send")
            return False
        if len(data) > 2:
            if sid is not None:
                await self._error(sid, f"{event} takes one argument")
            return False
        return True

    _state: Any = None

    async def _connect(self, sid: str, environ: dict[str, Any], auth: Any = None) -> bool:
        scope = environ["asgi.scope"]
        state = self._state = scope["app"].state
        address = client_key(scope)
        if not state.limits.connect(address):
            return False  # the namespace connection is refused (connect_error)
        eio_sid = self.sio.manager.eio_sid_from_sid(sid, "/")
        self.allowances[eio_sid] = _Allowance(state.config.rate_per_second, state.config.rate_burst)
        state.metrics.connected(1)
        query = parse_qs(environ.get("QUERY_STRING", ""))
        name = auth.get("name") if isinstance(auth, dict) else None
        if not isinstance(name, str):
            name = (query.get("name") or ["Guest"])[0]
        token = auth.get("token") if isinstance(auth, dict) else None
        if not isinstance(token, str):
            token = (query.get("token") or [None])[0]
        connect = connector(state, scope)
        client = DocClient(connect, self._peer(sid), name, self.room_names, token)
        conn = self.connections[sid] = Connection(client, connect, browser_of(environ), address, eio_sid)
        async with conn.lock:
            await client.start()
        return True

    async def _disconnect(self, sid: str, reason: Any = None) -> None:
        conn = self.connections.pop(sid, None)
        if conn is not None:
            self._state.limits.disconnect(conn.address)
            self._state.metrics.connected(-1)
            self.allowances.pop(conn.eio_sid, None)
            async with conn.lock:
                await conn.client.close()

    def _handler(self, event: str) -> Callable[..., Any]:
        async def handle(sid: str, data: Any = None) -> None:
            conn = self.connections.get(sid)
            if conn is None:
                return
            async with conn.lock:
                try:
                    await self._dispatch(conn, sid, event, data)
                except Exception:
                    log.exception("socket.io event %s failed", event)
                    await self._error(sid, "internal error")

        return handle

    async def _dispatch(self, conn: Connection, sid: str, event: str, data: Any) -> None:
        """Route one event to the connection's client; ``requestRoom`` makes it a tutorial client."""
        client = conn.client
        if event == "requestRoom" and isinstance(client, DocClient):
            if client.in_room:
                await self._error(sid, "leave your room before requestRoom")
                return
            await client.close()
            client = conn.client = TutorialClient(conn.connect, self._peer(sid), self.directory, conn.browser)
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
        await self.sio.emit("error", {"message": message}, to=sid)

    def asgi(self) -> BrowserCookie:
        """The ASGI app serving ``/socket.io/`` (mounted there; it sees the full path), behind the
        middleware that gives each browser its cookie on the Engine.IO handshake."""
        return BrowserCookie(socketio.ASGIApp(self.sio))
