"""Helpers every plain-websocket adapter shares: decoding frames and running the socket.

A plain-websocket adapter runs on the same fast lanes as the native protocol
(``net/websocket_protocol.py``): its frames go out through a ``Connection`` (written at once in
the caller's task when the socket takes them, else queued, bounded), and a frame the adapter can
handle without waiting (a game move) is taken in ``data_received`` by ``frame_now``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import orjson
from starlette.websockets import WebSocket, WebSocketDisconnect

from parlour.net.connection import Connection, TokenBucket
from parlour.net.limits import client_key
from parlour.net.websocket_protocol import TEXT_LANE, TextLane

log = logging.getLogger(__name__)

MAX_FRAME = 64 * 1024

Send = Callable[[dict[str, Any]], Awaitable[None]]
Hangup = Callable[[], Awaitable[None]]
Post = Callable[[dict[str, Any]], None]
"""Sends one frame now or queues it; never blocks, never raises."""


@dataclass(frozen=True, slots=True)
class Peer:
    """How a Socket.IO adapter client reaches its connection: emit to it, or drop it.

    Neither waits, so an adapter can translate inside the room's delivery: ``emit(event, data)``
    queues the event for the connection at once, in order (nothing once the peer is gone);
    ``hangup()`` starts closing the connection.
    """

    sid: str
    emit: Callable[[str, Any], None]
    hangup: Callable[[], None]


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


def outbound(websocket: WebSocket) -> Connection:
    """The socket's outbound side: ``send(frame)`` writes now or queues (bounded, as native)."""
    state = websocket.app.state
    return Connection(websocket, state.metrics, state.config.outbound_queue)


async def run_socket(
    websocket: WebSocket,
    on_frame: Callable[[str | bytes | None], Awaitable[None]],
    on_close: Callable[[], Awaitable[None]],
    out: Connection | None = None,
    frame_now: Callable[[str], bool] | None = None,
    started: Callable[[], bool] = lambda: True,
    protocol: str = "native",
) -> None:
    """Accept, feed frames one at a time, and always run ``on_close`` (no Origin check).

    ``frame_now(text)`` is offered each text frame that arrives while no earlier one is being
    handled; it returns False (having done nothing) for a frame ``on_frame`` must take.
    The limits a native socket has hold here too: connections per address, a frame rate that
    closes a flooder (frames the adapter refuses by itself included), and ``started``: a client
    that has not joined or created anything within ``identify_seconds`` is closed. ``protocol``
    names the wire protocol whose rate (``PARLOUR_PROTOCOL_RATES``) the frame rate follows.
    """
    state = websocket.app.state
    limits, address = state.limits, client_key(websocket.scope)
    if not limits.connect(address):
        await websocket.close(1008)
        return
    config, metrics = state.config, state.metrics
    # Twice the native allowance: requests that reach a room meet the native limit (and its
    # ``rate_limited`` replies) first; this one cuts frames the adapter refuses by itself.
    rate, burst = config.rate_for(protocol)
    bucket, patience = TokenBucket(2 * rate, 2 * burst), TokenBucket(5.0, 50)

    def close(reason: str) -> None:
        if out is not None:
            out.close(1008, reason)
        else:
            asyncio.get_running_loop().create_task(websocket.close(1008))

    def idle() -> None:
        if not started():
            log.info("event=idle_unidentified_closed client=%s path=%s", address, websocket.url.path)
            close("join or create a room first")

    timer = asyncio.get_running_loop().call_later(config.identify_seconds, idle)
    metrics.connected(1)
    try:
        await _serve(websocket, on_frame, on_close, out, frame_now, bucket, patience, close, address)
    finally:
        timer.cancel()
        limits.disconnect(address)
        metrics.connected(-1)


async def _serve(
    websocket: WebSocket,
    on_frame: Callable[[str | bytes | None], Awaitable[None]],
    on_close: Callable[[], Awaitable[None]],
    out: Connection | None,
    frame_now: Callable[[str], bool] | None,
    bucket: TokenBucket,
    patience: TokenBucket,
    close: Callable[[str], None],
    address: str,
) -> None:
    await websocket.accept()
    lane: TextLane | None = websocket.scope.get("extensions", {}).get(TEXT_LANE) if frame_now else None
    if lane is not None and frame_now is not None:
        # The lane hands actions to the room as data, without the native frame-size check: it only
        # takes frames whose every character, escaped, still fits that limit; longer ones take the
        # ordinary path and its full checks.
        longest = int(websocket.scope["app"].state.config.max_frame) // 8
        take = frame_now
        lane.handler = lambda text: len(text) <= longest and take(text)
    closing = False
    try:
        while True:
            message = await websocket.receive()
            if message["type"] == "websocket.disconnect":
                break
            if closing:
                continue  # still read (so the peer's close reply is seen), never handle
            if not bucket.take():  # over the rate: the frame is dropped unread
                if not patience.take():
                    log.warning("event=flood_closed client=%s path=%s", address, websocket.url.path)
                    close("rate limit exceeded")
                    closing = True  # reading on until the close completes: a paused reader never would
                continue
            if lane is not None:
                lane.busy = True  # frames arriving meanwhile wait their turn in the queue
            try:
                await on_frame(message.get("text") or message.get("bytes"))
            finally:
                if lane is not None:
                    lane.busy = False
    except WebSocketDisconnect:
        pass
    finally:
        if lane is not None:
            lane.handler = None
        await on_close()
        if out is not None:
            await out.finish()
        else:
            with contextlib.suppress(Exception):
                await websocket.close()


def sender(websocket: WebSocket) -> Send:
    """A send function that never raises once the peer is gone."""

    async def send(frame: dict[str, Any]) -> None:
        text = orjson.dumps(frame, option=orjson.OPT_NON_STR_KEYS).decode()
        with contextlib.suppress(Exception):
            await websocket.send_text(text)

    return send


def closer(websocket: WebSocket) -> Hangup:
    """A hang-up function for when the server drops the client (flood, overflow)."""

    async def close() -> None:
        with contextlib.suppress(Exception):
            await websocket.close(1008)

    return close
