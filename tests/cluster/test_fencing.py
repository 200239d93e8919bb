"""Leases and fencing against a real redis-server: a former owner can never write again.

First at the store level (two ``RedisStore``s as two nodes), then with real processes: the owner
is stopped (SIGSTOP) past its lease, another node claims the room and the game goes on there;
when the old owner continues (SIGCONT) its writes are refused and it steps down.
"""

from __future__ import annotations

import asyncio
import json
import signal

from redis import asyncio as aioredis
from redis.exceptions import ResponseError

from parlour.store.redis import Fenced, RedisStore
from tests.cluster.players import forwarded_dots
from tests.server.client import first_legal


async def test_a_paused_owner_cannot_append_after_another_node_claimed(redis_server) -> None:
    a = RedisStore(redis_server.url, "node-a", lease_seconds=0.3)
    b = RedisStore(redis_server.url, "node-b", lease_seconds=0.3)
    await a.open()
    await b.open()
    assert await a.create_room("ABCD", {"code": "ABCD"})
    await a.append("ABCD", {"k": "chat", "s": "s1", "p": {"n": 1}, "t": 1.0})
    assert await b.claim("ABCD") is None  # the lease is held
    await asyncio.sleep(0.4)  # a is "paused": no heartbeat renews its lease
    assert await b.orphans() == ["ABCD"]
    record = await b.claim("ABCD")
    assert record is not None and [r["p"] for r in record.log] == [{"n": 1}]
    assert b.tokens["ABCD"] > 1  # a new fencing token for the new owner
    lost: list[str] = []
    a.on_fenced = lost.append
    try:
        await a.append("ABCD", {"k": "chat", "s": "s1", "p": {"n": 2}, "t": 2.0})
        raise AssertionError("the former owner appended")
    except Fenced:
        pass
    assert lost == ["ABCD"] and "ABCD" not in a.tokens
    assert await a.renew() == []  # it holds nothing any more
    await b.append("ABCD", {"k": "chat", "s": "s1", "p": {"n": 3}, "t": 3.0})
    entries = await b.redis.xrange("pl:log:ABCD")
    assert [json.loads(e[b"d"])["p"]["n"] for _, e in entries] == [1, 3]
    await a.close()
    await b.close()


async def test_one_refused_append_does_not_fail_the_others_of_its_batch(redis_server) -> None:
    """The appends of one loop tick go in one script call, each room's under ``pcall``: a room fenced
    out and a room whose append fails in Redis are refused, the other room's record commits."""
    a = RedisStore(redis_server.url, "node-a", lease_seconds=30)
    b = RedisStore(redis_server.url, "node-b", lease_seconds=30)
    await a.open()
    await b.open()
    for code in ("FENC", "FAIL", "GOOD"):
        assert await a.create_room(code, {"code": code})
    await b.redis.delete("pl:lease:FENC")  # as if node a had stalled past its lease...
    assert await b.claim("FENC") is not None  # ...and node b had taken the room over
    await b.redis.set("pl:log:FAIL", "not a stream")  # XADD on it fails (WRONGTYPE)
    lost: list[str] = []
    a.on_fenced = lost.append
    await a.redis.config_resetstat()
    results = await asyncio.gather(
        *(
            a.append(code, {"k": "chat", "s": "s1", "p": {"n": code}, "t": 1.0})
            for code in ("FENC", "FAIL", "GOOD")
        ),
        return_exceptions=True,
    )
    calls = (await a.redis.info("commandstats"))["cmdstat_evalsha"]["calls"]
    assert calls == 1  # the three appends were one batch
    fenced, failed, good = results
    assert isinstance(fenced, Fenced) and lost == ["FENC"]
    assert isinstance(failed, ResponseError) and "WRONGTYPE" in str(failed)
    assert good is None
    entries = await a.redis.xrange("pl:log:GOOD")
    assert [json.loads(e[b"d"])["p"] for _, e in entries] == [{"n": "GOOD"}]
    assert await a.redis.xrange("pl:log:FENC") == []
    # Only the committed append is recorded as applied: the same call sent again (its reply lost
    # with the connection) must not report the failed one as appended.
    applied = await a.redis.hgetall("pl:applied")
    assert set(applied) == {b"GOOD"}
    await a.close()
    await b.close()


