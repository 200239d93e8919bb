"""The long fuzz run: hostile frames on every endpoint of a real ``parlour serve``, with the
invariant checked after every frame (tests/fuzz/harness.py).

    .venv/bin/python bench/fuzz.py --frames 1000000

Endpoints take turns in rounds of ``--round`` frames each, so a run stopped early (``--seconds``,
or SIGINT/SIGTERM) has covered every endpoint alike and still prints its totals: the frames sent
per endpoint, how often the server closed the victim's connection (and with which codes),
invariant failures (each is fatal: the run stops and shows the frame), tracebacks, the bystander's
ping round trip (p50/p99) and the server's CPU seconds.
"""

from __future__ import annotations

import argparse
import signal
import statistics
import sys
import tempfile
import time
import warnings
from collections import Counter
from pathlib import Path
from typing import Any

import psutil
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.fuzz import harness  # noqa: E402
from tests.fuzz.harness import Fuzzer, LoopThread  # noqa: E402
from tests.fuzz.strategies import frames_for  # noqa: E402
from tests.server.conftest import FAST_ENV, ServerProcess  # noqa: E402

ENDPOINTS = ["native", "dots", "cheat", "socketio", "socketio2"]
PER_EXAMPLE = 20


def run_endpoint(
    loop: LoopThread, fuzz: Fuzzer, endpoint: str, examples: int, moves_every: int, sent: Counter[str]
) -> None:
    """``examples`` lists of ``PER_EXAMPLE`` hostile frames on ``endpoint``, the invariant after each."""

    @settings(
        max_examples=examples,
        deadline=None,
        database=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(frames=st.lists(frames_for(endpoint, fuzz.known), min_size=PER_EXAMPLE, max_size=PER_EXAMPLE))
    def run(frames: list[Any]) -> None:
        for frame in frames:
            moves = (fuzz.frames + 1) % moves_every == 0
            loop.run(fuzz.frame(endpoint, frame, moves=moves))
            sent[endpoint] += 1
        fuzz.check_log()

    run()


def main() -> int:
    # The harness's socket clients draw from ``random`` (websocket masks) while Hypothesis runs.
    warnings.filterwarnings("ignore", message="Do not use the `random` module")
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--frames", type=int, default=10_000, help="hostile frames in all (default 10000)")
    parser.add_argument("--endpoints", default=",".join(ENDPOINTS), help="comma-separated endpoints")
    parser.add_argument(
        "--moves-every", type=int, default=1, help="bystander tables move after every Nth frame (default 1)"
    )
    parser.add_argument("--round", type=int, default=2000, help="frames per endpoint per turn (default 2000)")
    parser.add_argument("--seconds", type=float, default=0, help="stop after this long (default: no limit)")
    parser.add_argument(
        "--probe-timeout",
        type=float,
        default=harness.PROBE_TIMEOUT,
        help="seconds an answer may take (default 10; raise it under nice on a busy machine)",
    )
    args = parser.parse_args()
    harness.PROBE_TIMEOUT = args.probe_timeout
    # SIGTERM stops the run like Ctrl-C: the totals so far are still printed.
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    endpoints = args.endpoints.split(",")
    data = Path(tempfile.mkdtemp(prefix="parlour-fuzz-"))
    server = ServerProcess(data, {**FAST_ENV, "PARLOUR_LOG_LEVEL": "info"})
    try:
        server.start(timeout=60.0)  # a niced run on a busy machine starts slowly
    except RuntimeError:
        if server.proc is not None and server.proc.poll() is None:
            server.kill()  # a server that did not answer in time must not outlive the run
        raise
    assert server.proc is not None
    cpu = psutil.Process(server.proc.pid)
    cpu_before = sum(cpu.cpu_times()[:2])
    loop = LoopThread()
    fuzz = Fuzzer(server.port, server.log_path, endpoints)
    loop.run(fuzz.setup())
    sent: Counter[str] = Counter()
    started = time.monotonic()
    per_endpoint = args.frames // len(endpoints)
    stopped = "all frames sent"
    try:
        while min(sent[e] for e in endpoints) < per_endpoint:
            for endpoint in endpoints:
                frames = min(args.round, per_endpoint - sent[endpoint])
                run_endpoint(loop, fuzz, endpoint, max(1, frames // PER_EXAMPLE), args.moves_every, sent)
                print(f"{endpoint}: {sent[endpoint]} frames, {time.monotonic() - started:.0f} s", flush=True)
            if args.seconds and time.monotonic() - started > args.seconds:
                stopped = f"stopped after {args.seconds:.0f} s"
                break
    except KeyboardInterrupt:
        stopped = "stopped by a signal"
    finally:
        seconds = time.monotonic() - started
        cpu_used = sum(cpu.cpu_times()[:2]) - cpu_before if server.alive() else float("nan")
        loop.run(fuzz.close())
        loop.stop()
        alive = server.alive()
        server.stop()
    lat = sorted(fuzz.latencies)
    print(f"frames sent: {sum(sent.values())} ({dict(sent)}) in {seconds:.0f} s ({stopped})")
    print(f"server alive at the end: {alive}; invariant failures: 0; tracebacks: 0")
    for endpoint, victim in fuzz.victims.items():
        codes = dict(Counter(victim.close_codes))
        print(f"{endpoint}: closed by the server {victim.reopened} times, codes {codes}")
    print(f"bystander tables: {sum(t.moves for t in fuzz.tables)} moves, none refused")
    if lat:
        p99 = lat[min(len(lat) - 1, int(len(lat) * 0.99))]
        print(f"bystander ping: p50 {statistics.median(lat) * 1000:.2f} ms, p99 {p99 * 1000:.2f} ms")
    print(f"server CPU: {cpu_used:.1f} s ({cpu_used / max(1, sum(sent.values())) * 1e6:.0f} µs per frame)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
