"""Websockets of Engine.IO sessions held by another cluster node: frames relayed both ways over the bus.

A client upgrading its polling session (same sid) to a websocket may reach any node. The node it
reached (the *client side*) tells the holder to open the websocket there, in-process, against its
own ``/socket.io/`` app; then each frame the client sends is posted to the holder's channel, and
each frame the app sends comes back on the client side's channel, in order (one publisher, one
subscriber per direction). The Engine.IO upgrade itself (probe, ``5``) runs on the holder as it
would for a local websocket, so the client cannot tell.

If the holder dies, the relayed websocket is closed as soon as the heartbeat finds it gone (the
session died with the holder; the client reconnects). If the relaying node dies, the holder's
Engine.IO ping timeout ends the session, as a lost network would. Only what Engine.IO reads crosses
Redis (see ``eio_forward``), plus the frames themselves.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

log = logging.getLogger(__name__)

OPEN, TO_HOLDER, TO_CLIENT = "eio-ws", "eio-wi", "eio-wo"
"""Bus ops: open a websocket on the holder; a client's frame (or its going); an app's frame (or close)."""
ACCEPT_SECONDS = 10.0
"""How long the client side waits for the holder to accept (or refuse) the websocket."""


def holder_scope(
    starlette: Any,
    path: str,
    root_path: str,
    query: str,
    headers: list[list[str]],
    more: list[tuple[bytes, bytes]],
) -> Scope:
    """The ASGI scope of a request another node forwarded, as this node's own app is run with it:
    only what crossed Redis (path, Engine.IO's query keys, the kept headers) and ``more`` headers."""
    return {
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "path": path,
        "raw_path": path.encode(),
        "root_path": root_path,
        "query_string": query.encode("latin-1"),
        "headers": [*((k.encode("latin-1"), v.encode("latin-1")) for k, v in headers), *more],
        "client": None,
        "server": None,
        "app": starlette,
        "state": {},
    }


class Tunnels:
    """Both ends of every relayed websocket on this node."""

    def __init__(self, app: ASGIApp, manager: Any, starlette: Any) -> None:
        self.app = app
        self.manager = manager
        self.starlette = starlette
        self._ids = itertools.count(1)
        self._clients: dict[int, tuple[str, asyncio.Queue[list[Any]]]] = {}
        """Client side: by tunnel id, the holder and what its app sent, for the client."""
        self._held: dict[tuple[str, int], asyncio.Queue[Message]] = {}
        """Holder side: by (client side's node, tunnel id), the client's frames, for the app."""
        self._tasks: set[asyncio.Task[None]] = set()
        manager.handlers[OPEN] = self._open
        manager.handlers[TO_HOLDER] = self._to_holder
        manager.handlers[TO_CLIENT] = self._to_client

    def _post(self, node: str, item: list[Any]) -> None:
        self.manager.bus.post(node, item)

    # --- the node the client reached --------------------------------------------------

    async def relay(
        self, node: str, scope: Scope, receive: Receive, send: Send, query: str, headers: list[list[str]]
    ) -> None:
        """Serve the client's websocket by relaying it to ``node``, which holds its session."""
        tid = next(self._ids)
        inbox: asyncio.Queue[list[Any]] = asyncio.Queue()
        self._clients[tid] = (node, inbox)
        me = self.manager.node
        self._post(node, [OPEN, tid, me, scope["path"], scope.get("root_path", ""), query, headers])
        pump: asyncio.Task[None] | None = None
        try:
            if (await receive())["type"] != "websocket.connect":
                return
            try:
                first = await asyncio.wait_for(inbox.get(), ACCEPT_SECONDS)
            except TimeoutError:
                first = ["close", 1011]
            if first[0] != "accept":
                await send({"type": "websocket.close", "code": first[1] if first[0] == "close" else 1011})
                return
            await send({"type": "websocket.accept"})
            pump = asyncio.get_running_loop().create_task(self._pump(node, tid, receive, inbox))
            while True:
                kind, *rest = await inbox.get()
                if kind == "text":
                    await send({"type": "websocket.send", "text": rest[0]})
                elif kind == "bytes":
                    await send({"type": "websocket.send", "bytes": rest[0].encode("latin-1")})
                elif kind == "close":
                    await send({"type": "websocket.close", "code": rest[0]})
                    break
                else:  # "ended": the client went (the pump told the holder)
                    break
            await pump  # until the client's close reply: the holder's app may still be reading
        except Exception:  # the client went away mid-send: the pump tells the holder
            log.debug("event=eio_tunnel_client_gone", exc_info=True)
        finally:
            del self._clients[tid]
            if pump is None:
                self._post(node, [TO_HOLDER, me, tid, "gone", None])
            else:
                with contextlib.suppress(BaseException):
                    await pump

    async def _pump(self, node: str, tid: int, receive: Receive, inbox: asyncio.Queue[list[Any]]) -> None:
        """The client's frames to the holder, in order, then its going (to the holder and to ``relay``)."""
        me = self.manager.node
        try:
            while True:
                message = await receive()
                if message["type"] != "websocket.receive":
                    break
                if message.get("text") is not None:
                    self._post(node, [TO_HOLDER, me, tid, "text", message["text"]])
                else:
                    self._post(node, [TO_HOLDER, me, tid, "bytes", message["bytes"].decode("latin-1")])
        finally:
            self._post(node, [TO_HOLDER, me, tid, "gone", None])
            inbox.put_nowait(["ended"])

    def _to_client(self, item: list[Any]) -> None:
        entry = self._clients.get(item[1])
        if entry is not None:
            entry[1].put_nowait(item[2:])

    def gone(self, nodes: set[str]) -> None:
        """Holders that died: their relayed websockets close now (1011), and the clients reconnect."""
        for node, inbox in self._clients.values():
            if node in nodes:
                inbox.put_nowait(["close", 1011])

    # --- the node holding the session --------------------------------------------------

    def _open(self, item: list[Any]) -> None:
        task = asyncio.get_running_loop().create_task(self._run(item))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _to_holder(self, item: list[Any]) -> None:
        _, origin, tid, kind, data = item
        frames = self._held.get((origin, tid))
        if frames is None:
            return
        if kind == "text":
            frames.put_nowait({"type": "websocket.receive", "text": data})
        elif kind == "bytes":
            frames.put_nowait({"type": "websocket.receive", "bytes": data.encode("latin-1")})
        else:
            frames.put_nowait({"type": "websocket.disconnect", "code": 1006})

    async def _run(self, item: list[Any]) -> None:
        """Run the relayed websocket against this node's own ``/socket.io/`` app."""
        _, tid, origin, path, root_path, query, headers = item
        frames: asyncio.Queue[Message] = asyncio.Queue()
        frames.put_nowait({"type": "websocket.connect"})
        self._held[origin, tid] = frames
        upgrade = [(b"connection", b"Upgrade"), (b"upgrade", b"websocket")]  # python-engineio checks these
        scope = holder_scope(self.starlette, path, root_path, query, headers, upgrade)
        scope.update(type="websocket", scheme="ws", subprotocols=[])
        closed = False

        async def send(message: Message) -> None:
            nonlocal closed
            kind = message["type"]
            if closed:
                return
            if kind == "websocket.accept":
                self._post(origin, [TO_CLIENT, tid, "accept"])
            elif kind == "websocket.send" and message.get("text") is not None:
                self._post(origin, [TO_CLIENT, tid, "text", message["text"]])
            elif kind == "websocket.send":
                self._post(origin, [TO_CLIENT, tid, "bytes", message["bytes"].decode("latin-1")])
            elif kind == "websocket.close":
                closed = True
                self._post(origin, [TO_CLIENT, tid, "close", message.get("code", 1000)])

        try:
            await self.app(scope, frames.get, send)
        except Exception:
            log.exception("event=eio_tunnel_failed")
        finally:
            del self._held[origin, tid]
            if not closed:
                self._post(origin, [TO_CLIENT, tid, "close", 1000])
