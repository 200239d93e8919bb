"""``NativeLink`` over the server's own native protocol handler, in-process.

Each adapter session is a ``NativeClient`` (the very object a ``/api/ws`` socket gets) whose
sink is a function instead of a websocket, so adapters get the native protocol's validation,
rate limit, sessions, rooms and grace period with no second implementation.
"""

from __future__ import annotations

import asyncio
from typing import Any

import orjson

from parlour.net.adapters.link import Connector, Message, NativeLink, Sink
from parlour.net.limits import client_key
from parlour.net.native import Allowance, NativeClient


class FunctionSink:
    """A room ``Sink`` that hands messages to the adapter; ``close`` becomes a message too.

    Compared by identity, since the manager keys lobby subscriptions by sink.
    """

    def __init__(self, deliver: Sink) -> None:
        self.deliver = deliver
        self.alive = True
        self.games = True
        """False: the room sends no game frames here (``Sink``; ``InProcessLink.hear_games``)."""
        self.legal = True
        """False: game views here may lack ``legal`` (``Sink``; ``InProcessLink.mute_legal``)."""
        self.views = True
        """False: game views here are built only when read (``Sink``; ``InProcessLink.lazy_views``)."""
        self.log = False
        """Game messages here carry no game-log entries (``Sink``): no adapter's wire has the log."""
        self.refusals: list[Message] | None = None
        """While a frame is handled: collects errors sent without a request id (rate limit)."""

    def send(self, message: Message) -> None:
        if self.refusals is not None and message.get("type") == "error" and "id" not in message:
            self.refusals.append(message)
        elif self.alive:
            self.deliver(message)

    def close(self, code: int = 1000, reason: str = "") -> None:
        """The server ended this session's connection (flood, replaced, overflow)."""
        if self.alive:
            self.alive = False
            self.deliver({"type": "connection_closed", "code": code, "reason": reason})


TOO_BIG = {"code": "bad_message", "message": "numbers must fit in 64 bits"}


def _frame(message: Message) -> str | None:
    """The native frame for ``message``; None if it holds an integer JSON cannot carry here (beyond 64
    bits, from a client's own fields: orjson refuses it, and the store could not write it)."""
    try:
        return orjson.dumps(message).decode()
    except orjson.JSONEncodeError:
        return None


class InProcessLink:
    """One native session for an adapter connection."""

    def __init__(self, client: NativeClient, sink: FunctionSink) -> None:
        self.client = client
        self.sink = sink
        self.lock = asyncio.Lock()

    async def send(self, message: Message) -> Message | None:
        frame = _frame(message)
        if frame is None:  # what a client sent through the adapter, refused as the native handler would
            return {"type": "error", "id": message.get("id"), **TOO_BIG}
        async with self.lock:  # one frame at a time, so a refusal belongs to this frame
            self.sink.refusals = []
            try:
                await self.client.frame(frame)
                return self.sink.refusals[0] if self.sink.refusals else None
            finally:
                self.sink.refusals = None

    def act_now(self, action: Message, request_id: str) -> bool:
        # While a frame is handled, keep the order: the slow lane.
        return not self.lock.locked() and self.client.act(action, request_id, quiet=True)

    def hear_games(self, on: bool) -> None:
        self.sink.games = on

    def mute_legal(self) -> None:
        self.sink.legal = False

    def lazy_views(self) -> None:
        self.sink.views = False

    async def close(self, *, leave: bool) -> None:
        if leave and self.client.session is not None and self.sink.alive:
            await self.send({"type": "leave"})
        self.sink.alive = False
        self.client.closed()


def connector(state: Any, protocol: str, scope: Any = None) -> Connector:
    """A ``Connector`` for the app whose ``state`` holds ``manager``, ``config``, ``metrics`` and
    ``limits``; ``protocol`` names the wire protocol for its rate limit (``Config.rate_for``), ``scope``
    the client connection: every native session it opens counts against that client's address and
    shares one rate allowance."""
    address = client_key(scope)
    allowance = Allowance.for_config(state.config, protocol)

    async def connect(deliver: Sink) -> NativeLink:
        sink = FunctionSink(deliver)
        client = NativeClient(
            sink,
            state.manager,
            state.config,
            state.metrics,
            protocol,
            address=address,
            limits=getattr(state, "limits", None),
            allowance=allowance,
        )
        return InProcessLink(client, sink)

    return connect
