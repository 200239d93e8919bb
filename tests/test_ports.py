"""``tests/ports.py``: two test processes on one machine never take ports from the same block."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests import ports

ROOT = Path(__file__).resolve().parents[1]
BLOCK_OF_A_NEW_PROCESS = "from tests import ports; print(ports.block().start, ports.free_port())"


def test_another_process_with_the_same_worker_name_gets_another_block() -> None:
    """As a suite started while CI runs: its worker ``gw0`` must not share this ``gw0``'s ports."""
    mine = ports.block()  # claimed now, if no test of this process has started a server yet
    env = {**os.environ, "PYTEST_XDIST_WORKER": os.environ.get("PYTEST_XDIST_WORKER", "gw0")}
    done = subprocess.run(
        [sys.executable, "-c", BLOCK_OF_A_NEW_PROCESS],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    first, port = (int(v) for v in done.stdout.split())
    assert first != mine.start and port not in mine  # another block, and its port outside this one's
    assert ports.free_port() in mine
