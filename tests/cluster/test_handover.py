"""A node shut down gracefully hands its rooms over at once; Redis restarted under load.

Graceful: SIGTERM on the owner releases its leases and tells the other nodes, which claim the
rooms without waiting for the leases to run out. Redis restart: while games are played on two
nodes, redis-server is stopped and started again (AOF on); nodes log and retry, commands that
could not be committed are refused (never half-applied), nobody crashes, and the games finish.
"""

from __future__ import annotations

import asyncio
import json
import signal
import time
import urllib.error
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime

import pytest
from redis import asyncio as aioredis

from tests.cluster.conftest import LEASE
from tests.cluster.players import Player, drive
from tests.server.client import Client, close_all, play_game


async def _spread_room(urls: list[str], game: str, players: int, settings: dict) -> tuple[list[Player], str]:
    seated = [await Player.open(urls[i % len(urls)], f"P{i}") for i in range(players)]
    room = await seated[0].client.ok("create_room", game=game, settings=settings, capacity=players)
    for p in seated[1:]:
        await p.client.ok("join", code=room["code"])
    await seated[0].client.ok("start")
    return seated, room["code"]


async def test_graceful_shutdown_hands_rooms_over_without_waiting_for_the_lease(cluster) -> None:
    a, b = cluster.add(), cluster.add()
    seated, code = await _spread_room([a.ws, b.ws], "dots", 2, {"width": 4, "height": 4})
    redis = aioredis.Redis.from_url(cluster.redis.url)
    b_node = json.loads(b.get("/healthz"))["node"]
    stopped = time.monotonic()
    assert a.stop() in (0, -signal.SIGTERM)  # uvicorn re-raises the signal after a clean shutdown
    while True:
        lease = await redis.get(f"pl:lease:{code}")
        if lease is not None and b_node in lease.decode():
            break
        assert time.monotonic() - stopped < float(LEASE) * 3
        await asyncio.sleep(0.02)
    # a's shutdown took part of that time; the claim itself did not wait for the lease.
    assert await redis.pttl(f"pl:lease:{code}") > 0
    over = await drive(seated, lambda: [b.ws])
    assert over["outcome"]
    await redis.aclose()


async def test_redis_restart_under_load_no_crash_games_finish(cluster) -> None:
    a, b = cluster.add(), cluster.add()
    urls = [a.ws, b.ws]
    rooms = [
        await _spread_room(urls, "uno", 2, {"target_score": 0}),
        await _spread_room(urls, "cheat", 3, {}),
    ]

    async def restart() -> None:
        await asyncio.sleep(0.5)
        await asyncio.to_thread(cluster.redis.restart, 1.0)

    results = await asyncio.wait_for(
        asyncio.gather(restart(), *(drive(s, lambda: urls) for s, _ in rooms)),
        timeout=120,
    )
    assert all(r["outcome"] for r in results[1:])
    assert a.alive() and b.alive()
    health = json.loads(a.get("/healthz"))
    assert len(health["cluster"]["nodes"]) == 2


async def _dots_across(a, b) -> tuple[Client, Client, str]:
    """A started 3×3 Dots game whose host is on node a (which owns the room) and whose guest is on node b;
    the guest's messages so far are skipped."""
    host = await Client.open(a.ws, "Host")
    code = (await host.ok("create_room", game="dots", settings={"width": 3, "height": 3}, capacity=2))["code"]
    guest = await Client.open(b.ws, "Guest")
    await guest.ok("join", code=code)
    await host.ok("start")
    await guest.wait_for(lambda m: m.get("type") == "game_started", from_start=True)
    guest.skip()
    return host, guest, code


async def test_after_a_redis_restart_a_player_on_another_node_is_re_attached_without_a_drop(cluster) -> None:
    """After the restart node b re-attaches its player (a fresh snapshot from the room's owner, node a).

    - Idle through the restart, node b's connection for publishes was stale, and that re-attach, its
      first batch, was dropped on it; the player waited for a retry (lease + 2 s), and when the retry's
      owner lookup met a stale pooled connection too, for ever (a move behind, the game stuck). Now the
      stale connection is replaced before anything is sent on it."""
    a, b = cluster.add(), cluster.add()
    host, guest, code = await _dots_across(a, b)
    await asyncio.to_thread(cluster.redis.restart, 1.0)
    snapshot = await guest.expect("room", timeout=20)
    assert snapshot["code"] == code and snapshot["table"]["seq"] == guest.seq
    log = b.log_path.read_text()
    assert "event=bus_reconnected" in log and "redis_batch_failed" not in log
    over = await play_game([host, guest])
    assert over["outcome"]["winners"] or over["outcome"]["tie"]
    await close_all([host, guest])


