"""One python-socketio server (path ``/socket.io/``, namespace ``/``) for both UNO event sets.

A connection starts as a design-document client (it gets ``rooms-list`` at once); its first
``requestRoom`` turns it into a socket-uno tutorial client instead. Each connection's events are
handled one at a time, in order, like a native websocket's frames. The Engine.IO handshake sets
the browser cookie (``browser_cookie``) that a tutorial client's seat is reclaimed by.

The same ``/socket.io/`` also serves socket.io 2.x clients (the tutorial's original page):
requests with ``EIO=3`` go to ``engineio_v3`` + ``socketio_v2``, whose connections reach the
very same ``attach``/``event``/``detach`` as python-socketio's, behind the same cookie middleware.

Every Socket.IO packet passes one gate before anything else runs, on both versions (``event_gate``;
here ``_GatedServer``): a rate limit per Engine.IO connection that every packet pays, a namespace
connect too (a flooder loses the whole connection, and sending ``40`` again buys no fresh
allowance), and a refusal of events a client may not send (the reserved ``connect``/``disconnect``,
non-string names, more than one argument). ``attach`` counts the connection against its address
(``PARLOUR_CONNECTIONS_PER_IP``) on both versions.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import parse_qs

import orjson
import socketio
from engineio import packet as eio_packet
from starlette.types import Receive, Scope, Send

from parlour.net.adapters import engineio_v4
from parlour.net.adapters.browser_cookie import BrowserCookie, from_header
from parlour.net.adapters.eio_forward import Forwarding
from parlour.net.adapters.engineio_v3 import EngineIOv3, Timing, engine_version
from parlour.net.adapters.event_gate import Allowance, Verdict, refusal
from parlour.net.adapters.link import Connector
from parlour.net.adapters.native_link import connector
from parlour.net.adapters.plain_socket import Peer
from parlour.net.adapters.socketio_v2 import SocketIOv2
from parlour.net.adapters.uno_document import EVENTS, DocClient, LobbyFeed
from parlour.net.adapters.uno_tutorial import Directory, TutorialClient
from parlour.net.limits import client_key

log = logging.getLogger(__name__)

_TUTORIAL_EVENTS = ("playCard", "drawCard")
_LONG_NUMBER = re.compile(r"\d{19}")


def _event_packet(event: str, data: Any) -> Any:
    """A Socket.IO v4 event on namespace ``/`` as the Engine.IO message python-engineio writes.

    Exactly what ``AsyncServer.emit`` would queue (``4`` + ``2["event",data]``), encoded once with
    orjson; the packet caches its own encoding, so one packet can go to many sockets."""
    args = [event] if data is None else [event, data]
    text = orjson.dumps(args, option=orjson.OPT_NON_STR_KEYS).decode()
    return eio_packet.Packet(eio_packet.MESSAGE, "2" + text)


class Connection:
    """The adapter client behind one socket id, and the lock that keeps its events in order."""

    def __init__(
        self,
        client: DocClient | TutorialClient,
        connect: Connector,
        peer: Peer,
        browser: str | None,
        address: str,
    ) -> None:
        self.client = client
        self.connect = connect
        self.peer = peer
        self.browser = browser
        """The connection's browser cookie (None without one): a tutorial seat is reclaimed by it."""
        self.address = address
        self.lock = asyncio.Lock()


