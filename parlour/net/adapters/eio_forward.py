"""Engine.IO sessions across the nodes of a cluster, without sticky routing (docs/scaling.md).

An Engine.IO session (v3 or v4) lives in the process that answered its handshake, but a client on
long-polling sends every poll and every POST as a request of its own, and a load balancer without
sticky sessions may hand each to any node. So, in cluster mode only:

- every sid starts with its holder's **tag** (``node_tag``: 8 hex digits of a hash of the node's
  name, so the sid names no host or process), and a node knows whether it holds a sid by looking;
- a polling request for a sid tagged by another node is **forwarded** to that node over its bus
  channel (``pl:node:<id>``) as one RPC: method, path, the query keys Engine.IO reads, the two
  headers it reads (``Content-Type``, ``Origin``) and the body. The holder runs it against its own
  ``/socket.io/`` app in-process and answers with status, headers and body, which go back to the
  client unchanged. A long-poll waits there as it would locally (up to a ping interval plus a ping
  timeout), so the RPC waits that long too;
- a **websocket upgrade** for another node's sid is **relayed** (``eio_tunnel``): the holder opens the
  websocket in-process against its own app, and the frames go both ways over the two nodes' channels,
  so the upgrade (probe, ``5``) and everything after it happen on the holder as for a local websocket.
  Websocket-only clients never need any of this (their handshake is their connection).

Nothing else crosses Redis: no cookies, no other query keys (a client's ``?token=`` stays on the
node it reached), no client address. Single-process mode never gets here (no bus: the middleware
passes every request straight through).
"""

from __future__ import annotations

import asyncio
import hashlib
import itertools
import logging
import time
from collections.abc import Callable
from typing import Any
from urllib.parse import parse_qs, urlencode

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from parlour.net.adapters.eio_tunnel import Tunnels, holder_scope

log = logging.getLogger(__name__)

TAG_LENGTH = 8
REQUEST, REPLY = "eio", "eio-r"
"""The bus ops: a forwarded request, and its answer."""
KEPT_QUERY = ("EIO", "transport", "sid", "b64", "j")
"""The query keys either Engine.IO version reads on a polling request; the rest stays here."""
KEPT = (b"content-type", b"origin")
"""The request headers forwarded: the two Engine.IO reads on a polling request."""
DROPPED_REPLY_HEADERS = (b"connection", b"transfer-encoding", b"keep-alive")
MAX_BODY = 1_000_000
"""The largest polling body forwarded: python-engineio's own default limit (v3's is smaller)."""
POST_SECONDS = 10.0
"""How long a forwarded request that does not long-poll may take."""
NODES_REFRESH = 0.25
"""Seconds between re-reads of the live nodes when sids name tags we do not know (a flood of made-up
sids costs Redis at most four reads a second)."""


def node_tag(node: str) -> str:
    """The prefix of every sid ``node`` hands out."""
    return hashlib.sha256(node.encode()).hexdigest()[:TAG_LENGTH]


