"""The attacks of issue 16 against a real ``parlour serve`` with its default limits, and what each
costs the server now (figures for docs/reliability.md).

    .venv/bin/python bench/attacks.py [--only idle,flood,slow,passwords,codes,rooms]

* idle: server memory per idle connection on each endpoint (500 connections each);
* flood: a bystander game's move round trip (p50/p99) while one client per endpoint floods junk;
* slow: a /dots spectator that asks for BOARD every 50 ms and never reads: server memory, and when
  it is dropped;
* passwords: 4 connections guessing one room's password for 10 s at the rate limit: guesses
  hashed, guesses refused;
* codes: 40 connections from one address guessing room codes for 10 s: misses allowed;
* rooms: /dots CREATE and /ws create_game in a loop for 10 s: rooms opened.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import psutil
import socketio
import websockets

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.server.conftest import ServerProcess  # noqa: E402
from tests.server.test_hardening import RawSocket  # noqa: E402

QUIET = {"PARLOUR_LOG_LEVEL": "warning"}


def start(env: dict[str, str]) -> tuple[ServerProcess, psutil.Process]:
    server = ServerProcess(Path(tempfile.mkdtemp(prefix="parlour-attack-")), {**QUIET, **env})
    server.start()
    assert server.proc is not None
    return server, psutil.Process(server.proc.pid)


def mib(n: float) -> str:
    return f"{n / 2**20:.1f} MiB"


async def request(ws: Any, kind: str, **fields: Any) -> dict[str, Any]:
    rid = f"{kind}{time.monotonic_ns()}"
    await ws.send(json.dumps({"type": kind, "id": rid, **fields}))
    while True:
        message = json.loads(await ws.recv())
        if message.get("id") == rid or (message.get("type") == "error" and "id" not in message):
            return message  # the rate limit's refusal carries no id


async def idle() -> None:
    server, proc = start(
        {"PARLOUR_CONNECTIONS_PER_IP": "100000", "PARLOUR_SESSIONS_PER_IP_PER_MINUTE": "100000"}
    )
    base = f"ws://127.0.0.1:{server.port}"
    count = 500
    for endpoint in ("native", "dots", "cheat", "socketio"):
        before = proc.memory_info().rss
        held: list[Any] = []
        for i in range(count):
            if endpoint == "native":
                ws = await websockets.connect(base + "/api/ws")
                await request(ws, "identify", name=f"I{i}")
            elif endpoint == "socketio":
                ws = socketio.AsyncClient(reconnection=False)
                await ws.connect(
                    f"http://127.0.0.1:{server.port}", auth={"name": f"I{i}"}, transports=["websocket"]
                )
            else:
                ws = await websockets.connect(base + ("/dots" if endpoint == "dots" else "/ws"))
            held.append(ws)
        await asyncio.sleep(1)
        grown = proc.memory_info().rss - before
        print(f"idle {endpoint}: {grown / count / 1024:.1f} KiB per connection ({count} connections)")
        for ws in held:
            await (ws.disconnect() if endpoint == "socketio" else ws.close())
        await asyncio.sleep(1)
    server.stop()


async def _bystander_game(url: str, seconds: float) -> list[float]:
    """Two native players move as fast as answered for ``seconds``; the move round trips."""
    a, b = await websockets.connect(url), await websockets.connect(url)
    await request(a, "identify", name="A")
    await request(b, "identify", name="B")
    code = (await request(a, "create_room", game="dots", settings={"width": 8, "height": 8}))["code"]
    await request(b, "join", code=code)
    await request(a, "start")
    players = {0: a, 1: b}
    lines = [
        (x, y, d)
        for y in range(8)
        for x in range(8)
        for d in (0, 1)
        if not ((d == 0 and x == 7) or (d == 1 and y == 7))
    ]
    times: list[float] = []
    end = time.monotonic() + seconds
    turn, i = 0, 0
    while time.monotonic() < end and i < len(lines):
        x, y, d = lines[i]
        started = time.perf_counter()
        reply = await request(players[turn], "action", action={"type": "line", "x": x, "y": y, "d": d})
        times.append(time.perf_counter() - started)
        i += 1
        if reply["type"] == "error":
            turn = 1 - turn
            i -= 1
        await asyncio.sleep(0.05)
    await a.close()
    await b.close()
    return times


async def _flooder(url: str, frames: list[str | dict[str, Any]], stop: asyncio.Event) -> int:
    sent = 0
    while not stop.is_set():
        try:
            async with websockets.connect(url) as ws:
                while not stop.is_set():
                    for frame in frames:
                        await ws.send(frame if isinstance(frame, str) else json.dumps(frame))
                        sent += 1
                    await asyncio.sleep(0)
        except (websockets.ConnectionClosed, websockets.InvalidStatus, OSError):
            await asyncio.sleep(0.05)
    return sent


async def flood() -> None:
    server, proc = start({})
    url = f"ws://127.0.0.1:{server.port}"
    quiet = await _bystander_game(url + "/api/ws", 5)
    stop = asyncio.Event()
    junk = ["not json", '{"type":"BOARD"}', '{"action":"x"}', "[]" * 100]
    floods = [
        asyncio.create_task(_flooder(url + "/api/ws", junk, stop)),
        asyncio.create_task(_flooder(url + "/dots", junk, stop)),
        asyncio.create_task(_flooder(url + "/ws", junk, stop)),
    ]
    cpu0 = sum(proc.cpu_times()[:2])
    loud = await _bystander_game(url + "/api/ws", 10)
    cpu = sum(proc.cpu_times()[:2]) - cpu0
    stop.set()
    sent = sum(await asyncio.gather(*floods))
    for name, times in (("quiet", quiet), ("under flood", loud)):
        p99 = sorted(times)[int(len(times) * 0.99) - 1]
        p50 = statistics.median(times)
        print(f"bystander move round trip {name}: p50 {p50 * 1000:.1f} ms, p99 {p99 * 1000:.1f} ms")
    print(f"flood: {sent} junk frames sent in 10 s by 3 flooders (reconnecting); server CPU {cpu / 10:.0%}")
    server.stop()


async def slow() -> None:
    server, proc = start({})
    async with websockets.connect(f"ws://127.0.0.1:{server.port}/dots") as host:
        await host.send('{"type":"CREATE","roomname":"slow","width":8,"height":8}')
        await host.recv()
        raw = await asyncio.to_thread(RawSocket, server.port, "/dots")
        await asyncio.to_thread(raw.send_text, '{"type":"SPECTATE","roomname":"slow","username":"slow"}')
        before = proc.memory_info().rss
        peak, started, dropped = before, time.monotonic(), None
        while time.monotonic() - started < 60:
            if not await asyncio.to_thread(raw.send_text, '{"type":"BOARD","roomname":"slow"}'):
                dropped = time.monotonic() - started
                break
            peak = max(peak, proc.memory_info().rss)
            await asyncio.sleep(0.05)
        raw.close()
    print(
        f"slow /dots reader (BOARD every 50 ms, never reads): peak growth {mib(peak - before)}, "
        + (f"dropped after {dropped:.0f} s" if dropped else "not dropped in 60 s")
    )
    server.stop()


async def passwords() -> None:
    server, proc = start({})
    url = f"ws://127.0.0.1:{server.port}/api/ws"
    host = await websockets.connect(url)
    await request(host, "identify", name="Host")
    code = (await request(host, "create_room", game="dots", password="correct horse"))["code"]
    counts: dict[str, int] = {}

    async def guesser(n: int) -> None:
        ws = await websockets.connect(url)
        await request(ws, "identify", name=f"G{n}")
        end = time.monotonic() + 10
        i = 0
        while time.monotonic() < end:
            reply = await request(ws, "join", code=code, password=f"guess{n}-{i}")
            counts[reply.get("code", reply["type"])] = counts.get(reply.get("code", reply["type"]), 0) + 1
            i += 1
            await asyncio.sleep(0.05)  # just inside the per-connection rate limit
        await ws.close()

    cpu0 = sum(proc.cpu_times()[:2])
    await asyncio.gather(*(guesser(n) for n in range(4)))
    cpu = sum(proc.cpu_times()[:2]) - cpu0
    print(f"password guessing, 4 connections, 10 s: {counts}; server CPU {cpu / 10:.0%}")
    server.stop()


async def codes() -> None:
    server, _ = start({})
    url = f"ws://127.0.0.1:{server.port}/api/ws"
    counts: dict[str, int] = {}

    async def guesser(n: int) -> None:
        ws = await websockets.connect(url)
        await request(ws, "identify", name=f"G{n}")
        end = time.monotonic() + 10
        i = 0
        while time.monotonic() < end:
            reply = await request(ws, "spectate", code=f"{n:02d}{i:03d}".translate(str.maketrans("01", "XY")))
            counts[reply.get("code", reply["type"])] = counts.get(reply.get("code", reply["type"]), 0) + 1
            i += 1
            await asyncio.sleep(0.05)
        await ws.close()

    await asyncio.gather(*(guesser(n) for n in range(40)))
    print(f"code guessing, 40 connections from one address, 10 s: {counts}")
    server.stop()


async def rooms() -> None:
    server, proc = start({})
    base = f"ws://127.0.0.1:{server.port}"
    before = proc.memory_info().rss
    made, refused = 0, 0
    end = time.monotonic() + 10
    async with websockets.connect(base + "/dots") as dots:
        i = 0
        while time.monotonic() < end:
            await dots.send(json.dumps({"type": "CREATE", "roomname": f"r{i}", "width": 3, "height": 3}))
            while True:
                reply = json.loads(await dots.recv())
                if reply.get("type") == "CREATE":
                    break
            made += reply["ok"]
            refused += not reply["ok"]
            i += 1
            await asyncio.sleep(0.05)
    health = json.loads(server.get("/healthz"))
    print(
        f"room creation over /dots for 10 s: {made} opened, {refused} refused; rooms open {health['rooms']};"
        f" server grew {mib(proc.memory_info().rss - before)}"
    )
    server.stop()


ATTACKS = {
    "idle": idle,
    "flood": flood,
    "slow": slow,
    "passwords": passwords,
    "codes": codes,
    "rooms": rooms,
}


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--only", default=",".join(ATTACKS), help="comma-separated attacks")
    args = parser.parse_args()
    for name in args.only.split(","):
        asyncio.run(ATTACKS[name]())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
