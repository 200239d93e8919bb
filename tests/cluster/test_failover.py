"""Fail-over: the owner of a room is killed (SIGKILL) mid-game, 20 times at random moments.

Three nodes; one room per game with its players spread over the nodes. A killer repeatedly
kills the node that owns one of the rooms and starts a fresh node in its place. Each time,
another node claims the room within the lease, rebuilds it from its log, and the players carry
on: those on the dead node reconnect through a live node and resume with their tokens, those
elsewhere are re-attached by their node. At the end every game has finished, and every move the
server answered ``ok`` to is in the room's game log.
"""

from __future__ import annotations

import asyncio
import json
import random
import signal

import orjson
import pytest
from redis import asyncio as aioredis

from parlour.bots.catalog import get_game
from tests.cluster.players import Player, drive, forwarded_dots
from tests.server.client import first_legal

KILLS = 20
TABLES = [
    ("dots", 3, {"width": 5, "height": 5, "max_players": 3}),
    ("cheat", 3, {}),
    ("uno", 3, {"target_score": 0}),
]


async def _room(urls: list[str], game: str, players: int, settings: dict) -> tuple[list[Player], str]:
    seated = [await Player.open(urls[i % len(urls)], f"P{i}") for i in range(players)]
    room = await seated[0].client.ok("create_room", game=game, settings=settings, capacity=players)
    for p in seated[1:]:
        await p.client.ok("join", code=room["code"])
    return seated, room["code"]


@pytest.mark.slow
async def test_kill_owner_20_times_every_game_finishes_no_accepted_move_lost(cluster) -> None:
    for _ in range(3):
        cluster.add()
    redis = aioredis.Redis.from_url(cluster.redis.url)

    def live() -> list[str]:
        return [n.ws for n in cluster.nodes if n.alive()]

    names: dict[int, str] = {}  # node port → its cluster name, asked once (off the event loop)

    async def owner_of(code: str):
        raw = await redis.get(f"pl:lease:{code}")
        if raw is None:
            return None
        name = raw.decode().split("|", 1)[1]
        for n in list(cluster.nodes):
            if n.alive() and n.port not in names:
                names[n.port] = json.loads(await asyncio.to_thread(n.get, "/healthz"))["node"]
            if n.alive() and names[n.port] == name:
                return n
        return None

    rooms = [await _room(live(), game, players, settings) for game, players, settings in TABLES]
    kills = 0
    killing = True

    async def killer() -> None:
        nonlocal kills, killing
        rng = random.Random()
        spare: asyncio.Future[object] | None = None
        try:
            while kills < KILLS:
                # The pause runs while the last kill's replacement starts (a node's start-up is the
                # slow part on a loaded machine), and every kill still finds three live nodes.
                await asyncio.gather(asyncio.sleep(rng.uniform(0.2, 1.2)), *([spare] if spare else []))
                spare = None
                _, code = rng.choice(rooms)
                node = await owner_of(code)
                if node is None:
                    continue
                node.kill()
                kills += 1
                spare = asyncio.ensure_future(asyncio.to_thread(cluster.add))
            if spare is not None:
                await spare
        finally:
            killing = False  # the games end either way; a failure here is raised below

    async def play(seated: list[Player], code: str, game: str) -> int:
        finished = 0
        host = seated[0]
        while True:
            reply = await host.ask("start", live)
            if reply.get("type") == "error" and reply["code"] not in ("invalid_state",):
                await asyncio.sleep(0.1)
                continue
            for p in seated:
                p.client.game_over = None
            await drive(seated, live)
            finished += 1
            if not killing:
                return finished
            while True:
                reply = await host.ask("rematch", live)
                # invalid_state: the room is no longer finished, so a rematch already went through
                # (its reply was lost with a killed node); asking again would be refused forever.
                if reply.get("type") != "error" or reply["code"] == "invalid_state":
                    break
                await asyncio.sleep(0.1)

    kill_task = asyncio.create_task(killer())
    results = await asyncio.wait_for(
        asyncio.gather(
            *(play(seated, code, game) for (seated, code), (game, _, _) in zip(rooms, TABLES, strict=True))
        ),
        timeout=240,
    )
    await kill_task
    assert kills == KILLS and all(n >= 1 for n in results)

    # Every accepted move is in the room's finished games, in the order it was accepted. The log keeps
    # the engine's action (what the engine parsed), so compare each sent action as the engine reads it.
    for (seated, code), (game, _, _) in zip(rooms, TABLES, strict=True):
        engine = get_game(game)
        logged: dict[str, list] = {}
        for raw in await redis.lrange(f"pl:games:{code}", 0, -1):
            for record in orjson.loads(raw)["log"]:
                if record["k"] == "action":
                    logged.setdefault(record["s"], []).append(record["p"]["engine_action"])
        for p in seated:
            moves = iter(logged.get(p.session, []))
            wanted = [orjson.loads(orjson.dumps(engine.parse_action(a))) for a in p.accepted]
            assert all(any(m == a for m in moves) for a in wanted), (code, p.session)
    assert sum(p.reconnects for seated, _ in rooms for p in seated) > 0
    await redis.aclose()


async def test_a_move_the_dying_owner_never_read_is_applied_by_the_next_owner(cluster) -> None:
    """A move forwarded to its room's owner as the owner dies (stopped, then killed, with the move
    unread in its socket) is sent again to the node that adopts the room: answered, applied once.
    Either b (the players' node: it runs the move itself) or c (b sends it there once the players
    are re-attached) adopts the room."""
    a, b, _c = cluster.add(), cluster.add(), cluster.add()
    host, players, code = await forwarded_dots(a.ws, b.ws)  # the room lives on a, its players use b
    mover = next(p for p in players if p.seat == players[0].turn["seat"])
    other = next(p for p in players if p is not mover)
    assert a.proc is not None
    a.proc.send_signal(signal.SIGSTOP)
    await mover.send({"type": "action", "id": 77, "action": first_legal(mover.view)})
    await asyncio.sleep(0.5)  # b has forwarded it into a's channel, where nobody will read it
    a.kill()
    reply = await mover.wait_for(lambda m: m.get("id") == 77, timeout=20, from_start=True)
    assert reply["type"] == "ok", reply
    await other.wait_seq(1)
    redis = aioredis.Redis.from_url(cluster.redis.url)
    log = [orjson.loads(e[b"d"]) for _, e in await redis.xrange(f"pl:log:{code}")]
    moves = [r for r in log if r["k"] == "action"]
    assert len(moves) == 1 and moves[0]["f"], moves
    await redis.aclose()
    for p in [host, *players]:  # the host's node is gone: its client is closed already
        await p.close()
