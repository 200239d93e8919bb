"""``parlour serve --workers 2`` in the browser: friends who open the invite link are served by the worker
that owns their room (the client names the room when it connects, net/handoff.py), and play as always."""

from __future__ import annotations

import json
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest
import redis
from browser_helpers import create_room, join_room, start_game

from tests.cluster.workers import start_workers
from tests.ports import free_port

pytestmark = pytest.mark.browser


@pytest.fixture
def workers(tmp_path: Path):
    """Its own redis-server and ``parlour serve --workers 2`` on it; yields (base URL, Redis client)."""
    binary = shutil.which("redis-server") or "/usr/bin/redis-server"
    if not Path(binary).exists():
        pytest.fail("redis-server is missing: ./test installs it (scripts/install-redis.sh)")
    redis_port, port = free_port(), free_port()
    store = subprocess.Popen(
        [binary, "--port", str(redis_port), "--bind", "127.0.0.1", "--save", "", "--dir", str(tmp_path)],
        stdout=subprocess.DEVNULL,
    )
    url = f"redis://127.0.0.1:{redis_port}/0"
    client = redis.Redis.from_url(url)
    deadline = time.monotonic() + 20
    while True:
        try:
            client.ping()
            break
        except redis.ConnectionError:
            assert time.monotonic() < deadline, "redis-server did not start"
            time.sleep(0.05)
    server = start_workers(url, port, tmp_path, {"PARLOUR_LOG_LEVEL": "warning"})
    base = f"http://127.0.0.1:{port}"
    yield base, client
    server.send_signal(signal.SIGTERM)
    server.wait(30)
    store.terminate()
    store.wait(10)
    log = (tmp_path / "workers.log").read_text()
    assert "Traceback" not in log, log[-3000:]


def _connections(client: redis.Redis, node: str) -> int:
    raw = client.get(f"pl:nodeinfo:{node}")
    return json.loads(raw)["connections"] if raw else -1


def test_friends_on_the_invite_link_share_the_room_owners_worker(open_page, workers):
    base, client = workers
    ada = open_page(base=base)
    code = create_room(ada, "Ada", "dots", {"width": 3, "height": 3}, capacity=4)
    owner = client.get(f"pl:lease:{code}").decode().split("|", 1)[1]
    (other,) = {n.decode() for n in client.smembers("pl:nodes")} - {owner}
    friends = []
    for name in ("Bo", "Cy", "Di"):
        page = open_page(f"/r/{code}", base=base)  # each a fresh browser opening the link
        join_room(page, name, code)
        friends.append(page)
    deadline = time.monotonic() + 10  # the counts come with each worker's heartbeat
    while (_connections(client, owner), _connections(client, other)) != (
        4,
        0,
    ) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert (_connections(client, owner), _connections(client, other)) == (4, 0)
    start_game(ada, [ada, *friends])
    for page in (ada, *friends):
        page.locator('[data-testid="dots-board"]').wait_for()
    # A reload mid-game reconnects with the room named too, and lands on the owner again.
    friends[0].reload()
    friends[0].locator('[data-testid="dots-board"]').wait_for()
    time.sleep(1.5)  # past a heartbeat
    deadline = time.monotonic() + 10
    while (_connections(client, owner), _connections(client, other)) != (
        4,
        0,
    ) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert (_connections(client, owner), _connections(client, other)) == (4, 0)
