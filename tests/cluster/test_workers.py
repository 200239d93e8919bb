"""``parlour serve --workers 2 --redis URL``: two processes on one port are one Parlour."""

from __future__ import annotations

import contextlib
import signal
import time
from pathlib import Path

import psutil

from tests.cluster.workers import health, start_workers
from tests.ports import free_port
from tests.server.client import close_all, open_table, play_game
from tests.server.conftest import FAST_ENV


async def test_two_workers_share_one_port_and_one_set_of_rooms(redis_server, tmp_path) -> None:
    port = free_port()
    proc = start_workers(redis_server.url, port, tmp_path, {**FAST_ENV, "PARLOUR_LOG_LEVEL": "warning"})
    try:
        seen: set[str] = set()
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and len(seen) < 2:
            seen.add(health(port)["node"])  # a new connection each time: the kernel spreads them
        assert len(seen) == 2, (tmp_path / "workers.log").read_text()[-2000:]
        url = f"ws://127.0.0.1:{port}/api/ws"
        seated, watchers, _ = await open_table(url, "dots", 3, {"width": 3, "height": 3, "max_players": 3})
        over = await play_game(seated)
        assert over["outcome"]
        await close_all(seated, watchers)
    finally:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(30) == 0


async def test_a_killed_worker_is_replaced_and_its_hand_over_socket_goes(redis_server, tmp_path) -> None:
    """``kill -9`` of one worker: the supervisor starts another on the same port, the two serve one
    set of rooms again, and the hand-over directory holds the sockets of the live workers only."""
    port = free_port()
    proc = start_workers(redis_server.url, port, tmp_path, {**FAST_ENV, "PARLOUR_LOG_LEVEL": "warning"})
    try:
        first = psutil.Process(proc.pid).children()
        assert len(first) == 2
        handoff = Path(first[0].environ()["PARLOUR_HANDOFF_DIR"])
        first[0].kill()
        first[0].wait(10)
        deadline = time.monotonic() + 30
        live: set[str] = set()
        while time.monotonic() < deadline:
            workers = psutil.Process(proc.pid).children()
            if len(workers) == 2 and first[0].pid not in {w.pid for w in workers}:
                with contextlib.suppress(OSError, ValueError):
                    live.add(health(port)["node"])  # the kernel spreads new connections over both
                if len(live) >= 2 and {p.stem for p in handoff.glob("*.sock")} <= live:
                    break
            time.sleep(0.05)
        assert len(psutil.Process(proc.pid).children()) == 2, (tmp_path / "workers.log").read_text()[-2000:]
        sockets = {p.stem for p in handoff.glob("*.sock")}
        assert len(sockets) == 2 and sockets <= live, (sockets, live)
        url = f"ws://127.0.0.1:{port}/api/ws"
        seated, watchers, _ = await open_table(url, "dots", 3, {"width": 3, "height": 3, "max_players": 3})
        assert (await play_game(seated))["outcome"]
        await close_all(seated, watchers)
    finally:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(30) == 0
