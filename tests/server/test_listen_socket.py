"""The socket ``--workers`` listens on: accepted connections must get ``TCP_NODELAY``.

Without it Nagle's algorithm held each small reply until the client's delayed ACK, adding ~40 ms
to every action on a worker (measured by ``bench/cluster_load.py``: p50 42 ms at two rooms).
"""

from __future__ import annotations

import asyncio
import socket

import uvloop

from parlour.cli import reuse_port_socket
from parlour.config import Config
from tests.ports import free_port


class _Accepted(asyncio.Protocol):
    def __init__(self, seen: asyncio.Future[int]) -> None:
        self.seen = seen

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        sock = transport.get_extra_info("socket")
        self.seen.set_result(sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))
        transport.close()


async def _accepted_nodelay(sock: socket.socket) -> int:
    loop = asyncio.get_running_loop()
    seen: asyncio.Future[int] = loop.create_future()
    server = await loop.create_server(lambda: _Accepted(seen), sock=sock)
    port = sock.getsockname()[1]
    _, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        return await asyncio.wait_for(seen, 5)
    finally:
        writer.close()
        server.close()


def test_workers_socket_accepts_connections_with_nodelay_on_uvloop() -> None:
    sock = reuse_port_socket(Config(host="127.0.0.1", port=free_port(), reuse_port=True))
    assert uvloop.run(_accepted_nodelay(sock)) == 1


def test_two_workers_can_bind_the_same_port() -> None:
    config = Config(host="127.0.0.1", port=free_port(), reuse_port=True)
    first, second = reuse_port_socket(config), reuse_port_socket(config)
    try:
        assert first.getsockname() == second.getsockname()
    finally:
        first.close()
        second.close()
