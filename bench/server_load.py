"""Server load benchmark (not a test): ``python bench/server_load.py [--rooms N] [--seconds S] [--json]``.

Starts ``parlour serve`` (a subprocess on a free port, with a temporary data dir, so every
accepted action is committed to SQLite) and drives it with scripted UNO players over real
websockets: ``--rooms`` concurrent rooms of 4 (identify → the host creates the room → three
join → the host starts). A player acts as soon as a ``game`` message says it is its turn (any
legal action from the view's ``legal`` hints, plays first, each play carrying the UNO call the
hints include; a Wild Draw Four victim accepts or challenges); when a game ends the host calls a
rematch and starts again. Games are one hand (``target_score: 0``) so rematches happen, and a finished
game (its record and its players' history) is stored every ~60 actions; ``--target-score 500`` (the
rules' default) plays matches of several hands instead, each stored once.

Measured over ``--seconds`` after ``--warmup``: actions/s, action → last-recipient latency (from a
player sending an action until all 4 members of its room hold the resulting ``game`` message;
a room's 4 clients live in one process, so one clock), server RSS per connection (peak during the
window minus the RSS before any client connected) and server CPU.

Then, as the ceiling, a raw echo server (plain ``websockets``, same event loop library, no
compression like Parlour's default, its own process) is driven by the same harness: the same rooms of 4
connections; each round every member sends one recorded ``game`` frame and waits for its echo,
and the round's latency is the last echo's delay. It runs twice: at the same rate (each room
starts a round at most as often as a UNO room acted) and flat out (the next round at once).

With one action in flight per room, mean latency = rooms / actions per second (Little's law), so
a closed loop of 500 rooms meets p99 < 100 ms only above ~5,000 actions/s; the report also gives
the server CPU per action and the latency floor that implies on one whole core.

CPU split (the machine has 2 cores): the server (and later the echo server) is pinned to
``--server-cpus`` (default CPU 0), the client processes (``--procs``, default 1) to
``--client-cpus`` (default CPU 1); this parent process only samples psutil. The server's
rate limit is raised (as the server tests do), since scripted players act far faster than people.
All traffic stays on 127.0.0.1; everything is bounded in count and time.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import json
import multiprocessing as mp
import os
import platform
import random
import resource
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from multiprocessing.synchronize import Event as MpEvent
from pathlib import Path
from typing import Any

import aiohttp
import orjson
import psutil
import websockets
from websockets.asyncio.server import ServerConnection

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.ports import free_port  # ports outside the kernel's ephemeral range

Message = dict[str, Any]
SERVER_ENV = {
    "PARLOUR_RATE_PER_SECOND": "100000",
    "PARLOUR_RATE_BURST": "100000",
    "PARLOUR_LOG_LEVEL": "warning",
    # The load generator's 2,000+ clients all come from 127.0.0.1: lift the per-address limits.
    "PARLOUR_CONNECTIONS_PER_IP": "100000",
    "PARLOUR_SESSIONS_PER_IP_PER_MINUTE": "1000000",
    "PARLOUR_ROOMS_PER_IP": "100000",
    "PARLOUR_MAX_ROOMS": "100000",
}
# The load generator's websockets: aiohttp's client (its frame reader is compiled), so that 2,000
# connections fed 5,000+ actions/s do not saturate the client's core before the server's.
SESSION: aiohttp.ClientSession | None = None
WS_TIMEOUT = aiohttp.ClientWSTimeout(ws_receive=None, ws_close=10)
SETUP_PARALLEL = 16  # rooms being set up at once per client process
PLAY_PREFERENCE = ("play", "draw", "pass", "accept", "challenge")
FALLBACK_FRAME_BYTES = 2500


def raise_nofile() -> None:
    """Lift the soft open-file limit to the hard limit (2,000+ sockets per process)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


def pin(cpus: set[int]) -> None:
    """Pin the calling process (and threads it starts later) to ``cpus``, where available."""
    if cpus and hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, cpus)


# --- the client side (runs in client processes) --------------------------------------------


@dataclass
class Stats:
    """What one client process measured inside the window."""

    latencies_ms: list[float] = field(default_factory=list)
    actions: int = 0
    games: int = 0
    errors: dict[str, int] = field(default_factory=dict)
    frame_sample: str = ""
    frame_bytes: int = 0
    frames: int = 0


