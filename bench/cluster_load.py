"""Cluster benchmark (not a test): ``python bench/cluster_load.py [--rooms N] [--seconds S] [--kills K]``.

The load is ``bench/server_load.py``'s own generator (its ``Player`` and ``UnoRoom``: scripted UNO
rooms of 4 over real websockets, acting as soon as it is their turn, one-hand games with rematches),
measured in one run against:

1. ``single``: one ``parlour serve`` on SQLite (today's default);
2. ``workers2``: ``parlour serve --workers 2 --redis URL`` (two processes on one port; the kernel
   spreads the connections, so most rooms have members on both workers); ``workers2_named``: the
   same, its guests connecting as from an invite link, naming the room (``InviteRoom``), so the
   worker that accepts each hands it to the room's owner (net/handoff.py);
   With ``--baseline DIR``, the same phase also runs from the source tree in DIR (an older commit).
   Phases 1 and 2 run ``--rounds`` times, interleaved (single, workers2, [baseline], single, ...):
   a phase's CPU per action drifts by about ±15% on this shared machine, so the report gives each
   round and the median per phase, and the ratio is the ratio of the medians.
3. ``same_node`` / ``cross_node``: two nodes on their own ports, a few rooms, each room's four
   players on one node vs. alternating between the nodes: the cost of the hop through Redis;
4. fail-over: a room owned by one of two nodes, its owner killed (SIGKILL) ``--kills`` times; the
   time from the kill until a player's action is accepted by the new owner.

Server CPU per action counts every server process plus redis-server over the window (psutil).
All traffic stays on 127.0.0.1; redis-server runs from a temp dir with AOF (everysec).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing as mp
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any, ClassVar

import aiohttp
import orjson
import psutil

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import server_load as load  # the generator this benchmark reuses

Message = dict[str, Any]


class SpreadRoom(load.UnoRoom):
    """``UnoRoom`` whose players connect round the given URLs (the host to the first)."""

    urls: ClassVar[list[str]] = []

    def player_url(self, i: int, url: str) -> str:
        return self.urls[i % len(self.urls)] if self.urls else url


class InviteRoom(load.UnoRoom):
    """``UnoRoom`` set up as friends following an invite link do: the host connects and creates the
    room, then each guest connects naming it (``/api/ws?room=CODE``, as the web client does on
    ``/r/CODE``) and joins. The game is the same; only who connects when, and with which URL, differs."""

    async def setup(self, url: str) -> None:
        host = await load.Player.connect(url, self)
        self.players.append(host)
        await host.request("identify", name=f"R{self.number}P0")
        room = await host.request("create_room", game="uno", settings={"target_score": 0}, capacity=4)
        host.member = room["you"]["member"]
        for i in range(1, 4):
            guest = await load.Player.connect(f"{url}?room={room['code']}", self)
            self.players.append(guest)
            await guest.request("identify", name=f"R{self.number}P{i}")
            guest.member = (await guest.request("join", code=room["code"]))["you"]["member"]


async def _clients(
    urls: list[str], rooms: int, warmup: float, seconds: float, out: Any, invite: bool = False
) -> Message:
    load.SESSION = aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0))
    SpreadRoom.urls = urls
    stats = load.Stats()
    clock = load.Clock(float("inf"), float("inf"))
    try:
        kind = InviteRoom if invite else SpreadRoom
        made = [kind(n, clock, stats, 0.0) for n in range(rooms)]
        gate = asyncio.Semaphore(load.SETUP_PARALLEL)

        async def setup(room: load.UnoRoom) -> None:
            async with gate:
                await room.setup(urls[0])

        await asyncio.wait_for(asyncio.gather(*(setup(r) for r in made)), 120)
        out.put(("started", None))  # the parent samples CPU over the same window
        now = time.perf_counter()
        clock.start, clock.end = now + warmup, now + warmup + seconds
        await asyncio.gather(*(r.begin() for r in made))
        await asyncio.sleep(max(0.0, clock.end - time.perf_counter()))
        for p in [p for r in made for p in r.players]:
            await p.ws.close()
            p.reader.cancel()
    finally:
        await load.SESSION.close()
    return stats.__dict__


def _client_process(
    urls: list[str], rooms: int, warmup: float, seconds: float, out: Any, invite: bool = False
) -> None:
    load.pin({1} if (os.cpu_count() or 1) > 1 else set())
    load.raise_nofile()
    import uvloop

    try:
        out.put(("stats", uvloop.run(_clients(urls, rooms, warmup, seconds, out, invite))))
    except BaseException as exc:
        out.put(("failed", f"{type(exc).__name__}: {exc}"))


def _tree_cpu(procs: list[psutil.Process]) -> float:
    total = 0.0
    for proc in procs:
        for p in [proc, *proc.children(recursive=True)]:
            try:
                t = p.cpu_times()
                total += t.user + t.system
            except psutil.NoSuchProcess:
                pass
    return total


def measure(
    urls: list[str], servers: list[int], rooms: int, warmup: float, seconds: float, invite: bool = False
) -> Message:
    """Drive ``rooms`` rooms through ``urls``; CPU of the ``servers`` pids (and children) per action.
    ``invite``: guests connect naming the room (``InviteRoom``)."""
    ctx = mp.get_context("spawn")
    out = ctx.Queue()
    client = ctx.Process(
        target=_client_process, args=(urls, rooms, warmup, seconds, out, invite), daemon=True
    )
    procs = [psutil.Process(pid) for pid in servers]
    client.start()
    kind, value = out.get(timeout=rooms * 2 + 180)
    if kind != "started":
        raise RuntimeError(value)
    time.sleep(warmup)
    cpu0 = _tree_cpu(procs)
    time.sleep(seconds)
    cpu = _tree_cpu(procs) - cpu0
    kind, value = out.get(timeout=120)
    client.join(10)
    if kind != "stats":
        raise RuntimeError(value)
    lat = value["latencies_ms"]
    actions = value["actions"]
    return {
        "rooms": rooms,
        "actions_per_s": round(actions / seconds, 1),
        "p50_ms": round(load.percentile(lat, 0.5), 2),
        "p99_ms": round(load.percentile(lat, 0.99), 2),
        "server_cpu_cores": round(cpu / seconds, 2),
        "server_cpu_ms_per_action": round(cpu / max(actions, 1) * 1000, 3),
        "errors": value["errors"],
    }


def _wait_http(port: int, proc: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError("server exited at startup")
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=1):
                return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError("server did not start")


def _serve(
    port: int, data: str, extra: list[str], env: dict[str, str] | None = None, cwd: str | None = None
) -> subprocess.Popen[bytes]:
    """``parlour serve``; from the tree at ``cwd`` when given (``-m`` imports the working directory's
    ``parlour`` first), else from this one."""

    def prepare() -> None:
        load.pin({0} if (os.cpu_count() or 1) > 1 else set())
        load.raise_nofile()

    proc = subprocess.Popen(
        [sys.executable, "-m", "parlour", "serve", "--port", str(port), "--data-dir", data, *extra],
        env={**os.environ, **load.SERVER_ENV, **(env or {})},
        stdout=open(os.path.join(data, f"server-{port}.log"), "ab"),  # noqa: SIM115
        stderr=subprocess.STDOUT,
        preexec_fn=prepare,
        cwd=cwd or str(Path(__file__).resolve().parent.parent),
    )
    _wait_http(port, proc)
    return proc


def _stop(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()


def _redis(tmp: str) -> tuple[subprocess.Popen[bytes], str]:
    port = load.free_port()
    binary = shutil.which("redis-server") or "/usr/bin/redis-server"
    proc = subprocess.Popen(
        [
            binary,
            "--port",
            str(port),
            "--bind",
            "127.0.0.1",
            "--dir",
            tmp,
            "--appendonly",
            "yes",
            "--appendfsync",
            "everysec",
            "--save",
            "",
        ],
        stdout=subprocess.DEVNULL,
    )
    time.sleep(0.5)
    return proc, f"redis://127.0.0.1:{port}/0"


async def _failover(
    urls: list[str], nodes: dict[str, subprocess.Popen[bytes]], redis_url: str, kills: int, restart: Any
) -> list[float]:
    """Kill the owner of a 2-player room; time until the next action is accepted by the new owner.

    Both players are on the surviving node (one joined through the victim's room remotely), so
    the time is the cluster's: lease expiry, claim, replay, re-attach, the action's round trip.
    """
    from redis import asyncio as aioredis

    from tests.server.client import Client, first_legal  # the tests' native client

    redis = aioredis.Redis.from_url(redis_url)
    times = []
    for _ in range(kills):
        victim, survivor = urls
        host = await Client.open(victim, "Host")
        players = [await Client.open(survivor, f"P{i}") for i in range(2)]
        room = await host.ok("create_room", game="dots", settings={"width": 6, "height": 6}, capacity=2)
        await host.ok("become_spectator")
        for p in players:
            await p.ok("join", code=room["code"])
        await host.ok("start")
        for p in players:
            await p.wait_for(lambda m: m.get("type") == "game_started", from_start=True)
        owner = (await redis.get(f"pl:lease:{room['code']}")).decode().split("|", 1)[1]
        assert owner in _node_name(victim)
        nodes[victim].kill()
        killed = time.monotonic()
        while True:
            leader = max(players, key=lambda c: c.seq)
            actor = next(c for c in players if c.seat == leader.turn["seat"])
            try:
                reply = await actor.request("action", timeout=1, action=first_legal(actor.view))
            except TimeoutError:
                continue
            if reply["type"] == "ok":
                break
            await asyncio.sleep(0.02)
        times.append(time.monotonic() - killed)
        for c in players:
            await c.close()
        nodes[victim] = restart(victim)
        urls.reverse()  # the next room is owned by the other node
    await redis.aclose()
    return times


def _node_name(ws_url: str) -> str:
    port = ws_url.split(":")[2].split("/")[0]
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2) as r:
        return str(json.loads(r.read())["node"])


def run(args: argparse.Namespace) -> Message:
    load.raise_nofile()
    result: Message = {"machine": f"{os.cpu_count()} CPUs (shared with other work)", "rooms": args.rooms}
    with tempfile.TemporaryDirectory(prefix="parlour-cluster-") as tmp:
        redis, redis_url = _redis(tmp)
        redis_pid = [redis.pid]
        try:
            # Interleaved rounds: this machine's speed drifts by +-15% between phases (shared host),
            # so one phase of each is a coin toss; the medians of several rounds are not.
            phases: list[tuple[str, str | None]] = [
                ("single", None),
                ("workers2", None),
                ("workers2_named", None),
            ]
            if args.baseline:
                phases.append(("workers2_baseline", args.baseline))
            runs: dict[str, list[Message]] = {}
            db = 2
            for _ in range(args.rounds):
                for name, tree in phases:
                    port = load.free_port()
                    if name == "single":
                        server = _serve(port, tmp, [])
                        pids = [server.pid]
                    else:
                        url = f"{redis_url[: -len('/0')]}/{db}"  # a fresh database each time
                        db += 1
                        server = _serve(port, tmp, ["--workers", "2", "--redis", url], cwd=tree)
                        time.sleep(2)  # both workers up
                        pids = [server.pid, *redis_pid]
                    try:
                        phase = measure(
                            [f"ws://127.0.0.1:{port}/api/ws"],
                            pids,
                            args.rooms,
                            args.warmup,
                            args.seconds,
                            invite=name == "workers2_named",
                        )
                    finally:
                        _stop(server)
                    runs.setdefault(name, []).append(phase)
            for name, measured in runs.items():
                result[name] = {
                    "server_cpu_ms_per_action": round(
                        statistics.median(m["server_cpu_ms_per_action"] for m in measured), 3
                    ),
                    "runs": measured,
                }
            for name in ("workers2", "workers2_named"):
                result[f"cpu_ratio_{name}_per_round"] = [
                    round(w["server_cpu_ms_per_action"] / s["server_cpu_ms_per_action"], 2)
                    for s, w in zip(runs["single"], runs[name], strict=True)
                ]
            ports = [load.free_port(), load.free_port()]
            redis_url = redis_url[: -len("/0")] + "/1"  # a fresh database: not the rooms phase 2 left
            nodes = [_serve(p, tmp, ["--redis", redis_url]) for p in ports]
            urls = [f"ws://127.0.0.1:{p}/api/ws" for p in ports]
            try:
                pids = [n.pid for n in nodes] + redis_pid
                result["same_node"] = measure([urls[0]], pids, args.hop_rooms, args.warmup, args.seconds)
                result["cross_node"] = measure(urls, pids, args.hop_rooms, args.warmup, args.seconds)
                by_url = dict(zip(urls, nodes, strict=True))

                def restart(url: str) -> subprocess.Popen[bytes]:
                    p = int(url.split(":")[2].split("/")[0])
                    return _serve(p, tmp, ["--redis", redis_url])

                if args.kills:
                    times = asyncio.run(_failover(urls, by_url, redis_url, args.kills, restart))
                    result["failover_s"] = {
                        "kills": len(times),
                        "p50": round(load.percentile(times, 0.5), 2),
                        "p99": round(load.percentile(times, 0.99), 2),
                        "max": round(max(times), 2),
                    }
                nodes = list(by_url.values())
            finally:
                for n in nodes:
                    _stop(n)
        finally:
            redis.terminate()
            redis.wait(10)
    if args.baseline:
        result["cpu_ratio_baseline_vs_single"] = round(
            result["workers2_baseline"]["server_cpu_ms_per_action"]
            / result["single"]["server_cpu_ms_per_action"],
            2,
        )
    for name in ("workers2", "workers2_named"):
        result[f"cpu_ratio_{name}_vs_single"] = round(
            result[name]["server_cpu_ms_per_action"] / result["single"]["server_cpu_ms_per_action"], 2
        )
    result["hop_added_ms"] = {
        "p50": round(result["cross_node"]["p50_ms"] - result["same_node"]["p50_ms"], 2),
        "p99": round(result["cross_node"]["p99_ms"] - result["same_node"]["p99_ms"], 2),
    }
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rooms", type=int, default=100, help="UNO rooms of 4 for single/workers2 (100)")
    parser.add_argument("--hop-rooms", type=int, default=10, help="rooms for the hop latency phases (10)")
    parser.add_argument("--seconds", type=float, default=15.0, help="measured window per phase (15)")
    parser.add_argument("--warmup", type=float, default=3.0, help="warm-up before each window (3)")
    parser.add_argument(
        "--rounds", type=int, default=3, help="interleaved rounds of single/workers2 (3); medians reported"
    )
    parser.add_argument("--kills", type=int, default=20, help="owner kills for the fail-over time (20)")
    parser.add_argument(
        "--baseline",
        default="",
        help="another Parlour source tree (e.g. `git archive COMMIT | tar -x -C DIR`, with the compiled"
        " engine copied in) whose --workers 2 is measured too, in every round",
    )
    args = parser.parse_args()
    print(orjson.dumps(run(args), option=orjson.OPT_INDENT_2).decode())


if __name__ == "__main__":
    main()
