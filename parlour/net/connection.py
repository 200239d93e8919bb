"""One websocket's outbound side and its rate limit.

Rooms call ``send`` from their task; it only enqueues, so a slow client never blocks a room. A
client that lets its bounded queue overflow is dropped (its seat is kept for the grace period).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import deque
from typing import Any

import orjson
from starlette.websockets import WebSocket

from parlour.net.metrics import Metrics

log = logging.getLogger("parlour.net")

_CLOSE = object()


class TokenBucket:
    """``capacity`` tokens, refilled at ``rate`` per second."""

    def __init__(self, rate: float, capacity: float) -> None:
        self.rate = rate
        self.capacity = capacity
        self.tokens = capacity
        self.stamp = time.monotonic()

    def take(self) -> bool:
        now = time.monotonic()
        self.tokens = min(self.capacity, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens >= 1:
            self.tokens -= 1
            return True
        return False


def encode(message: dict[str, Any]) -> str:
    # OPT_NON_STR_KEYS doubles orjson's cost on every dict, and nearly every message has only str
    # keys: try without it; the rare message with int keys (scores by seat, ...) takes the retry.
    try:
        return orjson.dumps(message).decode()
    except TypeError:
        return orjson.dumps(message, option=orjson.OPT_NON_STR_KEYS).decode()


class Connection:
    """A native websocket as a ``Sink``: bounded queue + writer task."""

    def __init__(self, ws: WebSocket, metrics: Metrics, queue_size: int) -> None:
        self.ws = ws
        self.metrics = metrics
        self.alive = True
        # A plain deque plus one wake-up future: cheaper per message than ``asyncio.Queue``.
        self._queue: deque[Any] = deque()
        self._wake: asyncio.Future[None] | None = None
        self._limit = queue_size
        self._close_args = (1000, "")
        self._writer = asyncio.get_running_loop().create_task(self._write())

    def send(self, message: dict[str, Any]) -> None:
        if not self.alive:
            return
        if message.get("type") == "error":
            self.metrics.errors.labels(message.get("code", "unknown")).inc()
        if len(self._queue) >= self._limit:
            log.warning("event=slow_client_dropped queue=%d", self._limit)
            self.close(1013, "outbound queue overflow")
            return
        self._push(message)

    def _push(self, item: Any) -> None:
        self._queue.append(item)
        wake = self._wake
        if wake is not None:
            self._wake = None
            if not wake.done():
                wake.set_result(None)

    def close(self, code: int = 1000, reason: str = "") -> None:
        """Stop sending and close the socket once what is queued (unless overflowing) is written."""
        if not self.alive:
            return
        self.alive = False
        self._close_args = (code, reason)
        if len(self._queue) >= self._limit:
            self._queue.clear()
        self._push(_CLOSE)

    async def _write(self) -> None:
        # The ASGI message straight to ``WebSocket.send`` (``send_text`` only wraps it). ``text`` must
        # be a ``str`` under ASGI, so the one ``.decode()`` in ``encode`` is the cheapest way to get a
        # text frame out (uvicorn encodes it back); a bytes frame would reach browsers as a Blob.
        send = self.ws.send
        queue, metrics = self._queue, self.metrics
        loop = asyncio.get_running_loop()
        try:
            while True:
                if not queue:
                    wake = self._wake = loop.create_future()
                    await wake
                    continue
                message = queue.popleft()  # everything queued by now goes out in this wake-up
                if message is _CLOSE:
                    await self.ws.close(*self._close_args)
                    return
                await send({"type": "websocket.send", "text": encode(message)})
                metrics.messages_out += 1  # a plain int, exported at scrape time
        except Exception:  # the peer went away mid-write; the reader notices and cleans up
            self.alive = False

    async def finish(self) -> None:
        """After the reader saw the socket close: let a close we asked for go out, then stop the writer."""
        if self.alive:
            self.alive = False
            self._writer.cancel()
        with contextlib.suppress(asyncio.CancelledError, TimeoutError):
            await asyncio.wait_for(self._writer, timeout=2.0)
