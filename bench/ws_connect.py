"""Connection set-up benchmark (not a test): the server CPU one websocket costs, and nothing else.

``python bench/ws_connect.py [--connections 3000] [--concurrency 20] [--path /dots] [--base-root DIR]``

Each round starts ``parlour serve`` (a subprocess, temporary data dir), warms it with 200
connections, then opens ``--connections`` more, ``--concurrency`` at a time, each over a raw TCP
socket: the HTTP upgrade, the 101, a close frame from the client, the server's close, the TCP close.
Measured: the server's CPU time (psutil, user + system) per connection. With ``--base-root`` (a
worktree of another commit, run with this interpreter) the rounds alternate between the two trees,
``--repeat`` times each; the median is reported with every round, since a shared machine drifts.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import os
import statistics
import struct
import sys
import tempfile
from pathlib import Path

import psutil

sys.path.insert(0, str(Path(__file__).resolve().parent))
from server_load import free_port, start_parlour

CLOSE = bytes((0x88, 0x82)) + b"\0\0\0\0" + struct.pack("!H", 1000)  # masked with a zero key


async def one(port: int, path: str) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    key = base64.b64encode(os.urandom(16)).decode()
    writer.write(
        f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n".encode()
    )
    head = await reader.readuntil(b"\r\n\r\n")
    if b" 101 " not in head.split(b"\r\n")[0]:
        raise RuntimeError(f"no upgrade: {head[:80]!r}")
    writer.write(CLOSE)
    await reader.read()  # to the server's close
    writer.close()


async def many(port: int, path: str, count: int, concurrency: int) -> None:
    gate = asyncio.Semaphore(concurrency)

    async def guarded() -> None:
        async with gate:
            await one(port, path)

    await asyncio.gather(*(guarded() for _ in range(count)))


def round_(root: str | None, args: argparse.Namespace) -> float:
    """Server CPU microseconds per connection, one server of ``root``."""
    with tempfile.TemporaryDirectory(prefix="parlour-connect-") as data_dir:
        port = free_port()
        server = start_parlour(port, data_dir, set(range(os.cpu_count() or 1)), root)
        try:
            process = psutil.Process(server.pid)
            asyncio.run(many(port, args.path, 200, args.concurrency))
            before = sum(process.cpu_times()[:2])
            asyncio.run(many(port, args.path, args.connections, args.concurrency))
            return 1e6 * (sum(process.cpu_times()[:2]) - before) / args.connections
        finally:
            server.terminate()
            server.wait()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--connections", type=int, default=3000)
    parser.add_argument("--concurrency", type=int, default=20)
    parser.add_argument("--path", default="/dots")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--base-root", help="a worktree of the commit to compare with")
    args = parser.parse_args()
    trees: dict[str, str | None] = {"this": None}
    if args.base_root:
        trees["base"] = args.base_root
    rounds: dict[str, list[float]] = {name: [] for name in trees}
    for _ in range(args.repeat):
        for name, root in trees.items():
            rounds[name].append(round_(root, args))
    for name, values in rounds.items():
        shown = ", ".join(f"{v:.0f}" for v in values)
        median = statistics.median(values)
        print(f"{name:5} {args.path}: server CPU per connection {median:.0f} us (rounds {shown})")


if __name__ == "__main__":
    main()
