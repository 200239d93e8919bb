"""``parlour serve --workers N``: N server processes on one port, supervised.

Each worker is an ordinary cluster node (``--redis``) that binds the port itself with
``SO_REUSEPORT``, so the kernel spreads new connections over the workers (no shared accept queue,
no proxy hop); a connection that names a room another worker owns is passed to that worker
(net/handoff.py). The supervisor only starts them, forwards SIGTERM/SIGINT (each worker then hands
its rooms over, docs/scaling.md) and starts a worker again if one dies; a dead worker's rooms fail
over to its siblings meanwhile, like any node's.
"""

from __future__ import annotations

import logging
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import FrameType

from parlour.config import Config

log = logging.getLogger("parlour.workers")


def _spawn(config: Config, handoff: str) -> subprocess.Popen[bytes]:
    env = {
        **os.environ,
        "PARLOUR_HOST": config.host,
        "PARLOUR_PORT": str(config.port),
        "PARLOUR_DATA_DIR": config.data_dir,
        "PARLOUR_LOG_LEVEL": config.log_level,
        "PARLOUR_REDIS_URL": config.redis_url,
        "PARLOUR_WORKERS": "1",
        "PARLOUR_REUSE_PORT": "1",
        "PARLOUR_HANDOFF_DIR": handoff,
    }
    return subprocess.Popen([sys.executable, "-m", "parlour", "serve"], env=env)


def _forget(handoff: str, pid: int) -> None:
    """Remove a dead worker's hand-over socket (``<node>.sock``): siblings then see at once that it
    is gone, and the directory lists live workers only. A node's name ends in its pid and six hex
    digits (``store.redis.node_name``); the replacement gets a name of its own."""
    mine = re.compile(rf".*-{pid}-[0-9a-f]{{6}}\.sock")
    for path in Path(handoff).iterdir():
        if mine.fullmatch(path.name):
            path.unlink(missing_ok=True)


def supervise(config: Config) -> int:
    """Run ``config.workers`` workers until SIGTERM/SIGINT; returns the exit code."""
    if not config.redis_url:
        raise SystemExit("--workers needs --redis (workers share rooms through Redis)")
    if not hasattr(__import__("socket"), "SO_REUSEPORT"):
        raise SystemExit("--workers needs SO_REUSEPORT (Linux, BSD, macOS)")
    from parlour.net.logs import configure_logging

    configure_logging(config.log_level)
    # Only this user may enter it: whoever can write a socket there can hand a worker connections.
    handoff = tempfile.mkdtemp(prefix="parlour-handoff-")
    workers = [_spawn(config, handoff) for _ in range(config.workers)]
    stopping = False

    def stop(signum: int, frame: FrameType | None) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    log.info("event=workers_started workers=%d port=%d", len(workers), config.port)
    while not stopping:
        time.sleep(0.2)
        for i, worker in enumerate(workers):
            if worker.poll() is not None and not stopping:
                log.warning(
                    "event=worker_died pid=%d code=%s; starting another", worker.pid, worker.returncode
                )
                _forget(handoff, worker.pid)
                workers[i] = _spawn(config, handoff)
    for worker in workers:
        if worker.poll() is None:
            worker.send_signal(signal.SIGTERM)
    for worker in workers:
        try:
            worker.wait(20)
        except subprocess.TimeoutExpired:
            worker.kill()
    shutil.rmtree(handoff, ignore_errors=True)
    return 0
