"""A client that sends its first websocket frames in the same TCP write as its HTTP upgrade request
(raw socket, one ``sendall``, against a real ``parlour serve``): the server answers the upgrade with
101 and then every one of those frames, in order, as if they had come in writes of their own."""

from __future__ import annotations

import base64
import contextlib
import json
import os
import socket
import struct
from typing import Any

import httptools
from websockets.server import ServerProtocol

from parlour.net.http_protocol import upgrade_request
from tests.server.test_inbound_frames import PING, PONG, TEXT, frame, msg


def upgrade(path: str = "/api/ws") -> bytes:
    key = base64.b64encode(os.urandom(16)).decode()
    return (
        f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n"
    ).encode()


class Blocking:
    """The server's side of one raw connection, read with a blocking socket."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.buffer = b""

    def read(self, n: int) -> bytes:
        while len(self.buffer) < n:
            chunk = self.sock.recv(65536)
            assert chunk, "the server closed the connection"
            self.buffer += chunk
        data, self.buffer = self.buffer[:n], self.buffer[n:]
        return data

    def head(self) -> bytes:
        """The HTTP response head (status line and headers)."""
        while b"\r\n\r\n" not in self.buffer:
            chunk = self.sock.recv(65536)
            assert chunk, "the server closed the connection"
            self.buffer += chunk
        head, _, self.buffer = self.buffer.partition(b"\r\n\r\n")
        return head

    def frame(self) -> tuple[int, bytes]:
        first, second = self.read(2)
        n = second & 0x7F
        if n == 126:
            (n,) = struct.unpack("!H", self.read(2))
        elif n == 127:
            (n,) = struct.unpack("!Q", self.read(8))
        return first & 0x0F, self.read(n)

    def message(self) -> dict[str, Any]:
        opcode, payload = self.frame()
        assert opcode == TEXT, (opcode, payload[:80])
        result: dict[str, Any] = json.loads(payload)
        return result


def connect(port: int) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", port), timeout=10)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return sock


def test_a_frame_in_the_upgrade_write_is_answered(server) -> None:
    with connect(server.port) as sock:
        sock.sendall(upgrade() + msg("identify", 1, name="Early"))
        conn = Blocking(sock)
        assert b" 101 " in conn.head().split(b"\r\n")[0]
        welcome = conn.message()
        assert (welcome["type"], welcome["id"]) == ("welcome", 1)


def test_several_frames_and_a_ping_in_the_upgrade_write_come_after_the_101(server) -> None:
    with connect(server.port) as sock:
        sock.sendall(
            upgrade() + msg("identify", 1, name="Early") + frame(b"early ping", opcode=PING) + msg("ping", 2)
        )
        conn = Blocking(sock)
        assert b" 101 " in conn.head().split(b"\r\n")[0]  # nothing (not even a pong) before it
        replies, pongs = [], []
        while len(replies) < 2 or not pongs:
            opcode, payload = conn.frame()
            if opcode == PONG:
                pongs.append(payload)
            else:
                assert opcode == TEXT
                replies.append(json.loads(payload))
        assert pongs == [b"early ping"]
        assert [(m["type"], m["id"]) for m in replies] == [("welcome", 1), ("pong", 2)]


def status(port: int, request: bytes) -> bytes:
    """The status line the server answers ``request`` with."""
    with connect(port) as sock:
        sock.sendall(request)
        return Blocking(sock).head().split(b"\r\n")[0]


def test_upgrade_requests_websockets_refuses_are_refused_as_before(server) -> None:
    good = upgrade().decode()
    key = good.split("Sec-WebSocket-Key: ")[1].split("\r\n")[0]
    cases: dict[str, bytes] = {
        good.replace(f"Sec-WebSocket-Key: {key}\r\n", ""): b"HTTP/1.1 400 Bad Request",
        good.replace(f"Sec-WebSocket-Key: {key}", "Sec-WebSocket-Key: short"): b"HTTP/1.1 400 Bad Request",
        good.replace("Sec-WebSocket-Version: 13", "Sec-WebSocket-Version: 8"): b"HTTP/1.1 400 Bad Request",
        good.replace("GET", "POST", 1): b"HTTP/1.1 405 Method Not Allowed",
    }
    for request, expected in cases.items():
        assert status(server.port, request.encode()) == expected, request[:120]
    assert b" 101 " in status(server.port, good.replace("\r\n\r\n", "\r\nContent-Length: 0\r\n\r\n").encode())


def test_the_request_built_from_httptools_fields_is_the_one_websockets_parses() -> None:
    raw = upgrade("/dots?x=1").replace(b"\r\n\r\n", b"\r\nX-Latin: caf\xe9 \r\n\r\n")
    fields: list[tuple[bytes, bytes]] = []

    class Fields:
        def on_header(self, name: bytes, value: bytes) -> None:
            fields.append((name.lower(), value))

    parser = httptools.HttpRequestParser(Fields())
    with contextlib.suppress(httptools.HttpParserUpgrade):
        parser.feed_data(raw)
    conn = ServerProtocol()
    conn.receive_data(raw)
    [parsed] = conn.events_received()
    built = upgrade_request("GET", b"/dots?x=1", fields)
    assert built is not None
    assert (built.path, built.method, list(built.headers.raw_items())) == (
        parsed.path,
        parsed.method,
        [(name.lower(), value) for name, value in parsed.headers.raw_items()],
    )
    for refused in (b"Transfer-Encoding", b"Content-Length"):
        assert upgrade_request("GET", b"/", [*fields, (refused.lower(), b"5")]) is None
    assert upgrade_request("GET", b"/", [(b"x-n", b"1")] * 129) is None
    assert upgrade_request("GET", b"/", [(b"bad name", b"1")]) is None
    assert upgrade_request("GET", "/caf\u00e9".encode(), fields) is None
