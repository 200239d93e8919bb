"""Server start-up benchmark (not a test): ``python bench/startup.py [--runs N] [--base-root DIR]``.

Starts ``parlour serve`` (one process, a fresh data dir each time) again and again and reports, per
tree, the median wall time until ``/healthz`` answers, the server's CPU seconds by then, and the wall
time of the first Socket.IO handshake after that (``GET /socket.io/?EIO=4&transport=polling``).
``--base-root``: a worktree of another commit, run with this interpreter; the trees take turns, so a
machine that slows down slows both. Start-up is what a restart (or a kill -9) costs before rooms come
back, and what every server a test starts costs.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import psutil

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.server_load import SERVER_ENV
from tests.ports import free_port

POLL = 0.01


def _get(url: str) -> int | None:
    try:
        with urllib.request.urlopen(url, timeout=5) as r:
            r.read()
            return int(r.status)
    except OSError:
        return None


def once(root: str | None) -> tuple[float, float, float]:
    """Wall seconds to ready, CPU seconds by then, wall seconds of the first Socket.IO handshake."""
    port = free_port()
    env = {**os.environ, **SERVER_ENV}
    if root is not None:
        env["PYTHONPATH"] = root
    with tempfile.TemporaryDirectory() as data:
        started = time.perf_counter()
        proc = subprocess.Popen(
            [sys.executable, "-m", "parlour", "serve", "--port", str(port), "--data-dir", data],
            env=env,
            cwd=root,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            server = psutil.Process(proc.pid)
            while _get(f"http://127.0.0.1:{port}/healthz") != 200:
                if proc.poll() is not None or time.perf_counter() - started > 30:
                    raise RuntimeError("parlour serve did not start")
                time.sleep(POLL)
            ready = time.perf_counter() - started
            times = server.cpu_times()
            cpu = times.user + times.system
            asked = time.perf_counter()
            if _get(f"http://127.0.0.1:{port}/socket.io/?EIO=4&transport=polling") != 200:
                raise RuntimeError("the Socket.IO handshake failed")
            handshake = time.perf_counter() - asked
        finally:
            proc.terminate()
            proc.wait(15)
    return ready, cpu, handshake


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15, help="starts per tree")
    parser.add_argument("--base-root", help="a worktree of the commit to compare with")
    args = parser.parse_args()
    trees: list[tuple[str, str | None]] = [("this", None)]
    if args.base_root:
        trees.append(("base", os.path.abspath(args.base_root)))
    for _, root in trees:
        once(root)  # warm the file cache (and, where bytecode is written, the .pyc files)
    results: dict[str, list[tuple[float, float, float]]] = {name: [] for name, _ in trees}
    for _ in range(args.runs):
        for name, root in trees:
            results[name].append(once(root))
    flag = os.environ.get("PYTHONDONTWRITEBYTECODE", "")
    print(f"PYTHONDONTWRITEBYTECODE={flag!r}, {args.runs} starts each")
    print("| tree | ready (wall, ms) | CPU by then (ms) | first Socket.IO handshake (ms) |")
    print("|---|---|---|---|")
    for name, _ in trees:
        columns = zip(*results[name], strict=True)
        ready, cpu, handshake = (statistics.median(column) * 1000 for column in columns)
        print(f"| {name} | {ready:.0f} | {cpu:.0f} | {handshake:.0f} |")


if __name__ == "__main__":
    main()
