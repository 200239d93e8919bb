"""``parlour serve --workers 2 --redis URL``: two processes on one port are one Parlour."""

from __future__ import annotations

import signal
import time

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