@dataclass
class Clock:
    """The measurement window on this process's ``perf_counter``; after ``end`` nobody acts."""

    start: float
    end: float

    def counts(self, t: float) -> bool:
        return self.start <= t < self.end

    def over(self) -> bool:
        return time.perf_counter() >= self.end


class Player:
    """One connection: a reader task feeding its room, and request/reply by ``id``."""

    def __init__(self, ws: aiohttp.ClientWebSocketResponse, room: LoadRoom) -> None:
        self.ws = ws
        self.room = room
        self.member = ""
        self.seat: int | None = None
        self.games = 0
        self._ids = 0
        self._waiting: dict[int, asyncio.Future[Message]] = {}
        self.reader = asyncio.get_running_loop().create_task(self._read())

    async def _read(self) -> None:
        text = aiohttp.WSMsgType.TEXT
        async for msg in self.ws:
            if msg.type is text:
                frame = msg.data
                message = orjson.loads(frame)
                waiter = self._waiting.pop(message.get("id", -1), None)
                if waiter is not None:
                    waiter.set_result(message)
                await self.room.on_message(self, message, frame)

    @classmethod
    async def connect(cls, url: str, room: LoadRoom) -> Player:
        assert SESSION is not None
        ws = await SESSION.ws_connect(url, max_msg_size=1 << 22, timeout=WS_TIMEOUT)
        return cls(ws, room)

    async def request(self, kind: str, **fields: Any) -> Message:
        """Send a request and wait (bounded) for its reply, which must not be an error."""
        self._ids += 1
        waiter: asyncio.Future[Message] = asyncio.get_running_loop().create_future()
        self._waiting[self._ids] = waiter
        await self.send({"type": kind, "id": self._ids, **fields})
        reply = await asyncio.wait_for(waiter, 30)
        if reply["type"] == "error":
            raise RuntimeError(f"{kind} refused: {reply}")
        return reply

    async def send(self, message: Message | str) -> None:
        await self.ws.send_str(message if isinstance(message, str) else orjson.dumps(message).decode())


class LoadRoom:
    """A room of 4 players and the rounds in flight: key → (send time, recipients so far)."""

    def __init__(self, number: int, clock: Clock, stats: Stats) -> None:
        self.number = number
        self.clock = clock
        self.stats = stats
        self.players: list[Player] = []
        self.inflight: dict[Any, list[float]] = {}
        self.rng = random.Random(number)

    def sent(self, key: Any) -> None:
        self.inflight[key] = [time.perf_counter(), 0]

    def received(self, key: Any, recipients: int = 4) -> None:
        """One member has the round's message; the last of them closes the round."""
        entry = self.inflight.get(key)
        if entry is None:
            return
        entry[1] += 1
        if entry[1] == recipients:
            del self.inflight[key]
            if self.clock.counts(entry[0]):
                self.stats.actions += 1
                self.stats.latencies_ms.append((time.perf_counter() - entry[0]) * 1000)

    async def on_message(self, player: Player, message: Message, frame: str | bytes) -> None:
        raise NotImplementedError

    async def setup(self, url: str) -> None:
        raise NotImplementedError

    async def go(self) -> None:
        raise NotImplementedError

    async def begin(self) -> None:
        """The room's first move when the run starts."""
        await self.go()


