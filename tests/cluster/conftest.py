"""A real ``redis-server`` on a free port (data in a temp dir) and real ``parlour serve`` nodes on it.

Leases are short here (``PARLOUR_LEASE_SECONDS``) so fail-over tests run in seconds; the protocol
is the same as with the default.
"""

from __future__ import annotations

import shutil
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.ports import free_port
from tests.server.conftest import FAST_ENV, ServerProcess

LEASE = "2"


class RedisProcess:
    """``redis-server`` with AOF in a temp dir; ``restart()`` stops it (SIGTERM) and starts it again.
    ``options``: more of its command-line options, after (so overriding) the defaults."""

    def __init__(self, root: Path, *options: str) -> None:
        self.dir = root
        self.port = free_port()
        self.options = options
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        binary = shutil.which("redis-server") or "/usr/bin/redis-server"
        self.proc = subprocess.Popen(
            [
                binary,
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--dir",
                str(self.dir),
                "--appendonly",
                "yes",
                "--appendfsync",
                "everysec",
                "--save",
                "",
                "--protected-mode",
                "no",
                *self.options,
            ],
            stdout=(self.dir / "redis.log").open("ab"),
            stderr=subprocess.STDOUT,
        )
        deadline = time.monotonic() + 10
        import socket

        while time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2) as s:
                    s.sendall(b"PING\r\n")
                    if s.recv(16).startswith(b"+PONG"):
                        return
            except OSError:
                time.sleep(0.05)
        raise RuntimeError("redis-server did not start")

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            self.proc.wait(10)

    def restart(self, down: float = 0.0) -> None:
        self.stop()
        time.sleep(down)
        self.start()


@pytest.fixture
def redis_server(tmp_path: Path) -> Iterator[RedisProcess]:
    if shutil.which("redis-server") is None and not Path("/usr/bin/redis-server").exists():
        pytest.fail("redis-server is missing: ./test installs it (scripts/install-redis.sh)")
    proc = RedisProcess(tmp_path)
    proc.start()
    yield proc
    proc.stop()


class Cluster:
    """``parlour serve --redis`` nodes, each with its own port."""

    def __init__(self, root: Path, redis: RedisProcess) -> None:
        self.root = root
        self.redis = redis
        self.nodes: list[ServerProcess] = []

    def add(self, env: dict[str, str] | None = None) -> ServerProcess:
        data = self.root / f"node{len(self.nodes)}"
        data.mkdir()
        node_env = {
            **FAST_ENV,
            "PARLOUR_REDIS_URL": self.redis.url,
            "PARLOUR_LEASE_SECONDS": LEASE,
            **(env or {}),
        }
        proc = ServerProcess(data, node_env)
        proc.start(timeout=60)  # generous: the shared CI machine may be loaded
        self.nodes.append(proc)
        return proc

    def stop(self) -> None:
        for node in self.nodes:
            if node.alive():
                if node.proc is not None:
                    node.proc.send_signal(signal.SIGCONT)
                node.stop()


@pytest.fixture
def cluster(tmp_path: Path, redis_server: RedisProcess) -> Iterator[Cluster]:
    c = Cluster(tmp_path, redis_server)
    yield c
    c.stop()
    for i, node in enumerate(c.nodes):  # shown only when the test failed: what each node warned of
        warnings = [
            line
            for line in node.log_path.read_text(errors="replace").splitlines()
            if "level=warning" in line or "level=error" in line
        ]
        print(f"node{i} ({node.port}) warned {len(warnings)} times", *warnings[-40:], sep="\n  ")
