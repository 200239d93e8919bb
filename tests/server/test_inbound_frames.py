"""Inbound frames parsed by the server's own fast path (``parlour.net.websocket_protocol``): exact
bytes written on raw sockets against a real ``parlour serve``, coalesced, split at every byte,
mixed with control and binary frames, malformed, oversized, and while the app is busy; plus the
frame parser itself on bytes and on a real ``websockets`` parser's state."""

from __future__ import annotations

import asyncio
import base64
import json
import os
import struct
from typing import Any

from websockets.frames import Opcode
from websockets.server import ServerProtocol

from parlour.net.websocket_protocol import at_frame_boundary, text_frame_at
from tests.server.client import Client

TEXT, BINARY, CLOSE, PING, PONG = 0x1, 0x2, 0x8, 0x9, 0xA


def frame(
    payload: bytes | str,
    opcode: int = TEXT,
    fin: bool = True,
    masked: bool = True,
    rsv: int = 0,
    long: bool = False,
) -> bytes:
    """One client frame (RFC 6455 §5.2), masked unless told; ``long`` forces the 64-bit length."""
    data = payload.encode() if isinstance(payload, str) else payload
    first = (0x80 if fin else 0) | rsv << 4 | opcode
    bit = 0x80 if masked else 0
    n = len(data)
    if long:
        header = struct.pack("!BBQ", first, bit | 127, n)
    elif n < 126:
        header = struct.pack("!BB", first, bit | n)
    elif n < 65536:
        header = struct.pack("!BBH", first, bit | 126, n)
    else:
        header = struct.pack("!BBQ", first, bit | 127, n)
    if not masked:
        return header + data
    mask = os.urandom(4)
    return header + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(data))


def msg(kind: str, request_id: int, **fields: Any) -> bytes:
    """A native request as one masked text frame."""
    return frame(json.dumps({"type": kind, "id": request_id, **fields}))


def action(request_id: int) -> bytes:
    """A game action (the server's text lane takes these at once)."""
    return msg("action", request_id, action={"type": "line", "x": 0, "y": 0, "d": 0})


class RawClient:
    """A websocket client on a raw TCP connection: writes exact bytes, reads server frames."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader = reader
        self.writer = writer
        self.messages: list[dict[str, Any]] = []
        self.pongs: list[bytes] = []

    @classmethod
    async def open(cls, port: int, name: str | None = "Raw", path: str = "/api/ws") -> RawClient:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        key = base64.b64encode(os.urandom(16)).decode()
        writer.write(
            f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n".encode()
        )
        head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10)
        assert b" 101 " in head.split(b"\r\n")[0], head
        client = cls(reader, writer)
        if name is not None:
            await client.write(msg("identify", 0, name=name))
            assert (await client.reply(0))["type"] == "welcome"
            client.messages.clear()
        return client

    async def write(self, data: bytes) -> None:
        self.writer.write(data)
        await self.writer.drain()

    async def read_frame(self) -> tuple[int, bytes]:
        """The next server frame (opcode, payload); (-1, b"") once the server closed the TCP stream."""
        try:
            head = await asyncio.wait_for(self.reader.readexactly(2), 10)
        except asyncio.IncompleteReadError:
            return -1, b""
        assert head[1] & 0x80 == 0, "a server never masks its frames"
        n = head[1] & 0x7F
        if n == 126:
            (n,) = struct.unpack("!H", await self.reader.readexactly(2))
        elif n == 127:
            (n,) = struct.unpack("!Q", await self.reader.readexactly(8))
        return head[0] & 0x0F, await self.reader.readexactly(n)

    async def next_message(self) -> dict[str, Any]:
        """The next text message; pongs are kept aside, anything else fails the test."""
        while True:
            opcode, payload = await self.read_frame()
            if opcode == PONG:
                self.pongs.append(payload)
                continue
            assert opcode == TEXT, (opcode, payload[:80])
            message: dict[str, Any] = json.loads(payload)
            self.messages.append(message)
            return message

    async def reply(self, request_id: int) -> dict[str, Any]:
        """Read on until the reply to ``request_id``."""
        while True:
            message = await self.next_message()
            if message.get("id") == request_id:
                return message

    async def reply_ids(self, ids: list[int]) -> list[int]:
        """Read on until each of ``ids`` has had a reply; the ids in the order their first replies came."""
        seen: list[int] = []
        while len(seen) < len(ids):
            request_id = (await self.next_message()).get("id")
            if request_id in ids and request_id not in seen:
                seen.append(request_id)
        return seen

    def answered(self) -> list[int]:
        """The ids of the replies read so far, in order."""
        return [m["id"] for m in self.messages if m.get("id") is not None]

    async def close_code(self) -> int | None:
        """Read on (text, pongs) to the server's close frame: its code (None if the stream just ended)."""
        while True:
            opcode, payload = await self.read_frame()
            if opcode == CLOSE:
                return int(struct.unpack("!H", payload[:2])[0]) if len(payload) >= 2 else 1005
            if opcode == -1:
                return None
            if opcode == TEXT:
                self.messages.append(json.loads(payload))
            elif opcode == PONG:
                self.pongs.append(payload)

    async def eof(self) -> bool:
        """True once the server has closed the TCP stream (after its close frame)."""
        return await asyncio.wait_for(self.reader.read(), 10) == b""

    async def close(self) -> None:
        self.writer.close()
        await self.writer.wait_closed()