class UnoRoom(LoadRoom):
    """Four UNO players: the seat on turn acts on receipt of its ``game`` message (after ``think`` s)."""

    def __init__(
        self, number: int, clock: Clock, stats: Stats, think: float, ids: bool = False, target_score: int = 0
    ) -> None:
        super().__init__(number, clock, stats)
        self.think = think
        self.ids = ids  # actions carry a request id (as the web client's do): each is answered ``ok``
        self.target_score = target_score  # 0: one-hand games; 500: matches (module docstring)

    def player_url(self, i: int, url: str) -> str:
        """Where player ``i`` connects (bench/cluster_load.py spreads them over nodes)."""
        return url

    async def setup(self, url: str) -> None:
        for i in range(4):
            player = await Player.connect(self.player_url(i, url), self)
            self.players.append(player)
            await player.request("identify", name=f"R{self.number}P{i}")
        host = self.players[0]
        settings = {"target_score": self.target_score}
        room = await host.request("create_room", game="uno", settings=settings, capacity=4)
        host.member = room["you"]["member"]
        for player in self.players[1:]:
            joined = await player.request("join", code=room["code"])
            player.member = joined["you"]["member"]

    async def go(self) -> None:
        await self.players[0].send({"type": "start"})

    async def on_message(self, player: Player, message: Message, frame: str | bytes) -> None:
        kind = message["type"]
        if kind == "game_started":
            player.games += 1
            player.seat = next(s["seat"] for s in message["seats"] if s["member"] == player.member)
        elif kind == "game":
            self.received((player.games, message["seq"]))
            self.sample(frame)
        elif kind == "game_over":
            if player is self.players[0] and not self.clock.over():
                if self.clock.counts(time.perf_counter()):
                    self.stats.games += 1
                await player.send({"type": "rematch"})
                await player.send({"type": "start"})
            return
        elif kind == "error":
            self.stats.errors[message["code"]] = self.stats.errors.get(message["code"], 0) + 1
            return
        else:
            return
        turn = message["turn"]
        if turn is not None and turn["seat"] == player.seat and not self.clock.over():
            await self.act(player, message["view"]["legal"], message["seq"])

    def sample(self, frame: str | bytes) -> None:
        """Average ``game`` frame size over the first 1,000, and one frame of about that size."""
        stats = self.stats
        if stats.frames >= 1000:
            return
        stats.frames += 1
        stats.frame_bytes += len(frame)
        mean = stats.frame_bytes / stats.frames
        if stats.frames >= 200 and not stats.frame_sample and abs(len(frame) - mean) < 0.05 * mean:
            stats.frame_sample = frame if isinstance(frame, str) else frame.decode()

    async def act(self, player: Player, legal: list[Message], seq: int) -> None:
        """Any legal in-turn action: a random play if there is one, else draw/pass/answer a W+4."""
        for kind in PLAY_PREFERENCE:
            options = [a for a in legal if a["type"] == kind]
            if options:
                break
        else:
            return
        if self.think:
            await asyncio.sleep(self.think)
        self.sent((player.games, seq + 1))
        message: Message = {"type": "action", "action": self.rng.choice(options)}
        if self.ids:
            player._ids += 1
            message["id"] = player._ids
        await player.send(message)


class EchoRoom(LoadRoom):
    """Four connections to the echo server: each round all four send the frame and await its echo.

    Rounds start at most every ``interval`` seconds (0: as soon as the previous one completes).
    """

    def __init__(self, number: int, clock: Clock, stats: Stats, frame: str, interval: float) -> None:
        super().__init__(number, clock, stats)
        self.frame = frame
        self.interval = interval
        self.round = 0
        self.started = 0.0

    async def setup(self, url: str) -> None:
        for _ in range(4):
            self.players.append(await Player.connect(url, self))

    async def begin(self) -> None:
        """Paced rooms start at a random phase so their rounds do not arrive in lockstep."""
        await asyncio.sleep(self.rng.uniform(0, self.interval))
        await self.go()

    async def go(self) -> None:
        self.round += 1
        self.started = time.perf_counter()
        self.sent(self.round)
        for player in self.players:
            await player.send(self.frame)

    async def on_message(self, player: Player, message: Message, frame: str | bytes) -> None:
        self.received(self.round)
        if self.round not in self.inflight and not self.clock.over():
            await asyncio.sleep(max(0.0, self.started + self.interval - time.perf_counter()))
            if not self.clock.over():
                await self.go()


async def run_rooms(
    mode: str, url: str, first: int, count: int, args: Message, ready: Any, go: MpEvent, start_at: Any
) -> Stats:
    """Set up ``count`` rooms, report ready, wait for ``go``, play through the window, close."""
    global SESSION
    SESSION = aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0))
    try:
        return await _run_rooms(mode, url, first, count, args, ready, go, start_at)
    finally:
        await SESSION.close()