class _GatedServer(socketio.AsyncServer):  # type: ignore[misc]
    """``AsyncServer`` whose every packet first pays the Engine.IO connection's allowance, and whose
    every event passes ``event_gate.refusal`` (see the module doc)."""

    refuse: Callable[[str, str, str], Awaitable[None]]
    """Tell a namespace's socket (eio sid, namespace, message) why its event was refused."""
    allowances: dict[str, Allowance]
    """By Engine.IO sid, from its connect to its disconnect (namespace connects do not touch it)."""

    async def _handle_eio_connect(self, eio_sid: str, environ: dict[str, Any]) -> None:
        config = environ["asgi.scope"]["app"].state.config
        self.allowances[eio_sid] = Allowance(*config.rate_for("socketio"))
        await super()._handle_eio_connect(eio_sid, environ)

    async def _handle_eio_message(self, eio_sid: str, data: Any) -> None:
        allowance = self.allowances.get(eio_sid)
        verdict = Verdict.CLOSE if allowance is None else allowance.take()
        if verdict is Verdict.PASS:
            if (
                isinstance(data, str)
                and data.startswith("2[")
                and eio_sid not in self._binary_packet
                and _LONG_NUMBER.search(data) is None
            ):
                # An event on ``/`` without an ack id, the packet a game sends most: decoded with
                # orjson. What orjson reads otherwise (19+ digits: it makes integers past 64 bits
                # floats) or refuses (NaN, lone surrogates) takes python-socketio's decoder below.
                try:
                    args = orjson.loads(data[1:])
                except orjson.JSONDecodeError:
                    pass
                else:
                    await self._handle_event(eio_sid, "/", None, args)
                    return
            await super()._handle_eio_message(eio_sid, data)
        elif verdict is Verdict.CLOSE and self.allowances.pop(eio_sid, None) is not None:
            log.warning("event=flood_closed path=/socket.io sid=%s", eio_sid)
            await self.eio.disconnect(eio_sid)

    async def _handle_eio_disconnect(self, eio_sid: str, reason: Any) -> None:
        self.allowances.pop(eio_sid, None)
        await super()._handle_eio_disconnect(eio_sid, reason)

    async def _handle_event(self, eio_sid: str, namespace: str, id: Any, data: Any) -> None:
        why = refusal(data)
        if why is None:
            await super()._handle_event(eio_sid, namespace, id, data)
        else:
            await self.refuse(eio_sid, namespace or "/", why)