# --- the frame parser on bytes ---------------------------------------------------------------------


def test_parser_takes_complete_masked_final_text_frames_only() -> None:
    short, medium = frame("hello"), frame("m" * 200)
    assert text_frame_at(short, 0, None) == (b"hello", len(short))
    assert text_frame_at(short + medium, len(short), 1 << 20) == (b"m" * 200, len(short) + len(medium))
    for n in range(len(short)):  # cut anywhere: nothing taken
        assert text_frame_at(short[:n], 0, None) is None
    for n in range(len(medium)):
        assert text_frame_at(medium[:n], 0, None) is None
    for other in (
        frame(b"\x00\x01", opcode=BINARY),
        frame(b"", opcode=PING),
        frame(b"", opcode=PONG),
        frame(struct.pack("!H", 1000), opcode=CLOSE),
        frame("part", fin=False),
        frame("part", opcode=0x0),  # a continuation
        frame("x", rsv=4),  # RSV1: compressed, and no extension was negotiated
        frame("x", rsv=1),
        frame("x", masked=False),
        frame("x", long=True),  # 64-bit lengths are left to websockets
        frame(b"x", opcode=0x3),  # a reserved opcode
    ):
        assert text_frame_at(other, 0, None) is None, other[:2]
    assert text_frame_at(medium, 0, 199) is None  # over the message size limit: websockets says 1009
    assert text_frame_at(medium, 0, 200) is not None
    assert text_frame_at(b"\xff\xfe" + frame("\u00e9t\u00e9") + b"\x88", 2, None) == (
        "\u00e9t\u00e9".encode(),
        13,
    )


def test_boundary_is_read_from_the_websockets_parser_state() -> None:
    conn = ServerProtocol(max_size=1 << 20)
    assert not at_frame_boundary(conn.parser)  # still reading the HTTP request
    key = base64.b64encode(os.urandom(16)).decode()
    conn.receive_data(
        f"GET / HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n".encode()
    )
    conn.send_response(conn.accept(conn.events_received()[0]))
    assert at_frame_boundary(conn.parser)
    data = frame("x" * 130)
    for cut in range(1, len(data)):
        conn.receive_data(data[:cut])
        assert not at_frame_boundary(conn.parser), cut  # includes the 2-byte header with nothing buffered
        conn.receive_data(data[cut:])
        assert at_frame_boundary(conn.parser)
        [event] = conn.events_received()
        assert event.opcode is Opcode.TEXT and event.data == b"x" * 130
    conn.receive_data(frame(struct.pack("!H", 1000), opcode=CLOSE))
    assert not at_frame_boundary(conn.parser)  # discarding after the close