async def _run_rooms(
    mode: str, url: str, first: int, count: int, args: Message, ready: Any, go: MpEvent, start_at: Any
) -> Stats:
    stats = Stats()
    clock = Clock(float("inf"), float("inf"))
    think = args["think_ms"] / 1000

    def make(n: int) -> LoadRoom:
        if mode == "uno":
            return UnoRoom(n, clock, stats, think, args["ids"], args["target_score"])
        return EchoRoom(n, clock, stats, args["frame"], args["interval"])

    rooms = [make(n) for n in range(first, first + count)]
    gate = asyncio.Semaphore(SETUP_PARALLEL)

    async def setup(room: LoadRoom) -> None:
        async with gate:
            await room.setup(url)

    await asyncio.wait_for(asyncio.gather(*(setup(r) for r in rooms)), args["setup_timeout"])
    # Keep the load generator's own GC pauses out of the measured latencies.
    gc.collect()
    gc.freeze()
    gc.set_threshold(50_000, 50, 100)
    ready.put(("ready", count * 4))
    loop = asyncio.get_running_loop()
    if not await loop.run_in_executor(None, go.wait, args["setup_timeout"]):
        raise RuntimeError("no go signal")
    # start_at is wall-clock (shared across processes); the window is kept on perf_counter.
    delay = max(0.0, start_at.value - time.time())
    now = time.perf_counter()
    clock.start = now + delay + args["warmup"]
    clock.end = clock.start + args["seconds"]
    await asyncio.sleep(delay)
    await asyncio.gather(*(room.begin() for room in rooms))
    await asyncio.sleep(max(0.0, clock.end - time.perf_counter()))
    drain = time.perf_counter() + 5
    while any(r.inflight for r in rooms) and time.perf_counter() < drain:
        await asyncio.sleep(0.05)
    players = [p for r in rooms for p in r.players]
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(asyncio.gather(*(p.ws.close() for p in players), return_exceptions=True), 15)
    for p in players:
        p.reader.cancel()
    return stats


def client_process(
    mode: str,
    url: str,
    first: int,
    count: int,
    args: Message,
    cpus: set[int],
    ready: Any,
    go: MpEvent,
    start_at: Any,
) -> None:
    """Entry point of one load-generating process: its stats (or its failure) go to ``ready``."""
    pin(cpus)
    raise_nofile()
    try:
        import uvloop

        runner: Callable[[Any], Any] = uvloop.run
    except ImportError:
        runner = asyncio.run
    try:
        stats = runner(run_rooms(mode, url, first, count, args, ready, go, start_at))
        ready.put(("stats", stats.__dict__))
    except BaseException as exc:
        ready.put(("failed", f"{type(exc).__name__}: {exc}"))


# --- the raw echo server (its own process) -------------------------------------------------


def echo_process(port: int, cpus: set[int], up: MpEvent) -> None:
    """A plain ``websockets`` echo server on 127.0.0.1, on uvloop like ``parlour serve``."""
    pin(cpus)
    raise_nofile()
    import uvloop

    async def echo(ws: ServerConnection) -> None:
        with contextlib.suppress(websockets.ConnectionClosed):
            async for message in ws:
                await ws.send(message)

    async def main() -> None:
        async with websockets.serve(
            echo, "127.0.0.1", port, max_size=1 << 20, backlog=2048, compression=None
        ):
            up.set()
            await asyncio.Future()

    uvloop.run(main())


# --- the parent: servers, processes, sampling, report ---------------------------------------


