"""What a server loads to start, and the Socket.IO server it loads on the first request for it.

python-socketio imports every client and message queue it has (with aiohttp and redis-py where
installed): most of a server's start-up CPU once, paid by every restart and every server a test
starts. The app mounts ``/socket.io/`` without it and loads it on the first request there."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import urllib.request
from concurrent.futures import ThreadPoolExecutor

_LOADED = """
import json
import sys
from parlour.config import Config
from parlour.net.app import create_app
create_app(Config.from_env({}, data_dir=sys.argv[1]))
print(json.dumps(sorted(m for m in ("socketio", "engineio", "aiohttp", "redis") if m in sys.modules)))
"""


def test_building_the_app_loads_neither_socketio_nor_redis(tmp_path) -> None:
    out = subprocess.run(
        [sys.executable, "-c", _LOADED, str(tmp_path)], capture_output=True, text=True, check=True, timeout=60
    )
    assert json.loads(out.stdout) == []


def test_the_first_socketio_requests_arriving_at_once_are_all_answered(server_factory) -> None:
    """Eight handshakes sent together to a server that has not loaded python-socketio yet: each gets a
    session of its own (they all wait for the one load), and the native API answers meanwhile."""
    srv = server_factory()

    def handshake(_: int) -> str:
        url = f"{srv.http}/socket.io/?EIO=4&transport=polling"
        with urllib.request.urlopen(url, timeout=30) as r:
            body = r.read().decode()
        assert body.startswith("0{"), body
        return str(json.loads(body[1:])["sid"])

    with ThreadPoolExecutor(9) as pool:
        sids = pool.map(handshake, range(8))
        health = pool.submit(srv.get, "/healthz")
        assert json.loads(health.result())["status"] == "ok"
        assert len(set(sids)) == 8


def test_a_port_in_use_stops_the_server_at_once_saying_why(tmp_path) -> None:
    """Before: a banner said the server ran at that address, the store was opened and every room
    recovered, and only then a log line said the port was taken (exit 3)."""
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        command = ["serve", "--host", "127.0.0.1", "--port", str(port), "--data-dir", str(tmp_path)]
        out = subprocess.run(
            [sys.executable, "-m", "parlour", *command],
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert out.returncode == 1
    assert f"port {port} is already in use on 127.0.0.1" in out.stderr
    assert f"--port {port + 1}" in out.stderr
    assert "Parlour: http" not in out.stdout  # no banner saying it runs
    assert not (tmp_path / "parlour.db").exists()  # no start-up work done
