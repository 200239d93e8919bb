"""Client CPU per Redis round trip (not a test): ``python bench/redis_roundtrip.py [--n N]``.

Why the cluster's hot path (parlour/store/resp.py) does not use redis-py: the same PUBLISH, awaited one
at a time against a private ``redis-server``, through redis-py's asyncio client and through
``RespConnection``; user and system CPU of this process per round trip (getrusage), under uvloop.
"""

from __future__ import annotations

import argparse
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import orjson
import uvloop
from redis import asyncio as aioredis

from parlour.store.resp import RespConnection

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.ports import free_port  # ports outside the kernel's ephemeral range

PAYLOAD = b"x" * 300


async def _time(n: int, call: Callable[[], Awaitable[Any]]) -> dict[str, float]:
    for _ in range(200):  # warm up
        await call()
    before, start = resource.getrusage(resource.RUSAGE_SELF), time.perf_counter()
    for _ in range(n):
        await call()
    after, wall = resource.getrusage(resource.RUSAGE_SELF), time.perf_counter() - start
    return {
        "user_us": round((after.ru_utime - before.ru_utime) / n * 1e6, 1),
        "sys_us": round((after.ru_stime - before.ru_stime) / n * 1e6, 1),
        "wall_us": round(wall / n * 1e6, 1),
    }


async def _measure(url: str, n: int) -> dict[str, Any]:
    client = aioredis.Redis.from_url(url)
    plain = RespConnection(url)
    try:
        return {
            "redis-py asyncio": await _time(n, lambda: client.publish("bench", PAYLOAD)),
            "RespConnection": await _time(n, lambda: plain.run([("PUBLISH", "bench", PAYLOAD)])),
        }
    finally:
        plain.close()
        await client.aclose()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=5000, help="round trips per client (5000)")
    args = parser.parse_args()
    port = free_port()
    binary = shutil.which("redis-server") or "/usr/bin/redis-server"
    with tempfile.TemporaryDirectory() as tmp:
        server = subprocess.Popen(
            [binary, "--port", str(port), "--bind", "127.0.0.1", "--dir", tmp, "--save", ""],
            stdout=subprocess.DEVNULL,
        )
        try:
            time.sleep(0.5)
            result = uvloop.run(_measure(f"redis://127.0.0.1:{port}/0", args.n))
        finally:
            server.terminate()
            server.wait(10)
    print(orjson.dumps(result, option=orjson.OPT_INDENT_2).decode())


if __name__ == "__main__":
    main()