async def test_a_renewed_lease_survives_and_a_released_one_is_claimed_at_once(redis_server) -> None:
    a = RedisStore(redis_server.url, "node-a", lease_seconds=0.3)
    b = RedisStore(redis_server.url, "node-b", lease_seconds=0.3)
    await a.open()
    await b.open()
    assert await a.create_room("WXYZ", {"code": "WXYZ"})
    for _ in range(4):
        await asyncio.sleep(0.15)
        assert await a.renew() == []
    assert await b.claim("WXYZ") is None
    await a.release("WXYZ")
    assert await b.claim("WXYZ") is not None
    await a.close()
    await b.close()


async def test_sigstop_owner_past_its_lease_then_sigcont_steps_down(cluster) -> None:
    a, b = cluster.add(), cluster.add()
    owner_client, players, code = await forwarded_dots(a.ws, b.ws)

    async def move() -> None:
        """One accepted move; a move sent to the paused owner is lost with it, so it is sent again."""
        for _ in range(10):
            leader = max(players, key=lambda c: c.seq)
            actor = next(c for c in players if c.seat == leader.turn["seat"])
            await actor.wait_seq(leader.seq)
            try:
                reply = await actor.request("action", timeout=2, action=first_legal(actor.view))
            except TimeoutError:
                continue
            if reply["type"] == "ok":
                return
        raise AssertionError("no move was accepted")

    await move()
    assert a.proc is not None
    a.proc.send_signal(signal.SIGSTOP)
    try:
        # Node b claims the room once a's lease runs out, and the game goes on there.
        await move()
        await move()
        redis = aioredis.Redis.from_url(cluster.redis.url)
        lease = (await redis.get(f"pl:lease:{code}")).decode()
        assert json.loads(b.get("/healthz"))["node"] in lease
        await owner_client.send({"type": "chat", "id": 99, "text": "from the paused node"})
    finally:
        a.proc.send_signal(signal.SIGCONT)
    # The old owner cannot write (fenced): its copy steps down, its client is re-attached to b.
    reply = await owner_client.wait_for(lambda m: m.get("id") == 99, timeout=15, from_start=True)
    snapshot = await owner_client.wait_for(lambda m: m.get("type") == "room" and m.get("table"), timeout=15)
    assert snapshot["table"]["seq"] >= 3
    log = [json.loads(e[b"d"]) for _, e in await redis.xrange(f"pl:log:{code}")]
    chats = [r for r in log if r["k"] == "chat"]
    # Either the frame reached the stale copy (refused, never logged) or b after the hand-over.
    assert (reply["type"] == "error") == (chats == []), (reply, chats)
    await move()
    assert "event=room_lost" in a.log_path.read_text()
    assert a.alive()
    await redis.aclose()


async def test_an_owner_that_wakes_after_its_room_moved_does_not_answer_a_move_again(cluster) -> None:
    """A move forwarded to a paused owner is handled by the node that claims the room (``ok``); when
    the old owner wakes and reads the move, its append is fenced out, and it says nothing: one answer
    per request (it used to send a second one, ``internal_error``)."""
    a, b = cluster.add(), cluster.add()
    host, players, code = await forwarded_dots(a.ws, b.ws)
    mover = next(p for p in players if p.seat == players[0].turn["seat"])
    assert a.proc is not None
    a.proc.send_signal(signal.SIGSTOP)
    try:
        await mover.send({"type": "action", "id": 77, "action": first_legal(mover.view)})
        reply = await mover.wait_for(lambda m: m.get("id") == 77, timeout=20, from_start=True)
        assert reply["type"] == "ok", reply
    finally:
        a.proc.send_signal(signal.SIGCONT)
    await host.wait_for(lambda m: m.get("type") == "room", timeout=15)  # a stepped down: re-attached
    await asyncio.sleep(1.0)
    assert [m["type"] for m in mover.messages if m.get("id") == 77] == ["ok"]
    redis = aioredis.Redis.from_url(cluster.redis.url)
    log = [json.loads(e[b"d"]) for _, e in await redis.xrange(f"pl:log:{code}")]
    assert len([r for r in log if r["k"] == "action"]) == 1
    await redis.aclose()
    for p in [host, *players]:
        await p.close()