# --- over real sockets ---------------------------------------------------------------------------


async def test_many_frames_in_one_write_are_all_answered(server) -> None:
    raw = await RawClient.open(server.port)
    # Pings go down the ASGI queue, actions to the lane (no room: not_in_room): both, 60 frames.
    ids = list(range(1, 61))
    await raw.write(b"".join(action(i) if i % 3 else msg("ping", i) for i in ids))
    replies = {i: await raw.reply(i) for i in ids}
    assert all(replies[i]["type"] == "pong" for i in ids if i % 3 == 0)
    assert all(replies[i]["code"] == "not_in_room" for i in ids if i % 3)
    await raw.close()


async def test_a_frame_split_at_every_byte_is_parsed_whole(server) -> None:
    raw = await RawClient.open(server.port)
    request_id = 1
    for size in (20, 200):  # a 7-bit and a 16-bit length
        for cut in range(1, len(msg("ping", request_id, pad="p" * size))):
            # An unknown field: a pong or a bad_message error, with the request's id either way.
            data = msg("ping", request_id, pad="p" * size)
            await raw.write(data[:cut])
            await asyncio.sleep(0.002)  # so the rest reaches the server in a read of its own
            # The rest with a whole frame after it: the server must not take that frame while the
            # split one is half-parsed.
            await raw.write(data[cut:] + msg("ping", request_id + 1))
            assert (await raw.reply(request_id))["type"] in ("pong", "error")
            assert (await raw.reply(request_id + 1))["type"] == "pong"
            request_id += 2
    await raw.close()


async def test_a_ping_between_two_text_frames_is_answered(server) -> None:
    raw = await RawClient.open(server.port)
    await raw.write(action(1) + frame(b"are you there", opcode=PING) + msg("ping", 2))
    assert (await raw.reply(1))["code"] == "not_in_room"
    assert (await raw.reply(2))["type"] == "pong"
    assert raw.pongs == [b"are you there"]
    await raw.write(frame(b"", opcode=PONG) + msg("ping", 3))  # an unsolicited pong changes nothing
    assert (await raw.reply(3))["type"] == "pong"
    await raw.close()


async def test_a_close_frame_right_after_a_text_frame(server) -> None:
    raw = await RawClient.open(server.port)
    await raw.write(action(1) + frame(struct.pack("!H", 1000) + b"bye", opcode=CLOSE) + msg("ping", 2))
    assert await raw.close_code() == 1000
    assert raw.answered() == [1]  # the action answered; nothing after the close
    assert await raw.eof()
    await raw.close()


async def test_an_unmasked_frame_fails_the_connection(server) -> None:
    raw = await RawClient.open(server.port)
    await raw.write(action(1) + frame('{"type": "ping", "id": 2}', masked=False) + msg("ping", 3))
    assert await raw.close_code() == 1002
    assert raw.answered() == [1]
    await raw.close()


async def test_invalid_utf8_closes_with_1007(server) -> None:
    raw = await RawClient.open(server.port)
    await raw.write(action(1) + frame(b'{"type": "ping", "id": 2, "x": "\xc3\x28"}') + msg("ping", 3))
    assert await raw.close_code() == 1007
    assert raw.answered() == [1]
    await raw.close()
    # A client's bad input is not a server error: no traceback in the log (uvicorn logs one).
    assert "Invalid UTF-8" not in server.log_path.read_text()


async def test_an_oversized_message_closes_with_1009(server) -> None:
    raw = await RawClient.open(server.port)
    # Only the header and mask: the announced length alone is refused (sending the megabyte would
    # race the server's close and end in a reset).
    await raw.write(action(1) + struct.pack("!BBQ", 0x81, 0x80 | 127, (1 << 20) + 1) + os.urandom(4))
    assert await raw.close_code() == 1009
    assert raw.answered() == [1]
    await raw.close()


