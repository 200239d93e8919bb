"""The outbound queue in-process: a client that stops reading is dropped, never blocking the room."""

from __future__ import annotations

import asyncio

import orjson
import pytest
from websockets.frames import Frame, Opcode

from parlour.net.connection import Connection, TokenBucket
from parlour.net.metrics import Metrics
from parlour.net.websocket_protocol import SEND_FRAMES, text_frame


class StuckSocket:
    """A websocket whose peer never reads: the first send blocks forever."""

    def __init__(self) -> None:
        self.scope: dict = {"extensions": {}}  # no fast lane: every frame takes the ASGI path
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


@pytest.mark.parametrize("size", [0, 1, 125, 126, 65535, 65536, 200_000])
def test_text_frame_parses_as_one_final_unmasked_text_frame(size: int) -> None:
    payload = ("é" * size).encode()[:size]  # any bytes; the parser checks framing, not UTF-8
    wire = text_frame(payload)
    reader = Frame.parse(_reader(wire).read_exact, mask=False)
    try:
        next(reader)
        raise AssertionError("parser wanted more bytes than the frame holds")
    except StopIteration as done:
        frame = done.value
    assert (frame.opcode, frame.fin, bytes(frame.data)) == (Opcode.TEXT, True, payload)


def _reader(data: bytes):
    class Exact:
        def __init__(self) -> None:
            self.pos = 0

        def read_exact(self, n: int):
            chunk = data[self.pos : self.pos + n]
            self.pos += n
            return chunk
            yield  # a generator, as websockets' parser expects

    return Exact()


def _payloads(wire: bytes) -> list[bytes]:
    """The payloads of the whole, unmasked text frames ``wire`` holds, parsed by ``websockets``."""
    reader, payloads = _reader(wire), []
    while reader.pos < len(wire):
        parser = Frame.parse(reader.read_exact, mask=False)
        try:
            next(parser)
            raise AssertionError("a frame cut off")
        except StopIteration as done:
            assert (done.value.opcode, done.value.fin) == (Opcode.TEXT, True)
            payloads.append(bytes(done.value.data))
    return payloads


class LaneSocket(StuckSocket):
    """A socket whose server offers the fast lane; ``open`` says whether the lane takes frames.
    ``writes`` holds each write's payloads, ``lane`` all of them."""

    def __init__(self) -> None:
        super().__init__()
        self.writes: list[list[bytes]] = []
        self.open = True
        self.scope = {"extensions": {SEND_FRAMES: self.send_frames}}

    def send_frames(self, wire: bytes) -> bool:
        if self.open:
            self.writes.append(_payloads(wire))
        return self.open

    @property
    def lane(self) -> list[bytes]:
        return [payload for write in self.writes for payload in write]


async def test_fast_lane_takes_frames_and_falls_back_in_order() -> None:
    ws = LaneSocket()
    conn = Connection(ws, Metrics(), queue_size=8)  # type: ignore[arg-type]
    conn.send({"type": "chat", "n": 1})
    await asyncio.sleep(0)  # written at the end of the loop pass
    assert [orjson.loads(f) for f in ws.lane] == [{"type": "chat", "n": 1}] and ws.sent == []
    ws.open = False  # e.g. the write buffer is full: the ASGI path, which waits
    conn.send({"type": "chat", "n": 2})
    await asyncio.sleep(0)
    ws.open = True
    conn.send({"type": "chat", "n": 3})  # queued behind the waiting frame, not overtaking it
    await asyncio.sleep(0)
    assert len(ws.lane) == 1 and [orjson.loads(t)["n"] for t in ws.sent] == [2]
    ws.never.set()
    await asyncio.sleep(0.01)
    assert [orjson.loads(t)["n"] for t in ws.sent] == [2, 3]
    conn.close()
    await asyncio.sleep(0.01)
    assert ws.closed == (1000, "")
    await conn.finish()


async def test_pre_encoded_messages_share_the_lane_and_the_queue_in_order() -> None:
    """``send_json`` (a game message the room encoded itself) is written as it is, and queued in
    order with the other messages while the socket is busy; the ASGI path sends it as text."""
    ws = LaneSocket()
    conn = Connection(ws, Metrics(), queue_size=8)  # type: ignore[arg-type]
    conn.send_json(b'{"type":"game","seq":1}')
    await asyncio.sleep(0)
    assert ws.lane == [b'{"type":"game","seq":1}'] and ws.sent == []
    ws.open = False
    conn.send({"type": "chat", "n": 2})
    await asyncio.sleep(0)
    ws.open = True
    conn.send_json(b'{"type":"game","seq":3}')  # behind the waiting frame, not overtaking it
    await asyncio.sleep(0)
    assert len(ws.lane) == 1
    ws.never.set()
    await asyncio.sleep(0.01)
    assert ws.sent == ['{"type":"chat","n":2}', '{"type":"game","seq":3}']
    assert all(isinstance(text, str) for text in ws.sent)
    conn.close()
    await asyncio.sleep(0.01)
    conn.send_json(b'{"type":"game","seq":4}')  # closed: dropped
    assert len(ws.sent) == 2 and len(ws.lane) == 1
    await conn.finish()
