"""``--workers 2``: a connection that names its room (``/api/ws?room=CODE``, as the web client does on an
invite link) is served by the worker that owns the room, whichever worker the kernel gave it to
(net/handoff.py); one that names no room, or a room nobody owns, stays where it landed."""

from __future__ import annotations

import json
import signal
import time

import redis

from tests.cluster.workers import start_workers
from tests.ports import free_port
from tests.server.client import Client, play_game
from tests.server.conftest import FAST_ENV
from tests.server.test_inbound_frames import msg
from tests.server.test_upgrade_with_frames import Blocking, connect, upgrade


def _connections(r: redis.Redis, node: str) -> int:
    raw = r.get(f"pl:nodeinfo:{node}")
    return json.loads(raw)["connections"] if raw else -1


async def test_players_who_name_the_room_are_served_by_its_owner(redis_server, tmp_path) -> None:
    port = free_port()
    proc = start_workers(redis_server.url, port, tmp_path, {**FAST_ENV, "PARLOUR_LOG_LEVEL": "info"})
    r = redis.Redis.from_url(redis_server.url)
    url = f"ws://127.0.0.1:{port}/api/ws"
    try:
        host = await Client.open(url, "Host")
        code = (await host.ok("create_room", game="uno", settings={"target_score": 0}, capacity=4))["code"]
        owner = r.get(f"pl:lease:{code}").decode().split("|", 1)[1]
        (other,) = {n.decode() for n in r.smembers("pl:nodes")} - {owner}
        # Twelve connections naming the room: the kernel alone would put about half on the other worker.
        guests = [await Client.open(f"{url}?room={code.lower()}", f"G{i}") for i in range(12)]
        players = [host, *guests[:3]]
        for guest in guests[:3]:
            await guest.ok("join", code=code)
        for guest in guests[3:]:
            await guest.ok("spectate", code=code)
        deadline = time.monotonic() + 10  # the counts are each node's heartbeat
        while (_connections(r, owner), _connections(r, other)) != (13, 0) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert (_connections(r, owner), _connections(r, other)) == (13, 0)
        await host.ok("start")
        for p in players:
            await p.wait_for(lambda m: m.get("type") == "game_started", from_start=True)
        over = await play_game(players)
        assert over["outcome"]
        # A hint naming no room (a free code, a malformed one), or none, changes nothing: each is
        # served where it landed.
        strays = [await Client.open(f"{url}?room=ZZZZZ", f"S{i}") for i in range(3)]
        strays += [await Client.open(f"{url}?room=NO-SUCH", f"M{i}") for i in range(3)]
        strays += [await Client.open(url, f"T{i}") for i in range(6)]
        assert (await strays[0].request("join", code="ZZZZZ"))["code"] == "room_not_found"
        deadline = time.monotonic() + 10
        counts = (0, 0)
        while time.monotonic() < deadline:
            counts = (_connections(r, owner), _connections(r, other))
            if sum(counts) == 25 and counts[1] > 0:
                break
            time.sleep(0.2)
        assert sum(counts) == 25 and counts[1] > 0, counts  # about half of the twelve on each
        for c in [*guests, host, *strays]:
            await c.close()
    finally:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(30) == 0
    log = (tmp_path / "workers.log").read_text()
    assert "Traceback" not in log and "handoff_adopt_failed" not in log, log[-3000:]
    assert "without completing handshake" not in log


async def test_frames_sent_with_the_upgrade_request_travel_with_the_handed_over_socket(
    redis_server, tmp_path
) -> None:
    """A client that writes its first frames in the same TCP write as its upgrade request: the worker
    that read them hands them to the owner with the socket, which answers every one (they were lost)."""
    port = free_port()
    proc = start_workers(redis_server.url, port, tmp_path, {**FAST_ENV, "PARLOUR_LOG_LEVEL": "info"})
    r = redis.Redis.from_url(redis_server.url)
    socks = []
    try:
        host = await Client.open(f"ws://127.0.0.1:{port}/api/ws", "Host")
        code = (await host.ok("create_room", game="uno", settings={"target_score": 0}, capacity=4))["code"]
        owner = r.get(f"pl:lease:{code}").decode().split("|", 1)[1]
        (other,) = {n.decode() for n in r.smembers("pl:nodes")} - {owner}
        for i in range(10):  # the kernel alone would put about half on the other worker
            sock = connect(port)
            socks.append(sock)
            sock.sendall(upgrade(f"/api/ws?room={code}") + msg("identify", 1, name=f"E{i}") + msg("ping", 2))
            conn = Blocking(sock)
            assert b" 101 " in conn.head().split(b"\r\n")[0]
            assert [(m["type"], m["id"]) for m in (conn.message(), conn.message())] == [
                ("welcome", 1),
                ("pong", 2),
            ]
        deadline = time.monotonic() + 10  # the counts are each node's heartbeat
        while (_connections(r, owner), _connections(r, other)) != (11, 0) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert (_connections(r, owner), _connections(r, other)) == (11, 0)
        await host.close()
    finally:
        for sock in socks:
            sock.close()
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(30) == 0
    log = (tmp_path / "workers.log").read_text()
    assert "Traceback" not in log and "handoff_adopt_failed" not in log, log[-3000:]
