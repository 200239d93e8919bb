"""One websocket's outbound side and its rate limit.

Rooms call ``send`` from their task; it writes the frame at once when the socket takes it and
otherwise queues it, so a slow client never blocks a room. A client that lets its bounded queue
overflow is dropped (its seat is kept for the grace period).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import deque
from collections.abc import Callable
from typing import Any

from starlette.websockets import WebSocket

from parlour.dumps import json_bytes
from parlour.net.metrics import Metrics
from parlour.net.websocket_protocol import ABORT, SEND_FRAMES, SEND_TEXT, SEND_TEXTS

log = logging.getLogger("parlour.net")

_CLOSE = object()
CLOSE_GRACE = 5.0  # seconds a closing socket may take to send what is queued before it is dropped


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


def _encoded(message: dict[str, Any] | bytes) -> bytes:
    """A queued message as JSON: encoded now, or already (``send_json``)."""
    return message if type(message) is bytes else json_bytes(message)


class Connection:
    """A native websocket as a ``Sink``: frames are written as they are sent, a bounded queue
    holds them while the socket cannot take more."""

    json = True  # encodes with orjson: messages may carry pre-encoded parts (rooms/encoding.py)

    def __init__(self, ws: WebSocket, metrics: Metrics, queue_size: int) -> None:
        self.ws = ws
        # The server's fast lane for text frames, when it has one (net/websocket_protocol.py).
        extensions = ws.scope.get("extensions", {})
        self._send_text: Callable[[bytes], bool] | None = extensions.get(SEND_TEXT)
        self._send_texts: Callable[[list[bytes]], bool] | None = extensions.get(SEND_TEXTS)
        self._send_frames: Callable[[bytes], bool] | None = extensions.get(SEND_FRAMES)
        self.metrics = metrics
        self.alive = True
        self._queue: deque[Any] = deque()
        self._limit = queue_size
        self._close_args = (1000, "")
        self._drain: asyncio.Task[None] | None = None  # sending through ASGI what the lane declined
        self._abort_timer: asyncio.TimerHandle | None = None

    def send(self, message: dict[str, Any]) -> None:
        if not self.alive:
            return
        if message.get("type") == "error":
            self.metrics.errors.labels(message.get("code", "unknown")).inc()
        self._send(message)

    def send_json(self, data: bytes) -> None:
        """``send`` a message the room encoded itself (a game message, rooms/encoding.py)."""
        if self.alive:
            self._send(data)

    def _send(self, message: dict[str, Any] | bytes) -> None:
        queue = self._queue
        if not queue and self._drain is None:
            # Nothing queued or being sent through ASGI (so nothing to overtake): the common case,
            # written now without a trip through the queue.
            send_text = self._send_text
            if send_text is not None and send_text(_encoded(message)):
                self.metrics.messages_out += 1
                return
        elif len(queue) >= self._limit:
            log.warning("event=slow_client_dropped queue=%d", self._limit)
            self.close(1013, "outbound queue overflow")
            return
        queue.append(message)
        if self._drain is None:
            self._write_now()

    def send_all(self, messages: list[dict[str, Any]], frames: bytes | None = None) -> None:
        """``send`` each, in order, in a single write when the socket takes them now.

        ``frames``: the same messages already encoded and framed (``text_frames``), when the
        caller sends them alike to several sockets and framed them once for all."""
        if frames is not None and self.alive and not self._queue:
            send_frames = self._send_frames
            if send_frames is not None and send_frames(frames):
                self.metrics.messages_out += len(messages)
                return
        send_texts = self._send_texts
        if (
            len(messages) > 1
            and self.alive
            and not self._queue
            and send_texts is not None
            and send_texts([json_bytes(m) for m in messages])
        ):
            self.metrics.messages_out += len(messages)
            return
        for message in messages:
            self.send(message)

    def close(self, code: int = 1000, reason: str = "") -> None:
        """Stop sending and close the socket once what is queued (unless overflowing) is written."""
        if not self.alive:
            return
        self.alive = False
        self._close_args = (code, reason)
        if len(self._queue) >= self._limit:
            # The peer stopped reading: a close frame would wait behind data it never reads.
            self._queue.clear()
            if self._abort():
                return
        self._queue.append(_CLOSE)
        if self._drain is None:
            self._write_now()
        if self._drain is not None:  # the socket is busy: a peer that never reads must not keep it
            self._abort_timer = asyncio.get_running_loop().call_later(CLOSE_GRACE, self._abort)

    def _abort(self) -> bool:
        """Drop the TCP connection now (when the server offers it), unsent data and all."""
        abort = self.ws.scope.get("extensions", {}).get(ABORT)
        if abort is None:
            return False
        abort()
        return True

    def _write_now(self) -> None:
        """Write what is queued through the server's fast lane, in the caller's task (usually a
        room's); the first frame the lane declines (socket busy or closing, another server) and
        everything behind it go out through ASGI ``send`` in a task, in order."""
        queue, send_text = self._queue, self._send_text
        while queue:
            message = queue[0]
            if message is _CLOSE or send_text is None or not send_text(_encoded(message)):
                self._drain = asyncio.get_running_loop().create_task(self._drain_queue())
                return
            queue.popleft()
            self.metrics.messages_out += 1

    async def _drain_queue(self) -> None:
        """Send the queue through ASGI (waiting for a slow reader as needed), then close if asked to."""
        queue = self._queue
        try:
            while queue:
                message = queue.popleft()
                if message is _CLOSE:
                    await self.ws.close(*self._close_args)
                    return
                try:
                    text = _encoded(message).decode()
                except TypeError:  # never expected: inbound data is checked to be encodable
                    log.error("event=unencodable_message type=%s", message.get("type"))
                    continue
                # ``text`` must be a ``str`` under ASGI; a bytes frame would reach browsers as a Blob.
                await self.ws.send({"type": "websocket.send", "text": text})
                self.metrics.messages_out += 1
        except Exception:  # the peer went away mid-write; the reader notices and cleans up
            self.alive = False
            queue.clear()
        finally:
            self._drain = None

    async def finish(self) -> None:
        """After the reader saw the socket close: let a close we asked for go out, else stop writing."""
        if self._abort_timer is not None:
            self._abort_timer.cancel()
        drain = self._drain
        if self.alive:
            self.alive = False
            self._queue.clear()
            if drain is not None:
                drain.cancel()
        if drain is not None:
            with contextlib.suppress(asyncio.CancelledError, TimeoutError):
                await asyncio.wait_for(drain, timeout=2.0)
