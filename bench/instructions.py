"""Instructions per native UNO action and per /dots game, counted by callgrind (not a test).

CPU seconds per action on this (virtual) machine move by ±15% from one run to the next, which hides a
change of a few percent; valgrind's callgrind counts the server's user-space instructions, which come
out the same within ~0.1% run after run, whatever else the machine does. Kernel time (the socket
writes) is not counted: CPU seconds (``server_load.py``, ``protocol_load.py``) stay the measure of the
issue's targets, and this one says whether a change to the Python path saved anything.

Each measure is the difference of two runs of different length, so start-up and connection set-up
cancel: native UNO is ``server_load.py``'s clients (10 rooms of 4, playing flat out) for 5 and 30
seconds, divided by the difference in frames the server received (``parlour_messages_in``: the actions
and the few frames that start the next game); /dots is ``protocol_load.py``'s client playing 10 and
40 whole 8×8 games (5 at a time), divided by 30.

    python bench/instructions.py [--what native|dots|both] [--base-root DIR] [--target-score N]

needs ``valgrind`` (Debian: ``apt-get install valgrind``); a run takes 1-4 minutes.
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import protocol_load
import server_load


def serve(root: str, data_dir: str, out: str) -> tuple[subprocess.Popen[bytes], int]:
    """``parlour serve`` from ``root`` under callgrind, pinned to CPU 0, once it answers."""
    port = server_load.free_port()
    env = {**os.environ, **server_load.SERVER_ENV, "PYTHONPATH": root, "PYTHONHASHSEED": "0"}
    env.update({"PARLOUR_READY_COUNTDOWN": "0.2", "PARLOUR_GRACE_SECONDS": "60"})
    command = ["taskset", "-c", "0", "valgrind", "--tool=callgrind", f"--callgrind-out-file={out}"]
    command += [sys.executable, "-m", "parlour", "serve", "--port", str(port), "--data-dir", data_dir]
    with open(os.path.join(data_dir, "server.log"), "ab") as log:
        proc = subprocess.Popen(command, env=env, cwd=root, stdout=log, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 300
    while True:
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=5)
            return proc, port
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"the server under callgrind did not start (see {data_dir})") from None
            time.sleep(0.5)


def stop(proc: subprocess.Popen[bytes], out: str) -> int:
    """Stop the server (callgrind writes its counts at exit); its instructions in all."""
    proc.send_signal(signal.SIGINT)
    proc.wait(600)
    text = Path(out).read_text()
    found = re.search(r"^(?:summary|totals): (\d+)", text, re.M)
    if found is None:
        raise RuntimeError(f"no totals in {out}")
    return int(found.group(1))


def native_run(root: str, seconds: float, target_score: int = 0) -> tuple[int, int]:
    """Instructions and frames received for ``seconds`` of 10 UNO rooms playing flat out (one-hand games,
    or matches to ``target_score``: ``server_load.py --target-score``)."""
    with tempfile.TemporaryDirectory(prefix="parlour-instr-") as data_dir:
        out = os.path.join(data_dir, "callgrind.out")
        proc, port = serve(root, data_dir, out)
        try:
            args = argparse.Namespace(
                think_ms=0.0,
                ids=False,
                target_score=target_score,
                warmup=0.0,
                seconds=seconds,
                setup_timeout=600,
                procs=1,
                rooms=10,
            )
            args.client_cpus = {1}
            server_load.drive("uno", f"ws://127.0.0.1:{port}/api/ws", proc.pid, args)
            metrics = urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=60).read().decode()
            found = re.search(r"^parlour_messages_in(?:_total)? ([0-9.e+]+)$", metrics, re.M)
            if found is None:
                raise RuntimeError("no parlour_messages_in in /metrics")
        except BaseException:
            proc.kill()
            raise
        return stop(proc, out), int(float(found.group(1)))


def dots_run(root: str, games: int) -> int:
    """Instructions for ``games`` whole 8×8 /dots games, 5 at a time."""
    with tempfile.TemporaryDirectory(prefix="parlour-instr-") as data_dir:
        out = os.path.join(data_dir, "callgrind.out")
        proc, port = serve(root, data_dir, out)
        try:
            ctx = mp.get_context("spawn")
            queue = ctx.Queue()
            client = ctx.Process(
                target=protocol_load.client_process,
                args=("dots", "dots", f"ws://127.0.0.1:{port}", games, 5, protocol_load.DOTS, {1}, queue),
            )
            client.start()
            kind, value = queue.get(timeout=3600)
            client.join(30)
            if kind != "ok":
                raise RuntimeError(f"/dots client: {value}")
        except BaseException:
            proc.kill()
            raise
        return stop(proc, out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--what", choices=("native", "dots", "both"), default="both")
    parser.add_argument("--server-root", help="the checkout to measure (default: this one)")
    parser.add_argument("--base-root", help="a worktree of the commit to compare with")
    parser.add_argument(
        "--target-score", type=int, default=0, help="native: play matches to this score (0: one-hand games)"
    )
    args = parser.parse_args()
    root = args.server_root or str(Path(__file__).resolve().parent.parent)
    trees = [("this", root)] + ([("base", args.base_root)] if args.base_root else [])
    results: dict[tuple[str, str], float] = {}
    for label, where in trees:
        if args.what in ("native", "both"):
            short, frames_short = native_run(where, 5, args.target_score)
            long, frames_long = native_run(where, 30, args.target_score)
            results[label, "native"] = (long - short) / (frames_long - frames_short)
            print(
                f"{label}: {results[label, 'native'] / 1e3:.1f} k instructions per native UNO frame",
                flush=True,
            )
        if args.what in ("dots", "both"):
            results[label, "dots"] = (dots_run(where, 40) - dots_run(where, 10)) / 30
            print(f"{label}: {results[label, 'dots'] / 1e6:.2f} M instructions per /dots game", flush=True)
    for what in ("native", "dots"):
        if ("base", what) in results:
            print(f"{what}: ×{results['this', what] / results['base', what]:.3f} of base")


if __name__ == "__main__":
    main()