def start_parlour(
    port: int,
    data_dir: str,
    cpus: set[int],
    root: str | None = None,
    env: dict[str, str] | None = None,
    prefix: tuple[str, ...] = (),
) -> subprocess.Popen[bytes]:
    """``parlour serve`` pinned to ``cpus``; returns once ``/healthz`` answers.

    ``root``: a checkout whose ``parlour`` package to run (another commit's worktree), with this
    interpreter; ``env``: extra environment; ``prefix``: a command to run it under (a profiler).
    """

    def prepare() -> None:
        pin(cpus)
        raise_nofile()

    environ = {**os.environ, **SERVER_ENV, **(env or {})}
    if root is not None:
        environ["PYTHONPATH"] = root
    if environ.get("PARLOUR_BENCH_GC_LOG"):  # record the server's collections (bench/gc_probe)
        probe = os.path.join(os.path.dirname(os.path.abspath(__file__)), "gc_probe")
        environ["PYTHONPATH"] = os.pathsep.join(filter(None, [probe, environ.get("PYTHONPATH")]))
    with open(os.path.join(data_dir, "server.log"), "ab") as log:
        proc = subprocess.Popen(
            [*prefix, sys.executable, "-m", "parlour", "serve", "--port", str(port), "--data-dir", data_dir],
            env=environ,
            cwd=root,
            stdout=log,
            stderr=subprocess.STDOUT,
            preexec_fn=prepare,
        )
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError("parlour serve exited at startup; see server.log")
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=1) as r:
                if r.status == 200:
                    return proc
        except OSError:
            time.sleep(0.05)
    proc.kill()
    raise RuntimeError("parlour serve did not start in 20 s")


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def busy_seconds() -> float:
    """CPU seconds the whole machine spent busy so far (all processes, all CPUs)."""
    t = psutil.cpu_times()
    return t.user + t.system + sum(getattr(t, name, 0.0) for name in ("nice", "irq", "softirq"))


def drive(
    mode: str, url: str, server_pid: int, args: argparse.Namespace, frame: str = "", interval: float = 0.0
) -> Message:
    """Run one phase against a listening server; returns its measurements."""
    ctx = mp.get_context("spawn")
    ready, go, start_at = ctx.Queue(), ctx.Event(), ctx.Value("d", 0.0)
    server = psutil.Process(server_pid)
    time.sleep(0.5)
    baseline = server.memory_info().rss
    shared = {
        "think_ms": args.think_ms,
        "ids": args.ids,
        "target_score": args.target_score,
        "warmup": args.warmup,
        "seconds": args.seconds,
        "setup_timeout": args.setup_timeout,
        "frame": frame,
        "interval": interval,
    }
    procs: list[Any] = []
    per, extra = divmod(args.rooms, args.procs)
    first = 0
    for i in range(args.procs):
        count = per + (1 if i < extra else 0)
        proc = ctx.Process(
            target=client_process,
            args=(mode, url, first, count, shared, args.client_cpus, ready, go, start_at),
            daemon=True,
        )
        proc.start()
        procs.append(proc)
        first += count
    try:
        connections = 0
        setup_started = time.monotonic()
        for _ in procs:
            kind, value = ready.get(timeout=args.setup_timeout + 10)
            if kind != "ready":
                raise RuntimeError(f"client process: {value}")
            connections += value
        setup_seconds = time.monotonic() - setup_started
        idle_rss = server.memory_info().rss
        start_at.value = time.time() + 0.5
        go.set()
        clients = [psutil.Process(p.pid) for p in procs]
        window_start = time.time() + 0.5 + args.warmup
        window_end = window_start + args.seconds
        time.sleep(max(0.0, window_start - time.time()))
        server_cpu0 = sum(server.cpu_times()[:2])
        server_writes0 = server.io_counters().write_count  # write system calls (Linux: syscw)
        client_cpu0 = sum(sum(c.cpu_times()[:2]) for c in clients)
        machine_cpu0 = busy_seconds()
        peak_rss = 0
        while time.time() < window_end:
            peak_rss = max(peak_rss, server.memory_info().rss)
            time.sleep(0.25)
        server_cpu = (sum(server.cpu_times()[:2]) - server_cpu0) / args.seconds
        server_writes = server.io_counters().write_count - server_writes0
        client_cpu = (sum(sum(c.cpu_times()[:2]) for c in clients) - client_cpu0) / args.seconds
        other_cpu = (busy_seconds() - machine_cpu0) / args.seconds - server_cpu - client_cpu
        results = []
        for _ in procs:
            kind, value = ready.get(timeout=60)
            if kind != "stats":
                raise RuntimeError(f"client process: {value}")
            results.append(value)
    finally:
        for proc in procs:
            proc.join(timeout=10)
            if proc.is_alive():
                proc.kill()
    latencies = [x for r in results for x in r["latencies_ms"]]
    errors: dict[str, int] = {}
    for r in results:
        for code, n in r["errors"].items():
            errors[code] = errors.get(code, 0) + n
    frames = sum(r["frames"] for r in results)
    actions = sum(r["actions"] for r in results)
    cpu_ms = server_cpu * args.seconds / max(1, actions) * 1000
    return {
        "rooms": args.rooms,
        "connections": connections,
        "setup_seconds": round(setup_seconds, 2),
        "actions": actions,
        "actions_per_s": round(actions / args.seconds, 1),
        "games_finished": sum(r["games"] for r in results),
        "p50_ms": round(percentile(latencies, 0.50), 2),
        "p99_ms": round(percentile(latencies, 0.99), 2),
        "max_ms": round(max(latencies, default=float("nan")), 2),
        "mean_ms": round(statistics.fmean(latencies), 2) if latencies else float("nan"),
        "rss_baseline_mib": round(baseline / 2**20, 1),
        "rss_per_connection_kib": round((peak_rss - baseline) / max(1, connections) / 1024, 1),
        "rss_idle_per_connection_kib": round((idle_rss - baseline) / max(1, connections) / 1024, 1),
        "server_cpu": round(server_cpu, 2),
        "client_cpu": round(client_cpu, 2),
        "other_cpu": round(max(0.0, other_cpu), 2),
        "server_cpu_ms_per_action": round(cpu_ms, 3),
        "server_writes_per_action": round(server_writes / max(1, actions), 2),
        # Little's law with one action in flight per room and a whole core: the mean latency floor.
        "cpu_bound_mean_ms": round(cpu_ms * args.rooms, 1),
        "errors": errors,
        "game_frame_bytes": round(sum(r["frame_bytes"] for r in results) / frames) if frames else 0,
        "frame_sample": next((r["frame_sample"] for r in results if r["frame_sample"]), ""),
    }


