"""Messages between nodes over Redis pub/sub: one channel per node, plus one for rare cluster events.

A node publishes to ``node:<id>`` only what that node needs: commands for rooms it owns, or room
messages for connections it holds. Nobody decodes traffic meant for others; the shared ``events``
channel carries only what changes seldom (a room claimed or released, a lobby listing). Pub/sub is
fire-and-forget: what it carries is derived from committed logs, and after a Redis outage every node
re-attaches its connections, which sends each a fresh snapshot (docs/scaling.md).

Items for one node within one loop tick go out as one message (a JSON list), through the node's
pipeline (store/pipeline.py), which sends in order and shares its round trips with the log appends,
so they arrive in the order they were posted. A game message the room already encoded for a
connection on another node (rooms/encoding.py) travels as raw bytes after the list, not inside it:
``<JSON list>\n<frame><frame>…``, the list holding ``["j", cid, length]`` where each frame belongs
(orjson never writes a raw newline). Decoding it there and encoding it again for the socket was a
tenth of a worker's CPU under load.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from typing import Any

import orjson

from parlour.dumps import json_bytes
from parlour.store.pipeline import Pipeliner
from parlour.store.resp import RespConnection

log = logging.getLogger("parlour.cluster")

Item = list[Any]


class Bus:
    """Per-node inbox and batched outbox over one Redis."""

    def __init__(
        self,
        url: str,
        pipeliner: Pipeliner,
        node: str,
        on_item: Callable[[Item], None],
        on_reconnect: Callable[[], Awaitable[None]],
        prefix: str = "pl:",
    ) -> None:
        self.url = url
        self.pipeliner = pipeliner
        self.node = node
        self.prefix = prefix
        self._on_item = on_item
        self._on_reconnect = on_reconnect
        self._outbox: dict[str, list[Any]] = {}
        self._frames: dict[str, list[bytes]] = {}
        """Per node: the encoded messages its ``["j", cid, length]`` items stand for, in order."""
        self._scheduled = False
        self._tasks: list[asyncio.Task[None]] = []
        self._subscribed = asyncio.Event()

    def channel(self, node: str) -> str:
        return f"{self.prefix}node:{node}"

    @property
    def events(self) -> str:
        return f"{self.prefix}events"

    async def start(self) -> None:
        loop = asyncio.get_running_loop()
        self._tasks = [loop.create_task(self._listen())]
        await asyncio.wait_for(self._subscribed.wait(), 10)

    async def stop(self) -> None:
        self._flush()
        await self.pipeliner.idle()  # let what is queued go out (at most ~1 s)
        for task in self._tasks:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task

    # --- outbound ---------------------------------------------------------------

    def post(self, node: str, item: Item) -> None:
        """Queue ``item`` for ``node`` (or for everyone when ``node`` is ``"*"``)."""
        box = self._outbox.get(node)
        if box is None:
            box = self._outbox[node] = []
        box.append(item)
        if not self._scheduled:
            self._scheduled = True
            asyncio.get_running_loop().call_soon(self._flush)

    def post_frame(self, node: str, cid: int, data: bytes) -> None:
        """Queue a message encoded already (JSON bytes) for connection ``cid`` on ``node``."""
        self.post(node, ["j", cid, len(data)])
        frames = self._frames.get(node)
        if frames is None:
            frames = self._frames[node] = []
        frames.append(data)

    def _flush(self) -> None:
        self._scheduled = False
        if not self._outbox:
            return
        outbox, self._outbox = self._outbox, {}
        frames, self._frames = self._frames, {}
        for node, items in outbox.items():
            channel = self.events if node == "*" else self.channel(node)
            raw = frames.get(node)
            payload = json_bytes(items) if raw is None else b"\n".join((json_bytes(items), b"".join(raw)))
            self.pipeliner.send("PUBLISH", channel, payload)

    # --- inbound ----------------------------------------------------------------

    async def _listen(self) -> None:
        first = True
        while True:
            subscription = RespConnection(self.url)
            try:
                channels = [self.channel(self.node), self.events]
                await subscription.open()
                subscription.send([("SUBSCRIBE", *channels)])
                for _ in channels:  # one confirmation per channel
                    await subscription.read()
                self._subscribed.set()
                if not first:
                    log.warning("event=bus_reconnected")
                    await self._on_reconnect()
                first = False
                while True:
                    push = await subscription.read()
                    if not isinstance(push, list) or len(push) != 3 or push[0] != b"message":
                        continue
                    for item in _items(push[2]):
                        try:
                            self._on_item(item)
                        except Exception:
                            log.exception("event=bus_item_failed op=%s", item[0] if item else None)
            except asyncio.CancelledError:
                subscription.close()
                raise
            except Exception:
                log.warning("event=bus_disconnected; retrying", exc_info=False)
                subscription.close()
                await asyncio.sleep(0.5)


def _items(payload: bytes) -> list[Item]:
    """A published message's items; each ``["j", cid, length]`` gets its frame's bytes in place of
    the length."""
    cut = payload.find(b"\n")
    if cut < 0:
        items: list[Item] = orjson.loads(payload)
        return items
    items = orjson.loads(payload[:cut])
    offset = cut + 1
    for item in items:
        if item[0] == "j":
            end = offset + item[2]
            item[2] = payload[offset:end]
            offset = end
    return items
