"""Messages between nodes over Redis pub/sub: one channel per node, plus one for rare cluster events.

A node publishes to ``node:<id>`` only what that node needs: commands for rooms it owns, or room
messages for connections it holds. Nobody decodes traffic meant for others; the shared ``events``
channel carries only what changes seldom (a room claimed or released, a lobby listing). Pub/sub is
fire-and-forget: what it carries is derived from committed logs, and after a Redis outage every node
re-attaches its connections, which sends each a fresh snapshot (docs/scaling.md).

Items for one node within one loop tick go out as one message (a JSON list), from one sender task,
so they arrive in the order they were posted.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from typing import Any

import orjson
from redis import asyncio as aioredis

from parlour.dumps import json_bytes

log = logging.getLogger("parlour.cluster")

Item = list[Any]


class Bus:
    """Per-node inbox and batched outbox over one Redis."""

    def __init__(
        self,
        redis: aioredis.Redis,
        node: str,
        on_item: Callable[[Item], None],
        on_reconnect: Callable[[], Awaitable[None]],
        prefix: str = "pl:",
    ) -> None:
        self.redis = redis
        self.node = node
        self.prefix = prefix
        self._on_item = on_item
        self._on_reconnect = on_reconnect
        self._outbox: dict[str, list[Any]] = {}
        self._scheduled = False
        self._ready = asyncio.Event()
        self._sending: list[tuple[str, bytes]] = []
        self._busy = False
        self._tasks: list[asyncio.Task[None]] = []
        self._subscribed = asyncio.Event()

    def channel(self, node: str) -> str:
        return f"{self.prefix}node:{node}"

    @property
    def events(self) -> str:
        return f"{self.prefix}events"

    async def start(self) -> None:
        loop = asyncio.get_running_loop()
        self._tasks = [loop.create_task(self._listen()), loop.create_task(self._send())]
        await asyncio.wait_for(self._subscribed.wait(), 10)

    async def stop(self) -> None:
        self._flush()
        for _ in range(100):  # let what is queued go out (at most ~1 s)
            if not self._sending and not self._busy:
                break
            await asyncio.sleep(0.01)
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

    def _flush(self) -> None:
        self._scheduled = False
        if not self._outbox:
            return
        outbox, self._outbox = self._outbox, {}
        for node, items in outbox.items():
            channel = self.events if node == "*" else self.channel(node)
            self._sending.append((channel, json_bytes(items)))
        self._ready.set()

    async def _send(self) -> None:
        while True:
            await self._ready.wait()
            self._ready.clear()
            batch, self._sending = self._sending, []
            if not batch:
                continue
            self._busy = True
            try:
                pipe = self.redis.pipeline(transaction=False)
                for channel, data in batch:
                    pipe.publish(channel, data)
                await pipe.execute()
            except Exception:
                log.warning("event=bus_send_failed messages=%d", len(batch), exc_info=True)
                await asyncio.sleep(0.2)
            finally:
                self._busy = False

    # --- inbound ----------------------------------------------------------------

    async def _listen(self) -> None:
        first = True
        while True:
            pubsub = self.redis.pubsub(ignore_subscribe_messages=True)
            try:
                await pubsub.subscribe(self.channel(self.node), self.events)
                self._subscribed.set()
                if not first:
                    log.warning("event=bus_reconnected")
                    await self._on_reconnect()
                first = False
                while True:
                    message = await pubsub.get_message(timeout=1.0)
                    if message is None:
                        continue
                    for item in orjson.loads(message["data"]):
                        try:
                            self._on_item(item)
                        except Exception:
                            log.exception("event=bus_item_failed op=%s", item[0] if item else None)
            except asyncio.CancelledError:
                with contextlib.suppress(Exception):
                    await pubsub.aclose()  # type: ignore[no-untyped-call]
                raise
            except Exception:
                log.warning("event=bus_disconnected; retrying", exc_info=False)
                with contextlib.suppress(Exception):
                    await pubsub.aclose()  # type: ignore[no-untyped-call]
                await asyncio.sleep(0.5)