async def test_medium_and_large_messages(server) -> None:
    raw = await RawClient.open(server.port)
    # 200 bytes (a 16-bit length, parsed by the fast path) and 70,000 bytes (64-bit, websockets).
    medium = msg("chat", 1, text="m" * 160)
    assert 200 <= len(medium) < 300
    await raw.write(medium + msg("chat", 2, text="L" * 70_000) + msg("ping", 3))
    assert (await raw.reply(1))["code"] == "not_in_room"
    too_large = await raw.next_message()  # the native limit (no id: the frame is not read); it stays open
    assert too_large["type"] == "error" and too_large["code"] == "frame_too_large"
    assert (await raw.reply(3))["type"] == "pong"
    await raw.close()


async def test_binary_frames_between_text_frames(server) -> None:
    raw = await RawClient.open(server.port)
    binary = frame(json.dumps({"type": "ping", "id": 2}).encode(), opcode=BINARY)
    await raw.write(msg("ping", 1) + binary + msg("ping", 3) + binary + action(4))
    assert await raw.reply_ids([1, 2, 3, 4]) == [1, 2, 3, 4]
    assert raw.answered() == [1, 2, 3, 2, 4]
    await raw.close()


async def test_frames_keep_their_order_while_the_app_is_busy(server) -> None:
    raw = await RawClient.open(server.port, "Host")
    await raw.write(msg("create_room", 1, game="dots", capacity=2))
    room = await raw.reply(1)
    guest = await Client.open(server.ws, "Guest")
    await guest.ok("join", code=room["code"])
    # Chats go to the app (which waits for the room); actions go to the lane when it is idle, and
    # must queue behind a chat still in hand. Before the game starts every action is refused by the
    # room, in the room's order: so replies and chat broadcasts come in exactly the order sent.
    frames, ids = [], list(range(10, 70))
    for i in ids:
        frames.append(msg("chat", i, text=f"c{i}") if i % 2 else action(i))
    await raw.write(b"".join(frames))
    assert await raw.reply_ids(ids) == ids
    assert [m["message"]["text"] for m in raw.messages if m["type"] == "chat"] == [
        f"c{i}" for i in ids if i % 2
    ]
    await guest.wait_for(lambda m: m.get("type") == "chat" and m["message"]["text"] == "c69")
    assert [m["message"]["text"] for m in guest.messages if m["type"] == "chat"] == [
        f"c{i}" for i in ids if i % 2
    ]
    await guest.close()
    await raw.close()


async def test_a_flooding_client_is_still_cut_off(server_factory) -> None:
    srv = server_factory(fast=False)  # the documented defaults: 40 burst, 20/s, then 50 refusals
    raw = await RawClient.open(srv.port)
    await raw.write(b"".join(action(i) for i in range(1, 401)))  # one write
    assert await raw.close_code() == 1008
    codes = [m.get("code") for m in raw.messages]
    assert codes.count("rate_limited") >= 40, codes
    await raw.close()


async def test_compressed_frames_with_permessage_deflate(server_factory) -> None:
    """With permessage-deflate negotiated, every frame is left to websockets (RSV1 and compressed)."""
    srv = server_factory({"PARLOUR_WS_DEFLATE": "true"})
    client = await Client.open(srv.ws, "Zipped")
    assert [e.name for e in client.ws.protocol.extensions] == ["permessage-deflate"]
    for _ in range(5):
        assert (await client.request("ping"))["type"] == "pong"
        assert (await client.request("chat", text="z" * 2000))["code"] == "not_in_room"  # compressed
        assert (await client.request("action", action={"type": "line", "x": 0, "y": 0, "d": 0}))["code"] == (
            "not_in_room"
        )
    await client.close()
