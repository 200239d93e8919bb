"""Helpers every plain-websocket adapter shares: decoding frames and running the socket.

``run_socket`` applies the limits a native socket has (connections per address, a frame rate that
closes a flooder, a timeout for a connection that never gets going) and ``sender`` a bounded
outbound queue: a peer that stops reading is dropped, never buffered for without end.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import orjson
from starlette.websockets import WebSocket, WebSocketDisconnect

from parlour.net.connection import CLOSE_GRACE, TokenBucket
from parlour.net.limits import client_key
from parlour.net.websocket_protocol import ABORT, SEND_TEXT

log = logging.getLogger(__name__)

MAX_FRAME = 64 * 1024

Send = Callable[[dict[str, Any]], Awaitable[None]]
Hangup = Callable[[], Awaitable[None]]


@dataclass(frozen=True, slots=True)
class Peer:
    """How a Socket.IO adapter client reaches its connection: emit to it, or drop it."""

    sid: str
    emit: Callable[[str, Any], Awaitable[None]]
    hangup: Hangup


class BadFrame(ValueError):
    """A frame that is not one JSON object; the message says what was wrong."""


def decode(text: str | bytes | None) -> dict[str, Any]:
    """One client frame as a dict, or BadFrame (non-JSON, ``null``, ``[]``, ``42``, oversize)."""
    if text is None:
        raise BadFrame("expected a text frame")
    if len(text) > MAX_FRAME:
        raise BadFrame("frame larger than 64 KiB")
    try:
        value = orjson.loads(text)
    except orjson.JSONDecodeError:
        raise BadFrame("not valid JSON") from None
    if not isinstance(value, dict):
        raise BadFrame("expected a JSON object")
    return value


def text_field(message: dict[str, Any], key: str) -> str | None:
    """``message[key]`` if it is a string, else None (missing, null, number...)."""
    value = message.get(key)
    return value if isinstance(value, str) else None


async def run_socket(
    websocket: WebSocket,
    on_frame: Callable[[str | bytes | None], Awaitable[None]],
    on_close: Callable[[], Awaitable[None]],
    started: Callable[[], bool] = lambda: True,
) -> None:
    """Accept, feed frames one at a time, and always run ``on_close`` (no Origin check).

    ``started`` says whether the client has got going (joined or created something); one that has
    not within ``identify_seconds`` is closed, like a native socket that never identifies.
    """
    state = websocket.app.state
    limits, address = state.limits, client_key(websocket.scope)
    if not limits.connect(address):
        await websocket.close(1008)
        return
    config, metrics = state.config, state.metrics
    # Twice the native allowance: requests that reach a room meet the native limit (and its
    # ``rate_limited`` replies) first; this one cuts frames the adapter refuses by itself.
    bucket = TokenBucket(2 * config.rate_per_second, 2 * config.rate_burst)
    patience = TokenBucket(5.0, 50)
    outbox = _outbox(websocket)
    await websocket.accept()
    metrics.connected(1)

    def idle() -> None:
        if not started():
            log.info("event=idle_unidentified_closed client=%s path=%s", address, websocket.url.path)
            outbox.close_soon()

    timer = asyncio.get_running_loop().call_later(config.identify_seconds, idle)
    try:
        while True:
            message = await websocket.receive()
            if message["type"] == "websocket.disconnect":
                break
            metrics.messages_in += 1
            if not bucket.take():  # over the rate: the frame is dropped unread
                if not patience.take():
                    log.warning("event=flood_closed client=%s path=%s", address, websocket.url.path)
                    outbox.close_soon()
                    break
                continue
            await on_frame(message.get("text") or message.get("bytes"))
    except WebSocketDisconnect:
        pass
    finally:
        timer.cancel()
        limits.disconnect(address)
        metrics.connected(-1)
        await on_close()
        await outbox.finish()


class Outbox:
    """An adapter socket's outbound frames: written at once when the socket takes them, else queued
    (at most ``limit``) and written by one task; a peer that lets the queue fill is cut off."""

    def __init__(self, websocket: WebSocket, limit: int) -> None:
        self.ws = websocket
        extensions = websocket.scope.get("extensions") or {}
        self._send_text: Callable[[bytes], bool] | None = extensions.get(SEND_TEXT)
        self._abort: Callable[[], None] | None = extensions.get(ABORT)
        self.limit = limit
        self.queue: deque[bytes] = deque()
        self.task: asyncio.Task[None] | None = None
        self.closing: asyncio.Task[None] | None = None  # a close frame on its way
        self.alive = True

    async def send(self, frame: dict[str, Any]) -> None:
        if not self.alive:
            return
        data = orjson.dumps(frame, option=orjson.OPT_NON_STR_KEYS)
        if self.task is None and self._send_text is not None and self._send_text(data):
            return
        if len(self.queue) >= self.limit:
            log.warning("event=slow_client_dropped queue=%d path=%s", self.limit, self.ws.url.path)
            self.hangup_now()
            return
        self.queue.append(data)
        if self.task is None:
            self.task = asyncio.get_running_loop().create_task(self._drain())

    async def _drain(self) -> None:
        try:
            while self.queue:
                # ``text`` must be a ``str`` under ASGI; a bytes frame would reach browsers as a Blob.
                await self.ws.send({"type": "websocket.send", "text": self.queue.popleft().decode()})
        except Exception:  # the peer went away mid-write; the reader notices
            self.alive = False
            self.queue.clear()
        finally:
            self.task = None

    def hangup_now(self) -> None:
        """Drop the connection now: a close frame would wait behind data a slow peer never reads."""
        if not self.alive:
            return
        self.alive = False
        self.queue.clear()
        if self._abort is not None:
            self._abort()
        else:
            asyncio.get_running_loop().create_task(self._close())

    def close_soon(self) -> None:
        """Close with 1008 once what is queued is written; a peer not reading is dropped instead."""
        if self.queue or self.task is not None:
            self.hangup_now()
        elif self.alive:
            self.alive = False
            self.closing = asyncio.get_running_loop().create_task(self._close())

    async def hangup(self) -> None:
        """The server drops the client (flood, overflow): close after what is queued, or at once."""
        if self.queue:
            self.hangup_now()
        elif self.alive:
            self.alive = False
            await self._close()

    async def _close(self) -> None:
        with contextlib.suppress(Exception):
            await self.ws.close(1008)

    async def finish(self) -> None:
        """The socket is done: stop writing and release it."""
        self.alive = False
        self.queue.clear()
        task = self.task
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        if self.closing is not None:
            try:
                await asyncio.wait_for(self.closing, CLOSE_GRACE)
            except TimeoutError:  # the close frame is stuck behind data the peer never reads
                if self._abort is not None:
                    self._abort()
        with contextlib.suppress(Exception):
            await self.ws.close()


def _outbox(websocket: WebSocket) -> Outbox:
    outbox = websocket.scope.get("parlour.outbox")
    if outbox is None:
        outbox = websocket.scope["parlour.outbox"] = Outbox(
            websocket, websocket.app.state.config.outbound_queue
        )
    return outbox


def sender(websocket: WebSocket) -> Send:
    """A send function that never blocks and never raises once the peer is gone."""
    return _outbox(websocket).send


def closer(websocket: WebSocket) -> Hangup:
    """A hang-up function for when the server drops the client (flood, overflow)."""
    return _outbox(websocket).hangup