def echo_phase(args: argparse.Namespace, frame: str, interval: float) -> Message:
    """A fresh echo server process driven like the UNO rooms (rounds every ``interval`` s, 0: at once)."""
    ctx = mp.get_context("spawn")
    port, up = free_port(), ctx.Event()
    echo = ctx.Process(target=echo_process, args=(port, args.server_cpus, up), daemon=True)
    echo.start()
    try:
        if not up.wait(20):
            raise RuntimeError("echo server did not start")
        measured = drive("echo", f"ws://127.0.0.1:{port}", echo.pid, args, frame, interval)
    finally:
        echo.terminate()
        echo.join(10)
    measured.pop("frame_sample")
    measured["round_interval_s"] = round(interval, 3)
    return measured


def run(args: argparse.Namespace) -> Message:
    """``parlour serve`` under UNO load, then the echo server at the same rate and flat out."""
    raise_nofile()
    with tempfile.TemporaryDirectory(prefix="parlour-load-") as data_dir:
        port = free_port()
        server = start_parlour(port, data_dir, args.server_cpus, args.server_root)
        try:
            uno = drive("uno", f"ws://127.0.0.1:{port}/api/ws", server.pid, args)
        finally:
            server.send_signal(signal.SIGINT)
            try:
                server.wait(30)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait()
    frame = uno.pop("frame_sample") or "x" * FALLBACK_FRAME_BYTES
    result: Message = {
        "machine": f"{platform.machine()}, {os.cpu_count()} CPUs, {platform.python_version()}",
        "cpus": {
            "server": sorted(args.server_cpus),
            "clients": sorted(args.client_cpus),
            "procs": args.procs,
        },
        "parlour": uno,
    }
    if not args.no_echo:
        # Same rate: each echo room starts a round at most as often as a UNO room acted.
        interval = args.rooms / uno["actions_per_s"] if uno["actions_per_s"] else 0.0
        result["echo_same_rate"] = echo_phase(args, frame, interval)
        result["echo_max"] = echo_phase(args, frame, 0.0)
        result["ratio_actions_per_s"] = round(uno["actions_per_s"] / result["echo_max"]["actions_per_s"], 3)
        result["ratio_p99_same_rate"] = round(uno["p99_ms"] / result["echo_same_rate"]["p99_ms"], 2)
        # Independent of how much CPU each phase got on a shared machine: capacity per core.
        result["ratio_capacity"] = round(
            result["echo_max"]["server_cpu_ms_per_action"] / uno["server_cpu_ms_per_action"], 3
        )
    result["bar_met"] = args.rooms >= 500 and uno["p99_ms"] < 100
    return result