class UnoSocketIO:
    """Builds the AsyncServer and routes every event to the connection's adapter client."""

    def __init__(self) -> None:
        # Events run in the connection's own reader, in order (no task per event; each connection already
        # handles one event at a time).
        self.sio = _GatedServer(async_mode="asgi", cors_allowed_origins="*", async_handlers=False)
        engineio_v4.install(self.sio.eio, self._take_now)  # its websocket transport, with a fast lane
        self.sio.refuse = self._refuse
        self.sio.allowances = {}
        self.state: Any = None  # the app's state, from the first connection
        self.connections: dict[str, Connection] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        self.directory = Directory()
        self.room_names: dict[str, str] = {}
        self.feed = LobbyFeed(self.room_names, self._lobby_broadcast)
        self.lobby_sio: dict[str, str] = {}
        """Design-document connections of python-socketio: socket id → Engine.IO sid."""
        self.lobby_peers: dict[str, Peer] = {}
        """Design-document connections of the other stack (``EIO=3``), sent the list one by one."""
        self.sio.on("connect", self._connect)
        self.sio.on("disconnect", self._disconnect)
        for event in ("requestRoom", *_TUTORIAL_EVENTS, *EVENTS):
            self.sio.on(event, self._handler(event))

    def _peer(self, sid: str) -> Peer:
        eio_sid = self.sio.manager.eio_sid_from_sid(sid, "/")

        def emit(event: str, data: Any) -> None:
            self._queue(eio_sid, _event_packet(event, data))

        def hangup() -> None:
            task = asyncio.get_running_loop().create_task(self.sio.disconnect(sid))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

        return Peer(sid, emit, hangup)

    def _queue(self, eio_sid: str, packet: Any) -> None:
        """Put one packet in the Engine.IO socket's outbound queue (its writer sends it), at once.

        ``AsyncServer.emit`` does the same through a task per recipient and an ``asyncio.wait``, and
        re-encodes the event per call: this is the same queue, the same order, without either."""
        socket = self.sio.eio.sockets.get(eio_sid)
        if socket is not None and not socket.closing and not socket.closed:
            socket.queue.put_nowait(packet)

    async def _refuse(self, eio_sid: str, namespace: str, message: str) -> None:
        sid = self.sio.manager.sid_from_eio_sid(eio_sid, namespace)
        if sid is not None:
            await self.error(sid, message)

    async def _connect(self, sid: str, environ: dict[str, Any], auth: Any = None) -> bool:
        query = parse_qs(environ.get("QUERY_STRING", ""))
        name = auth.get("name") if isinstance(auth, dict) else None
        if not isinstance(name, str):
            name = (query.get("name") or ["Guest"])[0]
        token = auth.get("token") if isinstance(auth, dict) else None
        if not isinstance(token, str):
            token = (query.get("token") or [None])[0]
        return await self.attach(sid, self._peer(sid), environ["asgi.scope"], name, token, sio_room=True)

    async def _disconnect(self, sid: str, reason: Any = None) -> None:
        await self.detach(sid)

    def _take_now(self, eio_sid: str, data: str) -> bool:
        """The fast lane for a game action event (``data`` = ``2[...]``) from an idle connection:
        the same gate (allowance, ``event_gate.refusal``) and the same action as ``event`` would
        take, queued for the room at once; False, having done nothing (a paid allowance is given
        back), when it must take the ordinary path (any other event, a refusal, a session busy with
        a request), which pays for the packet itself."""
        sio = self.sio
        if _LONG_NUMBER.search(data) is not None or eio_sid in sio._binary_packet:
            return False
        sid = sio.manager.sid_from_eio_sid(eio_sid, "/")
        conn = self.connections.get(sid) if sid is not None else None
        if conn is None or conn.lock.locked() or not sio.manager.is_connected(sid, "/"):
            return False
        try:
            args = orjson.loads(data[1:])
        except orjson.JSONDecodeError:
            return False
        if refusal(args) is not None:
            return False
        action = conn.client.action_now(args[0], args[1] if len(args) > 1 else None)
        if action is None:
            return False
        allowance = sio.allowances.get(eio_sid)
        verdict = Verdict.CLOSE if allowance is None else allowance.take()
        if verdict is Verdict.PASS and allowance is not None:
            client = conn.client
            if client.bridge.act_now(action):
                return True
            allowance.refund()
            return False
        if verdict is Verdict.CLOSE and sio.allowances.pop(eio_sid, None) is not None:
            log.warning("event=flood_closed path=/socket.io sid=%s", eio_sid)
            task = asyncio.get_running_loop().create_task(sio.eio.disconnect(eio_sid))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
        return True

    def _handler(self, event: str) -> Callable[..., Any]:
        async def handle(sid: str, data: Any = None) -> None:
            await self.event(sid, event, data)

        return handle

    async def attach(
        self,
        sid: str,
        peer: Peer,
        scope: Scope,
        name: str | None,
        token: str | None,
        *,
        sio_room: bool = False,
    ) -> bool:
        """A new connection on either protocol version: a design-document client to start with.

        ``sio_room``: a python-socketio connection, whose lobby ``rooms-list`` is encoded once for
        all such connections; other connections get it through their peer.
        False (nothing attached) when its address already holds as many connections as it may."""
        state = self.state = scope["app"].state
        self.directory.names = state.names  # shared by every node in a cluster (store/names.py)
        address = client_key(scope)
        if not state.limits.connect(address):
            return False
        state.metrics.connected(1)
        connect = connector(state, "socketio", scope)
        client = DocClient(connect, peer, name or "Guest", self.room_names, token, self.feed)
        conn = self.connections[sid] = Connection(client, connect, peer, _browser(scope), address)
        async with conn.lock:
            await client.start()
            await self.feed.start(connect)
            if sio_room:
                self.lobby_sio[sid] = self.sio.manager.eio_sid_from_sid(sid, "/")
            else:
                self.lobby_peers[sid] = peer
            client.rooms_list()
        return True

    def _lobby_broadcast(self, payload: dict[str, Any]) -> None:
        """One ``rooms-list`` to every design-document client: encoded once for all of python-socketio's."""
        if self.lobby_sio:
            packet = _event_packet("rooms-list", payload)
            for eio_sid in self.lobby_sio.values():
                self._queue(eio_sid, packet)
        for peer in list(self.lobby_peers.values()):
            peer.emit("rooms-list", payload)

    def _leave_lobby(self, sid: str) -> None:
        """The connection no longer gets the lobby (it left, or became a tutorial client)."""
        self.lobby_peers.pop(sid, None)
        self.lobby_sio.pop(sid, None)

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
                await self.error(sid, "internal error")

    async def detach(self, sid: str) -> None:
        """The connection is gone (either version)."""
        self._leave_lobby(sid)
        conn = self.connections.pop(sid, None)
        if conn is not None:
            self.state.limits.disconnect(conn.address)
            self.state.metrics.connected(-1)
            async with conn.lock:
                await conn.client.close()

    async def _dispatch(self, conn: Connection, sid: str, event: str, data: Any) -> None:
        """Route one event to the connection's client; ``requestRoom`` makes it a tutorial client."""
        client = conn.client
        if event == "requestRoom" and isinstance(client, DocClient):
            if client.in_room:
                await self.error(sid, "leave your room before requestRoom")
                return
            await client.close()
            self._leave_lobby(sid)
            client = conn.client = TutorialClient(conn.connect, conn.peer, self.directory, conn.browser)
        if isinstance(client, TutorialClient):
            if event == "requestRoom":
                await client.request_room(data)
            elif event == "playCard":
                await client.play_card(data)
            elif event == "drawCard":
                await client.draw_card(data)
            else:
                await self.error(sid, f"{event} is not a socket-uno event")
        elif event in _TUTORIAL_EVENTS:
            await self.error(sid, "send requestRoom first: you are in no room")
        else:
            await client.on_event(event, data)

    async def error(self, sid: str, message: str) -> None:
        """Tell the connection ``sid`` why something it sent was refused (an ``error`` event)."""
        conn = self.connections.get(sid)
        if conn is not None:
            conn.peer.emit("error", {"message": message})

    def tag_sids(self, prefix: str) -> None:
        """Cluster mode: every Engine.IO sid handed out here starts with ``prefix`` (``eio_forward``)."""
        generate = self.sio.eio.generate_id
        self.sio.eio.generate_id = lambda: prefix + generate()
        self.v3.sid_prefix = prefix

    def long_poll(self, scope: Scope) -> float:
        """The longest a poll may wait for packets on either version, plus a margin."""
        v3, v4 = _timing(scope), self.sio.eio
        return max(v3.interval + v3.timeout, v4.ping_interval + v4.ping_timeout) + 5.0

    def asgi(self) -> Forwarding:
        """The ASGI app serving ``/socket.io/``: ``EIO=3`` to the v3 layer, the rest to python-socketio,
        both behind the middleware that gives each browser its cookie on the Engine.IO handshake, and
        that behind the one that sends a request to the cluster node holding its sid (``eio_forward``)."""
        v4 = socketio.ASGIApp(self.sio)
        v3 = self.v3 = EngineIOv3(SocketIOv2(self), _timing, _max_body)

        timed = False

        async def app(scope: Scope, receive: Receive, send: Send) -> None:
            nonlocal timed
            if not timed and scope["type"] in ("http", "websocket"):
                # python-engineio reads its timing at each handshake; the config arrives with the app.
                config = scope["app"].state.config
                self.sio.eio.ping_interval = config.eio4_ping_interval
                self.sio.eio.ping_timeout = config.eio4_ping_timeout
                timed = True
            if scope["type"] in ("http", "websocket") and engine_version(scope) == "3":
                await v3(scope, receive, send)
            else:
                inbound = engineio_v4.Cuttable(receive)
                try:
                    await v4(scope, inbound, send)
                finally:
                    inbound.cut()  # the request is over: python-engineio's cycle lets go of it

        return Forwarding(BrowserCookie(app), self.tag_sids, self.long_poll)


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
