"""Helpers every plain-websocket adapter shares: decoding frames and running the socket."""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import orjson
from starlette.websockets import WebSocket, WebSocketDisconnect

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
) -> None:
    """Accept, feed frames one at a time, and always run ``on_close`` (no Origin check)."""
    await websocket.accept()
    try:
        while True:
            message = await websocket.receive()
            if message["type"] == "websocket.disconnect":
                break
            await on_frame(message.get("text") or message.get("bytes"))
    except WebSocketDisconnect:
        pass
    finally:
        await on_close()
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