class Forwarding:
    """ASGI middleware in front of ``/socket.io/``: requests for sids held elsewhere go to their holder.

    ``tag_sids(prefix)`` is told this node's tag before the first request goes through, so every sid
    handed out here carries it. ``long_poll(scope)`` is the longest a poll may wait on the holder.
    """

    def __init__(
        self, app: ASGIApp, tag_sids: Callable[[str], None], long_poll: Callable[[Scope], float]
    ) -> None:
        self.app = app
        self.tag_sids = tag_sids
        self.long_poll = long_poll
        self.tag: str | None = None
        self.manager: Any = None
        self.starlette: Any = None
        self._tags: dict[str, str] = {}
        self._refreshed = 0.0
        self._refreshing = asyncio.Lock()
        self._rpcs: dict[int, tuple[str, asyncio.Future[list[Any]]]] = {}
        """By id, a forwarded request's holder and its answer to come."""
        self._ids = itertools.count(1)
        self._tasks: set[asyncio.Task[None]] = set()
        self.tunnels: Tunnels | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        if self.tag is None:
            manager = scope["app"].state.manager
            if getattr(manager, "bus", None) is None:  # one process: nothing to forward, ever
                await self.app(scope, receive, send)
                return
            self._join(scope["app"], manager)
        assert self.tag is not None
        sid = _query(scope).get("sid")
        if sid is None or sid.startswith(self.tag):
            await self.app(scope, receive, send)
            return
        node = await self._holder(sid)
        if node is None:  # no live node has this tag: the app answers "unknown sid"
            await self.app(scope, receive, send)
        elif scope["type"] == "websocket":
            assert self.tunnels is not None
            await self.tunnels.relay(node, scope, receive, send, *_kept(scope))
        else:
            await self._forward(node, scope, receive, send)

    def _join(self, starlette: Any, manager: Any) -> None:
        """The first request in cluster mode: take the node's tag and serve forwarded requests."""
        self.manager, self.starlette = manager, starlette
        self.tag = node_tag(manager.node)
        self._tags[self.tag] = manager.node
        self.tag_sids(self.tag)
        manager.handlers[REQUEST] = self._serve
        manager.handlers[REPLY] = self._answered
        self.tunnels = Tunnels(self.app, manager, starlette)
        manager.nodes_gone.append(self._gone)

    async def _holder(self, sid: str) -> str | None:
        """The live node whose tag starts ``sid``. An unknown tag re-reads the node list (one read at a
        time, so requests arriving together wait for the same read; at most one per ``NODES_REFRESH``)."""
        tag = sid[:TAG_LENGTH]
        node = self._tags.get(tag)
        if node is not None:
            return node
        async with self._refreshing:
            node = self._tags.get(tag)
            if node is None and time.monotonic() - self._refreshed > NODES_REFRESH:
                store = self.manager.store
                for raw in await store.redis.smembers(store.key("nodes")):
                    name = raw.decode() if isinstance(raw, bytes) else raw
                    self._tags[node_tag(name)] = name
                self._refreshed = time.monotonic()
                node = self._tags.get(tag)
        return node

    # --- the node the client reached ------------------------------------------------------

    async def _forward(self, node: str, scope: Scope, receive: Receive, send: Send) -> None:
        body = bytearray()
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            body += message.get("body", b"")
            if len(body) > MAX_BODY:
                await _respond(send, 413, [(b"content-type", b"text/plain")], b"payload too large")
                return
            if not message.get("more_body"):
                break
        kept, headers = _kept(scope)
        rpc = next(self._ids)
        future: asyncio.Future[list[Any]] = asyncio.get_running_loop().create_future()
        self._rpcs[rpc] = (node, future)
        item = [REQUEST, rpc, self.manager.node, scope["method"], scope["path"], scope.get("root_path", "")]
        self.manager.bus.post(node, [*item, kept, headers, body.decode("latin-1")])
        wait = self.long_poll(scope) if scope["method"] == "GET" else POST_SECONDS
        try:
            status, reply_headers, reply_body = await asyncio.wait_for(future, wait)
        except TimeoutError:
            log.warning("event=eio_forward_timeout node=%s", node)
            await _respond(send, 502, [(b"content-type", b"text/plain")], b"the session's node is silent")
            return
        finally:
            self._rpcs.pop(rpc, None)
        pairs = [(k.encode("latin-1"), v.encode("latin-1")) for k, v in reply_headers]
        await _respond(send, status, pairs, reply_body.encode("latin-1"))

    def _answered(self, item: list[Any]) -> None:
        entry = self._rpcs.get(item[1])
        if entry is not None and not entry[1].done():
            entry[1].set_result(item[2:5])

    def _gone(self, nodes: set[str]) -> None:
        """Holders that died never answer: their requests get a 502 now, not after the long-poll wait,
        and their sids are unknown from now on (answered 400 here, so their clients reconnect at once)."""
        self._tags = {tag: node for tag, node in self._tags.items() if node not in nodes}
        for node, future in self._rpcs.values():
            if node in nodes and not future.done():
                future.set_result([502, [["content-type", "text/plain"]], "the session's node is gone"])
        assert self.tunnels is not None
        self.tunnels.gone(nodes)

    # --- the node holding the session -----------------------------------------------------

    def _serve(self, item: list[Any]) -> None:
        task = asyncio.get_running_loop().create_task(self._run(item))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _run(self, item: list[Any]) -> None:
        """Run one forwarded request against this node's own ``/socket.io/`` app; post the answer."""
        _, rpc, origin, method, path, root_path, query, headers, body = item
        length = [(b"content-length", str(len(body.encode("latin-1"))).encode())]
        scope = holder_scope(self.starlette, path, root_path, query, headers, length)
        scope.update(type="http", method=method, scheme="http")
        sent = [False]
        ended = asyncio.Event()

        async def receive() -> Message:
            if not sent[0]:
                sent[0] = True
                return {"type": "http.request", "body": body.encode("latin-1"), "more_body": False}
            await ended.wait()  # nobody is told of a disconnect: the client's node answers it
            return {"type": "http.disconnect"}

        status, reply_headers, chunks = 500, [], []

        async def send(message: Message) -> None:
            nonlocal status, reply_headers
            if message["type"] == "http.response.start":
                status = message["status"]
                reply_headers = [
                    [k.decode("latin-1"), v.decode("latin-1")]
                    for k, v in message.get("headers", [])
                    if k.lower() not in DROPPED_REPLY_HEADERS
                ]
            elif message["type"] == "http.response.body":
                chunks.append(message.get("body", b""))

        try:
            await self.app(scope, receive, send)
        except Exception:
            log.exception("event=eio_forwarded_request_failed")
            status, reply_headers, chunks = 500, [], [b"internal error"]
        finally:
            ended.set()
        reply = b"".join(chunks).decode("latin-1")
        self.manager.bus.post(origin, [REPLY, rpc, status, reply_headers, reply])


def _kept(scope: Scope) -> tuple[str, list[list[str]]]:
    """What of a request crosses Redis besides its body: Engine.IO's query keys and two headers."""
    query = _query(scope)
    kept = urlencode([(k, query[k]) for k in KEPT_QUERY if k in query])
    return kept, [[k.decode("latin-1"), v.decode("latin-1")] for k, v in scope["headers"] if k in KEPT]


def _query(scope: Scope) -> dict[str, str]:
    raw = scope.get("query_string", b"").decode("latin-1")
    return {k: v[0] for k, v in parse_qs(raw).items()}


async def _respond(send: Send, status: int, headers: list[tuple[bytes, bytes]], body: bytes) -> None:
    headers = [(k, v) for k, v in headers if k.lower() != b"content-length"]
    headers.append((b"content-length", str(len(body)).encode()))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
