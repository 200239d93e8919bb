"""Real ``parlour serve`` processes for protocol tests: a free port and a temp data dir each.

``server`` is one process per xdist worker, shared by tests that only need rooms of their own;
``server_factory`` starts extra processes with their own environment (short grace, low rate
limits) and can ``kill()`` (SIGKILL) and ``start()`` them again on the same data dir.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

# Test modules import ``tests.server.client``; make that work however pytest is started.
ROOT = str(Path(__file__).resolve().parents[2])
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

from tests.ports import free_port  # noqa: E402  (after ROOT is importable)

# Generous for scripted clients that act as fast as the server answers; the flood test sets its own.
# Every test client comes from 127.0.0.1, so the per-address limits are lifted too (the hardening
# tests set their own).
GENEROUS_LIMITS = {
    "PARLOUR_CONNECTIONS_PER_IP": "100000",
    "PARLOUR_SESSIONS_PER_IP_PER_MINUTE": "1000000",
    "PARLOUR_ROOMS_PER_IP": "100000",
    "PARLOUR_MAX_ROOMS": "100000",
    "PARLOUR_CODE_MISSES_PER_IP_PER_MINUTE": "100000",
    "PARLOUR_CHAT_PER_10_SECONDS": "100000",
}
FAST_ENV = {"PARLOUR_RATE_PER_SECOND": "10000", "PARLOUR_RATE_BURST": "10000", **GENEROUS_LIMITS}


class ServerProcess:
    """One ``python -m parlour serve`` subprocess."""

    def __init__(self, data_dir: Path, env: dict[str, str], module: str = "parlour") -> None:
        """``module`` is run with ``-m``: the product, or a test's launcher of it (``plain_game``)."""
        self.data_dir = data_dir
        self.env = env
        self.module = module
        self.port = free_port()
        self.proc: subprocess.Popen[bytes] | None = None
        self.log_path = data_dir / "server.log"

    @property
    def http(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws(self) -> str:
        return f"ws://127.0.0.1:{self.port}/api/ws"

    def start(self, timeout: float = 10.0) -> float:
        """Start and wait until ``/healthz`` answers; returns the startup time in seconds."""
        env = {**os.environ, **self.env, "PARLOUR_LOG_LEVEL": self.env.get("PARLOUR_LOG_LEVEL", "warning")}
        started = time.monotonic()
        log = self.log_path.open("ab")
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                self.module,
                "serve",
                "--port",
                str(self.port),
                "--data-dir",
                str(self.data_dir),
            ],
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        while time.monotonic() - started < timeout:
            if self.proc.poll() is not None:
                raise RuntimeError(f"server exited: {self.log_path.read_text()[-3000:]}")
            try:
                with urllib.request.urlopen(self.http + "/healthz", timeout=0.5) as r:
                    if r.status == 200:
                        return time.monotonic() - started
            except OSError:
                time.sleep(0.05)
        raise RuntimeError("server did not start in time")

    def get(self, path: str) -> bytes:
        with urllib.request.urlopen(self.http + path, timeout=5) as r:
            return r.read()

    def kill(self) -> None:
        """SIGKILL: no shutdown handler runs, as in a crash."""
        assert self.proc is not None
        self.proc.kill()
        self.proc.wait(10)

    def stop(self) -> int:
        """SIGTERM and wait for a clean exit; returns the exit code."""
        if self.proc is None or self.proc.poll() is not None:
            return self.proc.returncode if self.proc else 0
        self.proc.send_signal(signal.SIGTERM)
        return self.proc.wait(15)

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    proc = ServerProcess(tmp_path_factory.mktemp("parlour-server"), dict(FAST_ENV))
    proc.start()
    yield proc
    proc.stop()


@pytest.fixture
def server_factory(tmp_path: Path) -> Iterator[ServerFactory]:
    factory = ServerFactory(tmp_path)
    yield factory
    for proc in factory.started:
        proc.stop()


class ServerFactory:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.started: list[ServerProcess] = []

    def __call__(self, env: dict[str, str] | None = None, fast: bool = True) -> ServerProcess:
        data = self.root / f"server{len(self.started)}"
        data.mkdir()
        proc = ServerProcess(data, {**(FAST_ENV if fast else GENEROUS_LIMITS), **(env or {})})
        proc.start()
        self.started.append(proc)
        return proc
