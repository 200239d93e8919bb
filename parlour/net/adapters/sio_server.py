"""One python-socketio server (path ``/socket.io/``, namespace ``/``) for both UNO event sets.

A connection starts as a design-document client (it gets ``rooms-list`` at once); its first
``requestRoom`` turns it into a socket-uno tutorial client instead. Each connection's events are
handled one at a time, in order, like a native websocket's frames.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any
from urllib.parse import parse_qs

import socketio

from parlour.net.adapters.link import Connector
from parlour.net.adapters.native_link import connector
from parlour.net.adapters.plain_socket import Peer
from parlour.net.adapters.uno_document import EVENTS, DocClient, LobbyFeed
from parlour.net.adapters.uno_tutorial import Directory, TutorialClient

log = logging.getLogger(__name__)

_TUTORIAL_EVENTS = ("playCard", "drawCard")
LOBBY = "uno-lobby"
"""The Socket.IO room of the design-document clients: each ``rooms-list`` is encoded once for all."""


class Connection:
    """The adapter client behind one socket id, and the lock that keeps its events in order."""

    def __init__(self, client: DocClient | TutorialClient, connect: Connector) -> None:
        self.client = client
        self.connect = connect
        self.lock = asyncio.Lock()


class UnoSocketIO:
    """Builds the AsyncServer and routes every event to the connection's adapter client."""

    def __init__(self) -> None:
        # Events run in the connection's own reader, in order (no task per event; each connection already
        # handles one event at a time).
        self.sio = socketio.AsyncServer(async_mode="asgi", cors_allowed_origins="*", async_handlers=False)
        self.connections: dict[str, Connection] = {}
        self.directory = Directory()
        self.room_names: dict[str, str] = {}
        self.feed = LobbyFeed(self.room_names, self._lobby_broadcast)
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
        connect = connector(environ["asgi.scope"]["app"].state, "socketio")
        client = DocClient(connect, self._peer(sid), name, self.room_names, token, self.feed)
        conn = self.connections[sid] = Connection(client, connect)
        async with conn.lock:
            await client.start()
            await self.feed.start(connect)
            await self.sio.enter_room(sid, LOBBY)
            await client.rooms_list()

    async def _lobby_broadcast(self, payload: dict[str, Any]) -> None:
        await self.sio.emit("rooms-list", payload, room=LOBBY)

    async def _disconnect(self, sid: str, reason: Any = None) -> None:
        conn = self.connections.pop(sid, None)
        if conn is not None:
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
            await self.sio.leave_room(sid, LOBBY)
            client = conn.client = TutorialClient(conn.connect, self._peer(sid), self.directory)
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

    def asgi(self) -> socketio.ASGIApp:
        """The ASGI app serving ``/socket.io/`` (mounted there; it sees the full path)."""
        return socketio.ASGIApp(self.sio)
