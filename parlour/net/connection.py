"""One websocket's outbound side and its rate limit.

Rooms call ``send`` from their task; it writes the frame at once when the socket takes it (with
what was held for a reply, in one write) and otherwise queues it, so a slow client never blocks a
room. A client that lets its bounded queue
overflow is dropped (its seat is kept for the grace period).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
import weakref
from collections import deque
from collections.abc import Callable
from typing import Any

from starlette.websockets import WebSocket

from parlour.dumps import json_bytes
from parlour.net.metrics import Metrics
from parlour.net.websocket_protocol import ABORT, SEND_FRAMES, TEXT_LANE, TextLane, text_frame, text_frames

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


class _Flusher:
    """Writes, when the event-loop pass ends, what connections held for a reply that did not come in
    the pass (a ``call_soon`` callback, queued before the next pass's I/O callbacks: no timer)."""

    __slots__ = ("dirty", "loop")

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.dirty: list[Connection] = []

    def add(self, conn: Connection) -> None:
        dirty = self.dirty
        if not dirty:
            self.loop.call_soon(self.run)
        dirty.append(conn)

    def run(self) -> None:
        dirty, self.dirty = self.dirty, []
        for conn in dirty:
            try:
                conn.flush()
            except Exception:  # never expected; the other connections must still get theirs
                log.exception("event=flush_failed")


_flushers: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _Flusher] = weakref.WeakKeyDictionary()


def _flusher() -> _Flusher:
    loop = asyncio.get_running_loop()
    flusher = _flushers.get(loop)
    if flusher is None:
        flusher = _flushers[loop] = _Flusher(loop)
    return flusher


