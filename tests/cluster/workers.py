"""``parlour serve --workers 2 --redis URL`` as a subprocess, for the tests that need the real thing
(tests/cluster/test_workers.py, test_handoff.py, tests/browser/test_web_workers.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def health(port: int) -> dict:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2) as r:
        return json.loads(r.read())


def start_workers(redis_url: str, port: int, data: Path, env: dict[str, str]) -> subprocess.Popen[bytes]:
    """Two workers on ``port``, logging to ``data/workers.log``; returns once both have answered."""
    command = [sys.executable, "-m", "parlour", "serve", "--workers", "2", "--redis", redis_url]
    proc = subprocess.Popen(
        [*command, "--port", str(port), "--data-dir", str(data)],
        env={**os.environ, **env},
        cwd=ROOT,
        stdout=(data / "workers.log").open("ab"),
        stderr=subprocess.STDOUT,
    )
    deadline = time.monotonic() + 30
    answered: set[str] = set()
    while time.monotonic() < deadline:
        try:
            # Both serving, not only both in the cluster: a worker joins the cluster before its startup
            # ends, and until it listens the kernel gives every connection to the other.
            reply = health(port)
            answered.add(reply["node"])
            if len(reply["cluster"]["nodes"]) == 2 and len(answered) == 2:
                return proc
        except (OSError, ValueError, KeyError):
            pass
        time.sleep(0.1)
    proc.kill()
    raise AssertionError((data / "workers.log").read_text()[-2000:])
