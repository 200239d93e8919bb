"""The one seam between a seed-protocol adapter and the room server.

An adapter speaks to rooms exactly as a native client does: it sends native client messages
(``{"type": "join", ...}``) and receives native server messages through a per-connection sink.
``Bridge`` wraps that in request/reply calls so each adapter handler reads as a short script
("identify, then join, then answer the client"), while broadcasts flow to ``on_native``.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, Protocol

log = logging.getLogger(__name__)

Message = dict[str, Any]
Sink = Callable[[Message], None]
"""Receives every native server message for one session, in order; must not block."""


class NativeLink(Protocol):
    """A native session opened in-process, as if a native client had connected."""

    async def send(self, message: Message) -> Message | None:
        """Handle one native client message; its reply and broadcasts go to the sink.

        Returns a refusal that cannot carry the request's id (rate limit), else None.
        """

    def act_now(self, action: Message, request_id: str) -> bool:
        """Queue a game action for the session's room at once, without waiting, answered only if
        refused (an ``error`` with ``request_id``: no bare ``ok``); False (having done nothing) when
        the session cannot take it now (``send`` then must)."""

    def hear_games(self, on: bool) -> None:
        """Whether the session's rooms send it game frames (``game_started``, ``game``) from now on."""

    def mute_legal(self) -> None:
        """From now on the session's game views may lack ``legal`` (``Sink.legal``)."""

    def lazy_views(self) -> None:
        """From now on the session's game views are built only when read (``Sink.views``)."""

    async def close(self, *, leave: bool) -> None:
        """Drop the connection: ``leave`` leaves the room at once, else the grace period runs."""


Connector = Callable[[Sink], Awaitable[NativeLink]]
"""Opens a native session whose outbound messages go to the given sink."""

_CLOSED: Message = {"type": "error", "code": "connection_closed", "message": "the connection is closed"}
FAST = "f"
"""The request id of every fast-lane action (``Bridge.act_now``): only its refusal is sent back."""


def _ignore(message: Message) -> None:
    """A closed bridge's ``on_native``."""