class Connection:
    """A native websocket as a ``Sink``: frames are written as they are sent, except while a request of
    this client's awaits its reply (``expect_reply``): what it is sent meanwhile waits for the reply (or
    the end of the loop pass) and leaves with it in one write. A bounded queue holds frames while the
    socket cannot take more."""

    json = True  # encodes with orjson: messages may carry pre-encoded parts (rooms/encoding.py)

    def __init__(self, ws: WebSocket, metrics: Metrics, queue_size: int) -> None:
        self.ws = ws
        # The server's fast lane for text frames, when it has one (net/websocket_protocol.py).
        extensions = ws.scope.get("extensions", {})
        self._send_frames: Callable[[bytes], bool] | None = extensions.get(SEND_FRAMES)
        self._lane: TextLane | None = extensions.get(TEXT_LANE)
        if self._lane is not None:
            self._lane.flush = self.flush  # before the server writes a frame of its own
        self.metrics = metrics
        self.alive = True
        # This pass's frames, not yet written: on the wire (headers and payloads, or whole frames
        # built by ``text_frames``), and as messages for the ASGI path should the lane decline them.
        self._wire: list[bytes] = []
        self._pending: list[Any] = []
        self._flusher = _flusher()
        self._awaiting = 0  # requests with an id on their way to a room (``expect_reply``)
        self._queue: deque[Any] = deque()
        self._limit = queue_size
        self._close_args = (1000, "")
        self._drain: asyncio.Task[None] | None = None  # sending through ASGI what the lane declined
        self._abort_timer: asyncio.TimerHandle | None = None

    def expect_reply(self) -> None:
        """A request with an id is on its way to a room (``NativeClient.act``): hold what this
        connection is sent until a reply, so the frames the request makes (the actor's game frame) and
        its ``ok`` leave in one write. Only a saving: a reply that never comes costs nothing but that,
        since what is held is written when the loop pass ends anyway."""
        self._awaiting += 1

    def send(self, message: dict[str, Any]) -> None:
        if not self.alive:
            return
        if message.get("type") == "error":
            self.metrics.errors.labels(message.get("code", "unknown")).inc()
        if self._awaiting and message.get("id") is not None:  # a reply: what it waited for goes now
            self._awaiting -= 1
            self._send(message)
            if not self._awaiting:
                self.flush()
            return
        self._send(message)

    def send_json(self, data: bytes) -> None:
        """``send`` a message the room encoded itself (a game message, rooms/encoding.py)."""
        if not self.alive:
            return
        # What every recipient of a game message meets, without ``_send`` and ``_put``: nothing is going
        # through ASGI or held for a reply, and the lane takes the frame now. Anything else: ``_send``.
        send_frames = self._send_frames
        if (
            send_frames is not None
            and self._drain is None
            and not self._wire
            and not self._awaiting
            and send_frames(text_frame(data))
        ):
            self.metrics.messages_out += 1
            return
        self._send(data)

    def _send(self, message: dict[str, Any] | bytes) -> None:
        send_frames = self._send_frames
        if self._drain is None and send_frames is not None:
            # Nothing is being sent through ASGI (so nothing to overtake): the common case, written
            # now, or held with what waits for a reply.
            payload = _encoded(message)
            self._put(text_frame(payload), [payload])
            return
        queue = self._queue
        if len(queue) >= self._limit:
            log.warning("event=slow_client_dropped queue=%d", self._limit)
            self.close(1013, "outbound queue overflow")
            return
        queue.append(message)
        if self._drain is None:
            self._start_drain()

    def send_all(self, messages: list[dict[str, Any]], frames: bytes | None = None) -> None:
        """``send`` each, in order, in one write.

        ``frames``: the same messages already encoded and framed (``text_frames``), when the
        caller sends them alike to several sockets and framed them once for all."""
        if not (self.alive and self._drain is None and self._send_frames is not None) or (
            frames is None and len(messages) < 2
        ):
            for message in messages:
                self.send(message)
            return
        if frames is None:
            frames = text_frames([json_bytes(m) for m in messages])
        self._put(frames, messages)

    def _put(self, frames: bytes, pending: list[Any]) -> None:
        """Write ``frames`` now, or hold them with what waits for a reply; if the lane declines them,
        ``pending`` (the same messages) goes out through ASGI in a task."""
        wire = self._wire
        if not wire:
            if not self._awaiting:
                if self._send_frames is not None and self._send_frames(frames):
                    self.metrics.messages_out += len(pending)
                    return
                self._queue.extend(pending)
                self._start_drain()
                return
            self._flusher.add(self)
        wire.append(frames)
        self._pending += pending

    def flush(self) -> None:
        """Write the held frames in one write; if the lane declines (socket busy or closing), they go
        out through ASGI ``send`` in a task, in order, as does everything sent after them."""
        wire = self._wire
        if not wire:
            return
        pending = self._pending
        self._wire, self._pending = [], []
        send_frames = self._send_frames
        if send_frames is not None and send_frames(b"".join(wire)):
            self.metrics.messages_out += len(pending)
            return
        self._queue.extend(pending)
        if self._drain is None:
            self._start_drain()

    def close(self, code: int = 1000, reason: str = "") -> None:
        """Stop sending and close the socket once what is queued (unless overflowing) is written."""
        if not self.alive:
            return
        self.alive = False
        self._close_args = (code, reason)
        self.flush()  # this pass's frames go before the close frame
        if len(self._queue) >= self._limit:
            # The peer stopped reading: a close frame would wait behind data it never reads.
            self._queue.clear()
            if self._abort():
                return
        self._queue.append(_CLOSE)
        if self._drain is None:
            self._start_drain()
        if self._drain is not None:  # the socket is busy: a peer that never reads must not keep it
            self._abort_timer = asyncio.get_running_loop().call_later(CLOSE_GRACE, self._abort)

    def _abort(self) -> bool:
        """Drop the TCP connection now (when the server offers it), unsent data and all."""
        abort = self.ws.scope.get("extensions", {}).get(ABORT)
        if abort is None:
            return False
        abort()
        return True

    def _start_drain(self) -> None:
        self._drain = asyncio.get_running_loop().create_task(self._drain_queue())

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
        if self._lane is not None:
            self._lane.flush = None
        drain = self._drain
        if self.alive:
            self.alive = False
            self._queue.clear()
            self._wire.clear()
            self._pending.clear()
            if drain is not None:
                drain.cancel()
        if drain is not None:
            with contextlib.suppress(asyncio.CancelledError, TimeoutError):
                await asyncio.wait_for(drain, timeout=2.0)