async def test_after_a_redis_restart_the_owner_back_last_gets_the_re_attach_it_missed(cluster) -> None:
    """Node b hears again before node a (paused here), so the re-attach it sends node a is lost (pub/sub
    keeps nothing for a node not subscribed); it used to wait for its retry (lease + 2 s: 12 s here).
    Now node a says when it is back and node b re-attaches then: the snapshot comes before any retry."""
    slow = {"PARLOUR_LEASE_SECONDS": "10"}  # no claim while node a is paused
    a, b = cluster.add(slow), cluster.add(slow)
    host, guest, code = await _dots_across(a, b)
    assert a.proc is not None
    a.proc.send_signal(signal.SIGSTOP)
    try:
        await asyncio.to_thread(cluster.redis.restart, 1.0)
        for _ in range(200):
            if "event=bus_reconnected" in b.log_path.read_text():
                break
            await asyncio.sleep(0.05)
        await asyncio.sleep(0.3)  # node b's re-attach is sent (and lost)
    finally:
        a.proc.send_signal(signal.SIGCONT)
    snapshot = await guest.expect("room", timeout=30)
    arrived = datetime.now(UTC)
    assert snapshot["code"] == code and snapshot["table"]["seq"] == guest.seq
    retries = [
        datetime.fromisoformat(line.split()[0].removeprefix("ts="))
        for line in b.log_path.read_text().splitlines()
        if "forward_timeout" in line
    ]
    assert all(at > arrived for at in retries), (arrived, retries)
    over = await play_game([host, guest])
    assert over["outcome"]["winners"] or over["outcome"]["tie"]
    await close_all([host, guest])


def test_healthz_right_after_a_redis_restart_is_ok(cluster) -> None:
    """The node's pooled Redis connections are stale after a restart: the probe still gets ``ok``
    (a stale connection failed it once, and a CI run read that as Redis being down)."""
    a = cluster.add()
    assert json.loads(a.get("/healthz"))["status"] == "ok"
    for _ in range(3):
        cluster.redis.restart()
        assert json.loads(a.get("/healthz"))["status"] == "ok"
    assert a.alive()


def test_requests_right_after_a_redis_restart_are_answered(cluster) -> None:
    """Every connection redis-py pooled before a restart is replaced before its next command, so the
    first reads after the restart are answered. redis-py 8 skips its own check of a pooled connection
    while "maintenance notifications" are on (its default), and each stale connection failed one
    request (a 500 here; an ``identify`` answered ``internal_error`` on the websocket)."""
    a = cluster.add()

    def status(_: int) -> int:
        try:
            json.loads(a.get("/api/leaderboard/uno"))
            return 200
        except urllib.error.HTTPError as error:
            return error.code

    def burst() -> list[int]:
        with ThreadPoolExecutor(8) as pool:  # at once: the node's pool holds several connections
            return list(pool.map(status, range(8)))

    assert burst() == [200] * 8
    for _ in range(2):
        cluster.redis.restart()
        time.sleep(0.5)  # the node has seen the old connections closed
        assert burst() == [200] * 8
    assert a.alive()


def test_healthz_says_503_while_redis_is_down(cluster) -> None:
    """A health probe gets a reason while Redis is away (it got a 500 and a traceback), and ``ok``
    once it is back. The node logs the outage once per task, not a traceback per heartbeat."""
    a = cluster.add()
    cluster.redis.stop()
    try:
        with pytest.raises(urllib.error.HTTPError) as down:
            a.get("/healthz")
        assert down.value.code == 503
        health = json.loads(down.value.read())
        assert health["status"] == "degraded" and "redis unavailable" in health["cluster"]["error"]
        time.sleep(2.0)  # a few heartbeats (every 0.5 s here) and claim passes fail meanwhile
    finally:
        cluster.redis.start()
    for _ in range(50):
        try:
            assert json.loads(a.get("/healthz"))["status"] == "ok"
            break
        except urllib.error.HTTPError:
            time.sleep(0.2)
    else:
        raise AssertionError("healthz never came back")
    assert a.alive()
    for _ in range(50):
        log = a.log_path.read_text()
        if "event=heartbeat_recovered" in log:
            break
        time.sleep(0.1)
    assert log.count("event=heartbeat_failed") == 1 and log.count("event=claim_failed") == 1, log
    assert "event=heartbeat_recovered" in log


async def test_after_a_redis_restart_every_connected_player_is_still_shown_connected(cluster) -> None:
    """Nobody's connection dropped, so once the cluster has settled after the restart each seat is
    connected, as a newcomer on either node sees it: no seat waits out a grace period, and no bot
    takes it over, for a player who never left."""
    a, b = cluster.add(), cluster.add()
    seated, code = await _spread_room([a.ws, b.ws], "cheat", 3, {})
    await asyncio.to_thread(cluster.redis.restart, 1.0)
    await asyncio.sleep(3 * float(LEASE))  # leases held across the restart may run out meanwhile
    for url in (a.ws, b.ws):
        watcher = await Client.open(url)
        await watcher.ok("identify", name="Watcher")
        snapshot = await watcher.ok("spectate", code=code)
        seats = [
            (m["seat"], m["connected"], m["replaced"]) for m in snapshot["members"] if m["role"] == "player"
        ]
        assert sorted(seats) == [(0, True, False), (1, True, False), (2, True, False)], seats
        await watcher.close()
    await close_all([p.client for p in seated])