class Bridge:
    """A native session seen from an adapter: requests await their reply, the rest is broadcast.

    Every native message, replies included, goes to ``on_native`` in arrival order before the
    reply is handed to the awaiting handler, so the adapter has seen every consequence of a
    request when the request returns. A failing ``on_native`` is logged, never fatal.

    With ``games=False`` the session is sent no game frames: for a session that never reads them
    (the ``/dots`` admin), which the room then neither builds a view for nor delivers to. With
    ``legal=False`` its game views may come without ``legal`` (an adapter that never reads it), which
    the room may then not build. With ``views=False`` its game views are built only when read (an
    adapter that reads few of them: ``rooms.outbound.LazyView``).

    ``on_native`` is a coroutine function run by a pump task, or, with ``immediate``, a plain
    function called as each message is sent, in the sender's task (usually the room's, right
    after the command was committed): no queue and no task switch per message. An immediate
    ``on_native`` must not block; what has to wait (closing, a request) it starts as a task.
    ``refused`` gets the ``error`` of a refused fast-lane action (``act_now``), after ``on_native``.
    """

    def __init__(
        self,
        connect: Connector,
        on_native: Callable[[Message], Awaitable[None] | None],
        *,
        immediate: bool = False,
        games: bool = True,
        legal: bool = True,
        views: bool = True,
        refused: Callable[[Message], None] | None = None,
    ) -> None:
        self._connect = connect
        self._games = games
        self._legal = legal
        self._views = views
        self._on_native = on_native
        self._immediate = immediate
        self._queue: asyncio.Queue[Message] | None = None
        """The pump's queue (not for an immediate bridge, which has no pump)."""
        self._pending: dict[str, asyncio.Future[Message]] = {}
        self._refused = refused
        self._ids = itertools.count(1)
        self._link: NativeLink | None = None
        self._lane: Callable[[Message, str], bool] | None = None
        """The open link's ``act_now``, for an immediate bridge with ``refused`` (else None)."""
        self._pump: asyncio.Task[None] | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self._closed = False

    async def request(self, type_: str, **fields: Any) -> Message:
        """Send a native request and return its reply (``ok``, ``room``, ``error``...).

        The native session opens on the first request; after ``close`` every request fails.
        """
        if self._closed:
            return dict(_CLOSED)
        if self._link is None:
            if self._immediate:
                self._link = await self._connect(self._deliver)
                if self._refused is not None and not self._closed:  # closed while connecting: no lane
                    self._lane = self._link.act_now
            else:
                queue = self._queue = asyncio.Queue()
                self._link = await self._connect(queue.put_nowait)
                self._pump = asyncio.create_task(self._run(queue))
            if not self._games:
                self._link.hear_games(False)
            if not self._legal:
                self._link.mute_legal()
            if not self._views:
                self._link.lazy_views()
        rid = f"a{next(self._ids)}"
        future: asyncio.Future[Message] = asyncio.get_running_loop().create_future()
        self._pending[rid] = future
        try:
            refusal = await self._link.send({"type": type_, "id": rid, **fields})
            return refusal if refusal is not None else await future
        finally:
            self._pending.pop(rid, None)

    def act_now(self, action: Message) -> bool:
        """Queue a game action at once (the adapter's fast lane): the room sends no ``ok`` for it, and
        its ``error``, if refused, goes to ``refused``. False, having done nothing, when the session is
        not open, or the bridge is not immediate or has no ``refused`` (use ``request``)."""
        lane = self._lane
        return lane is not None and lane(action, FAST)

    def hear_games(self, on: bool) -> None:
        """Whether the room sends this session game frames from now on (``games``, changed later)."""
        self._games = on
        if self._link is not None:
            self._link.hear_games(on)

    def _deliver(self, message: Message) -> None:
        """The sink of an immediate bridge: translate now, then hand a reply to whoever waits."""
        try:
            self._on_native(message)
        except Exception:
            log.exception("adapter failed translating %s", message.get("type"))
        rid = message.get("id")
        if rid is None:
            return
        if rid == FAST:
            if self._refused is not None and message["type"] == "error":
                self._refused(message)
            return
        future = self._pending.get(str(rid))
        if future is not None and not future.done():
            future.set_result(message)

    def post(self, type_: str, **fields: Any) -> None:
        """Send without waiting for the reply (safe to call from ``on_native``)."""
        self._spawn(self._post({"type": type_, "id": f"p{next(self._ids)}", **fields}))

    def close_soon(self, *, end_room: bool = False) -> None:
        """Leave and detach once the messages already queued are delivered (safe from ``on_native``);
        ``end_room``: first close the room for everyone (``terminate``, for a session that hosts it)."""
        self._spawn(self._close_when_idle(end_room))

    async def _close_when_idle(self, end_room: bool) -> None:
        for _ in range(500):  # at most ~5 s for replies in flight
            if (self._queue is None or self._queue.empty()) and not self._pending:
                break
            await asyncio.sleep(0.01)
        ended = end_room and (await self.request("terminate"))["type"] == "ok"  # refused: not the host
        await self.close(leave=not ended)  # a closed room has no one left to leave

    def _spawn(self, coro: Coroutine[Any, Any, None]) -> None:
        task = asyncio.create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _post(self, message: Message) -> None:
        if self._link is not None:
            with contextlib.suppress(Exception):
                await self._link.send(message)

    async def close(self, *, leave: bool) -> None:
        """Detach from the native session; ``leave`` applies the leave rule at once."""
        self._closed = True
        self._lane = None
        link, self._link = self._link, None
        if link is not None:
            with contextlib.suppress(Exception):
                await link.close(leave=leave)
        pump, self._pump = self._pump, None
        if pump is not None and pump is not asyncio.current_task():
            await asyncio.sleep(0)  # let the pump deliver what is already queued
            pump.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await pump
        for future in self._pending.values():
            if not future.done():
                future.set_result(dict(_CLOSED))
        # The adapter client holds this bridge and these are its methods: a reference cycle that would
        # keep the client, its connection and socket for the cyclic collector. Nothing comes now.
        self._on_native, self._refused = _ignore, None

    async def _run(self, queue: asyncio.Queue[Message]) -> None:
        while not self._closed:  # ``close`` from inside ``on_native`` ends the loop here
            message = await queue.get()
            try:
                pending = self._on_native(message)
                if pending is not None:
                    await pending
            except Exception:
                log.exception("adapter failed translating %s", message.get("type"))
            future = self._pending.get(str(message.get("id")))
            if future is not None and not future.done():
                future.set_result(message)
