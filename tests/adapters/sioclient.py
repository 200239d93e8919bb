"""A recording python-socketio AsyncClient for the UNO Socket.IO adapter tests."""

from __future__ import annotations

import asyncio
import contextlib
import re
from collections.abc import Callable
from typing import Any

import aiohttp
import socketio

Event = tuple[str, Any]


def v3_packets(body: str) -> list[str]:
    """A v3 polling body split by its ``<length>:`` prefixes, lengths in UTF-16 units as in JavaScript."""
    out = []
    while body:
        match = re.match(r"(\d+):", body)
        assert match, body
        units, end = int(match.group(1)), match.end()
        while units > 0:
            units -= 2 if ord(body[end]) > 0xFFFF else 1
            end += 1
        assert units == 0, body
        out.append(body[match.end() : end])
        body = body[end:]
    return out


class Recorder:
    """Records every (event, data); ``expect`` waits for the next matching event after the cursor."""

    def __init__(self) -> None:
        self.events: list[Event] = []
        self.cursor = 0
        self._arrived = asyncio.Event()

    def _record(self, event: str, data: Any = None) -> None:
        self.events.append((event, data))
        self._arrived.set()

    async def next_matching(self, pred: Callable[[str, Any], bool], timeout: float = 5.0) -> Event:
        """The next (event, data) after the cursor matching ``pred``; the cursor moves past it."""
        deadline = asyncio.get_running_loop().time() + timeout
        while True:
            for i in range(self.cursor, len(self.events)):
                if pred(*self.events[i]):
                    self.cursor = i + 1
                    return self.events[i]
            left = deadline - asyncio.get_running_loop().time()
            if left <= 0:
                raise AssertionError(f"no matching event; got {self.events[self.cursor :]}{self.gone()}")
            self._arrived.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._arrived.wait(), left)

    def gone(self) -> str:
        """Why the client is no longer connected, for a failed wait (empty while it is)."""
        return ""

    async def expect(
        self, event: str, pred: Callable[[Any], bool] = lambda d: True, timeout: float = 5.0
    ) -> Any:
        """The data of the next ``event`` whose data matches ``pred``."""
        return (await self.next_matching(lambda name, data: name == event and pred(data), timeout))[1]

    async def next_event(self, timeout: float = 5.0) -> Event:
        return await self.next_matching(lambda name, data: True, timeout)

    def last(self, event: str) -> Any:
        return next(data for name, data in reversed(self.events) if name == event)


class SioClient(Recorder):
    """A python-socketio (Socket.IO v5 / Engine.IO v4) client, recording what it receives.

    Each client is a browser of its own (a fresh cookie jar) unless given another one's ``jar``.
    """

    def __init__(self, jar: aiohttp.CookieJar | None = None) -> None:
        super().__init__()
        self.jar = jar if jar is not None else aiohttp.CookieJar(unsafe=True)  # unsafe: 127.0.0.1
        self.http = aiohttp.ClientSession(cookie_jar=self.jar)
        self.sio = socketio.AsyncClient(reconnection=False, http_session=self.http)
        self.sio.on("*", self._on_any)

    @classmethod
    async def open(
        cls, server: Any, name: str | None = None, token: str | None = None, *, polling: bool = False
    ) -> SioClient:
        """``polling``: start on HTTP long-polling and upgrade to the websocket, as browsers do."""
        client = cls()
        fields = {"name": name, "token": token}
        auth = {k: v for k, v in fields.items() if v is not None} or None
        transports = ["polling", "websocket"] if polling else ["websocket"]
        await client.sio.connect(f"http://127.0.0.1:{server.port}", auth=auth, transports=transports)
        return client

    @property
    def sid(self) -> str:
        return self.sio.get_sid()

    async def _on_any(self, event: str, data: Any = None) -> None:
        self._record(event, data)

    async def emit(self, event: str, data: Any = None) -> None:
        await self.sio.emit(event, data)

    async def close(self) -> None:
        await self.sio.disconnect()
        await self.http.close()
