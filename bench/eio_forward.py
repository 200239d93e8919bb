"""Engine.IO across nodes (not a test): ``python bench/eio_forward.py [--rounds N]``.

Two ``parlour serve --redis`` nodes. One Engine.IO v3 session, handshake on node A; then, measured in
one run and interleaved (``--rounds`` each, in blocks of 50):

- ``poll local`` / ``poll forwarded``: a ping POSTed and its pong fetched by a poll, both requests to
  A (the holder) vs both to B (each forwarded to A over Redis);
- ``ws local`` / ``ws relayed``: a ping and its pong over a websocket upgraded on A vs on B (relayed).

For each: p50/p99 round-trip time and server CPU per round trip (both nodes plus redis-server, psutil).
All traffic stays on 127.0.0.1.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import aiohttp
import orjson
import psutil
import websockets

sys.path.insert(0, str(Path(__file__).resolve().parent))
import cluster_load as cluster  # its redis and node helpers
import server_load as load

BLOCK = 50


async def _session(http: aiohttp.ClientSession, port: int) -> str:
    async with http.get(f"http://127.0.0.1:{port}/socket.io/?EIO=3&transport=polling") as r:
        body = await r.text()
    return str(orjson.loads(body[body.index(":") + 2 : body.index("}") + 1])["sid"])  # "<n>:0{...}"


async def _poll_ping(http: aiohttp.ClientSession, port: int, sid: str) -> None:
    url = f"http://127.0.0.1:{port}/socket.io/?EIO=3&transport=polling&sid={sid}"
    async with http.post(url, data=b"1:2", headers={"Content-Type": "text/plain"}) as r:
        assert r.status == 200
    while True:
        async with http.get(url) as r:
            if "1:3" in (await r.text()):
                return


async def _upgraded(port: int, sid: str) -> Any:
    ws = await websockets.connect(f"ws://127.0.0.1:{port}/socket.io/?EIO=3&transport=websocket&sid={sid}")
    await ws.send("2probe")
    assert await ws.recv() == "3probe"
    await ws.send("5")
    return ws


async def _ws_ping(ws: Any) -> None:
    await ws.send("2")
    while await ws.recv() != "3":
        pass


async def run(rounds: int) -> dict[str, dict[str, float]]:
    with tempfile.TemporaryDirectory() as tmp:
        redis, url = cluster._redis(tmp)
        env = {"PARLOUR_EIO3_PING_INTERVAL": "25", "PARLOUR_EIO3_PING_TIMEOUT": "600"}
        ports = [load.free_port(), load.free_port()]
        nodes = []
        for port in ports:
            data = Path(tmp) / str(port)
            data.mkdir()
            nodes.append(cluster._serve(port, str(data), ["--redis", url], env))
        procs = [psutil.Process(p.pid) for p in [*nodes, redis]]
        a, b = ports
        times: dict[str, list[float]] = {}
        cpu: dict[str, float] = {}
        try:
            async with aiohttp.ClientSession() as http:
                polled = {name: await _session(http, a) for name in ("poll local", "poll forwarded")}
                ws = {
                    "ws local": await _upgraded(a, await _session(http, a)),
                    "ws relayed": await _upgraded(b, await _session(http, a)),
                }
                steps: dict[str, Any] = {
                    "poll local": lambda: _poll_ping(http, a, polled["poll local"]),
                    "poll forwarded": lambda: _poll_ping(http, b, polled["poll forwarded"]),
                    "ws local": lambda: _ws_ping(ws["ws local"]),
                    "ws relayed": lambda: _ws_ping(ws["ws relayed"]),
                }
                for name in steps:  # warm-up
                    for _ in range(20):
                        await steps[name]()
                for _ in range(max(1, rounds // BLOCK)):
                    for name, step in steps.items():
                        before = cluster._tree_cpu(procs)
                        for _ in range(BLOCK):
                            started = time.perf_counter()
                            await step()
                            times.setdefault(name, []).append(time.perf_counter() - started)
                        cpu[name] = cpu.get(name, 0.0) + cluster._tree_cpu(procs) - before
                for socket in ws.values():
                    await socket.close()
        finally:
            for node in nodes:
                cluster._stop(node)
            redis.terminate()
        out = {}
        for name, values in times.items():
            values.sort()
            out[name] = {
                "p50_ms": round(statistics.median(values) * 1000, 2),
                "p99_ms": round(values[int(len(values) * 0.99) - 1] * 1000, 2),
                "cpu_us_per_round_trip": round(cpu[name] / len(values) * 1e6),
                "round_trips": len(values),
            }
        return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=1000)
    args = parser.parse_args()
    for name, row in asyncio.run(run(args.rounds)).items():
        print(f"{name:16} {row}")


if __name__ == "__main__":
    main()