def report(r: Message) -> str:
    """A plain-text table of both phases."""
    rows = [("parlour serve (UNO)", r["parlour"])]
    if "echo_max" in r:
        rows.append(("echo, same rate", r["echo_same_rate"]))
        rows.append(("echo, flat out", r["echo_max"]))
    out = [
        f"machine: {r['machine']}; server on CPU {r['cpus']['server']}, "
        f"{r['cpus']['procs']} client process(es) on CPU {r['cpus']['clients']}",
        f"{'':22}{'rooms':>6}{'conns':>7}{'act/s':>9}{'p50 ms':>9}{'p99 ms':>9}{'max ms':>9}"
        f"{'KiB/conn':>10}{'srv CPU':>9}{'cli CPU':>9}{'other':>7}",
    ]
    for name, m in rows:
        out.append(
            f"{name:22}{m['rooms']:>6}{m['connections']:>7}{m['actions_per_s']:>9.0f}{m['p50_ms']:>9.1f}"
            f"{m['p99_ms']:>9.1f}{m['max_ms']:>9.1f}{m['rss_per_connection_kib']:>10.1f}"
            f"{m['server_cpu']:>9.2f}{m['client_cpu']:>9.2f}{m['other_cpu']:>7.2f}"
        )
    p = r["parlour"]
    out.append(
        f"UNO: {p['games_finished']} games finished, game frame ≈ {p['game_frame_bytes']} B, "
        f"idle {p['rss_idle_per_connection_kib']} KiB/conn, setup {p['setup_seconds']} s, "
        f"errors {p['errors']}"
    )
    for name, m in rows:
        out.append(
            f"{name}: {m['server_cpu_ms_per_action']} ms server CPU per action (echo: per round) → "
            f"≥ {m['cpu_bound_mean_ms']} ms mean latency flat out on one whole core; "
            f"{m['server_writes_per_action']} write system calls per action"
        )
    if "echo_max" in r:
        out.append(
            f"parlour / echo: actions/s ×{r['ratio_actions_per_s']} of flat-out echo rounds/s; "
            f"p99 ×{r['ratio_p99_same_rate']} of echo at the same rate; "
            f"capacity per core (by server CPU) ×{r['ratio_capacity']}"
        )
    out.append(f"bar (500 rooms, p99 < 100 ms): {'met' if r['bar_met'] else 'NOT met'}")
    return "\n".join(out)


def cpu_set(text: str) -> set[int]:
    return {int(c) for c in text.split(",") if c}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rooms", type=int, default=500, help="concurrent UNO rooms of 4 (default 500)")
    parser.add_argument("--seconds", type=float, default=30.0, help="measured window (default 30)")
    parser.add_argument(
        "--warmup", type=float, default=3.0, help="unmeasured seconds after start (default 3)"
    )
    parser.add_argument("--procs", type=int, default=1, help="client processes (default 1)")
    parser.add_argument(
        "--ids", action="store_true", help="actions carry a request id, as the web client's do (answered ok)"
    )
    parser.add_argument(
        "--target-score",
        type=int,
        default=0,
        help="UNO's target score: 0 (default) makes each hand a game, stored as it ends; 500 plays matches",
    )
    parser.add_argument("--think-ms", type=float, default=0.0, help="pause before each action (default 0)")
    parser.add_argument("--server-cpus", type=cpu_set, default={0}, help="CPUs for the server (default 0)")
    parser.add_argument("--client-cpus", type=cpu_set, default={1}, help="CPUs for the clients (default 1)")
    parser.add_argument(
        "--setup-timeout", type=float, default=120.0, help="bound on connecting (default 120)"
    )
    parser.add_argument("--no-echo", action="store_true", help="skip the echo ceiling")
    parser.add_argument("--server-root", help="another checkout's server to run")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()
    args.rooms = max(1, min(args.rooms, 2500))
    args.procs = max(1, min(args.procs, args.rooms))
    result = run(args)
    print(json.dumps(result) if args.json else report(result))


if __name__ == "__main__":
    main()
