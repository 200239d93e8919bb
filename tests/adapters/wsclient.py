"""A recording JSON-over-websocket client for the Dots, Cheat and native protocols in tests."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Callable
from typing import Any

import websockets

Message = dict[str, Any]


class WsClient:
    """Records every frame; ``expect`` waits for the next frame matching a predicate."""

    def __init__(self, ws: Any) -> None:
        self.ws = ws
        self.messages: list[Message] = []
        self.cursor = 0
        self.closed = False
        self._arrived = asyncio.Event()
        self._reader = asyncio.get_running_loop().create_task(self._read())

    @classmethod
    async def open(cls, url: str) -> WsClient:
        return cls(await websockets.connect(url))

    async def _read(self) -> None:
        try:
            async for frame in self.ws:
                self.messages.append(json.loads(frame))
                self._arrived.set()
        except websockets.ConnectionClosed:
            pass
        finally:
            self.closed = True
            self._arrived.set()

    async def send(self, message: Any) -> None:
        await self.ws.send(message if isinstance(message, str) else json.dumps(message))

    async def expect(
        self, pred: Callable[[Message], bool], timeout: float = 5.0, *, advance: bool = True
    ) -> Message:
        """The first message after the cursor matching ``pred``; the cursor moves past it if ``advance``."""
        deadline = asyncio.get_running_loop().time() + timeout
        while True:
            for i in range(self.cursor, len(self.messages)):
                if pred(self.messages[i]):
                    if advance:
                        self.cursor = i + 1
                    return self.messages[i]
            left = deadline - asyncio.get_running_loop().time()
            if left <= 0 or self.closed:
                raise AssertionError(f"no matching message; got {self.messages[self.cursor :]}")
            self._arrived.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._arrived.wait(), left)

    async def expect_key(self, key: str, value: str, timeout: float = 5.0) -> Message:
        """The next message whose ``key`` (``type`` or ``action``) is ``value``."""
        return await self.expect(lambda m: m.get(key) == value, timeout)

    async def quiet(self, seconds: float = 0.3) -> list[Message]:
        """Everything that arrives within ``seconds`` (the cursor moves past it)."""
        await asyncio.sleep(seconds)
        new = self.messages[self.cursor :]
        self.cursor = len(self.messages)
        return new

    async def close(self) -> None:
        await self.ws.close()
        self._reader.cancel()


class Native(WsClient):
    """The native protocol, just enough for mixed-room tests."""

    _next = 0

    async def request(self, kind: str, **fields: Any) -> Message:
        Native._next += 1
        rid = Native._next
        await self.send({"type": kind, "id": rid, **fields})
        return await self.expect(lambda m: m.get("id") == rid, advance=False)
