"""The outbound queue in-process: a client that stops reading is dropped, never blocking the room."""

from __future__ import annotations

import asyncio

from parlour.net.connection import Connection, TokenBucket
from parlour.net.metrics import Metrics


class StuckSocket:
    """A websocket whose peer never reads: the first send blocks forever."""

    def __init__(self) -> None:
        self.sent: list[str] = []
        self.closed: tuple[int, str] | None = None
        self.never = asyncio.Event()

    async def send(self, message: dict[str, str]) -> None:
        self.sent.append(message["text"])
        await self.never.wait()

    async def close(self, code: int = 1000, reason: str = "") -> None:
        self.closed = (code, reason)


async def test_overflowing_client_is_dropped_without_blocking() -> None:
    ws = StuckSocket()
    conn = Connection(ws, Metrics(), queue_size=8)  # type: ignore[arg-type]
    for i in range(50):
        conn.send({"type": "chat", "n": i})  # never blocks, even though nothing drains
    assert not conn.alive
    ws.never.set()
    await asyncio.sleep(0.01)
    assert ws.closed == (1013, "outbound queue overflow")
    assert len(ws.sent) <= 2
    await conn.finish()


def test_token_bucket_refills() -> None:
    bucket = TokenBucket(rate=1000.0, capacity=3)
    assert [bucket.take() for _ in range(4)] == [True, True, True, False]
    bucket.stamp -= 0.01
    assert bucket.take()
