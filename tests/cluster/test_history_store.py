"""The Redis store keeps what the history needs as the SQLite store does: games by id, the history index
and totals, guest profiles; and a cluster serves a game's history from every node."""

from __future__ import annotations

import asyncio
from pathlib import Path

from parlour.store import GameQuery, GameRecord, ProfileRecord, SessionRecord, Store, open_store
from parlour.store.redis import RedisStore
from tests.cluster.conftest import RedisProcess
from tests.server.client import Client, close_all, play_game
from tests.server.history import fetch, profile_header
from tests.store.simulated import PROFILES, simulated_records


async def test_a_game_is_found_by_its_public_id(redis_server: RedisProcess) -> None:
    store = RedisStore(redis_server.url, "node-a")
    await store.open()
    assert await store.create_room("ABCDE", {"game": "dots"})
    games = [
        GameRecord("ABCDE", n, "dots", {}, 40 + n, [{"seat": 0, "name": "A"}], {"winners": [0]}, 1.0, 2.0, [])
        for n in (1, 2)
    ]
    for n, game in enumerate(games):
        await store.append("ABCDE", {"k": "start", "s": None, "p": {}, "t": float(n)}, game)
    assert [await store.game(g.id) for g in games] == games
    assert await store.game("nosuchgame") is None
    await store.close()


async def test_history_index_matches_the_sqlite_store(redis_server: RedisProcess, tmp_path: Path) -> None:
    """The same 200 games give the same totals, leaderboards and pages in both stores."""
    records, _ = simulated_records(200, seed=2)
    redis_store = RedisStore(redis_server.url, "node-a")
    await redis_store.open()
    sqlite_store = await open_store(str(tmp_path))
    for store in (redis_store, sqlite_store):
        for code in sorted({r.room for r in records}):
            assert await store.create_room(code, {"game": "x"})
        await asyncio.gather(
            *(store.append(r.room, {"k": "a", "s": None, "p": {}, "t": 0.0}, r) for r in records)
        )

    async def pages(store: Store, query: GameQuery) -> list[list[str]]:
        out, cursor = [], None
        while True:
            query.before = cursor
            page, cursor = await store.list_games(query)
            out.append([g.id for g in page])
            if cursor is None:
                return out

    for profile in [*PROFILES, "bot-uno-easy", "bot-dots-hard"]:
        assert await redis_store.player_totals(profile) == await sqlite_store.player_totals(profile)
    for game in ("uno", "dots", "cheat", "connect_four"):
        assert await redis_store.leaderboard(game, 5, 10) == await sqlite_store.leaderboard(game, 5, 10)
    for query in (
        GameQuery(limit=9),
        GameQuery(viewer=PROFILES[0], limit=11),
        GameQuery(viewer=PROFILES[0], player=PROFILES[0], game="uno", limit=3),
        GameQuery(viewer=PROFILES[1], player=PROFILES[0], limit=6),
        GameQuery(player="bot-cheat-hard", limit=6),
        GameQuery(viewer=PROFILES[2], room=records[3].room),
    ):
        assert await pages(redis_store, query) == await pages(sqlite_store, query), query
    await redis_store.close()
    await sqlite_store.close()


async def test_profiles_and_sessions_keep_their_profile(redis_server: RedisProcess) -> None:
    store = RedisStore(redis_server.url, "node-a")
    await store.open()
    await store.save_profile(ProfileRecord("p_1", "Ada", "hash", 5.0))
    await store.save_profile(ProfileRecord("p_1", "Ada L", "hash", 5.0))
    assert await store.find_profile("p_1") == ProfileRecord("p_1", "Ada L", "hash", 5.0)
    assert await store.find_profile("p_2") is None
    await store.save_session(SessionRecord("s_1", "Ada", "tokenhash", 1.0, "p_1"))
    assert await store.find_session("tokenhash") == SessionRecord("s_1", "Ada", "tokenhash", 1.0, "p_1")
    await store.close()


async def test_a_game_across_two_nodes_is_in_both_nodes_history(cluster) -> None:
    """Ada on node a, Bob on node b, in a private room: both nodes serve the game to its players only."""
    a, b = cluster.add(), cluster.add()
    ada, bob = await Client.open(a.ws), await Client.open(b.ws)
    ada_profile = (await ada.ok("identify", name="Ada"))["profile"]
    bob_profile = (await bob.ok("identify", name="Bob"))["profile"]
    room = await ada.ok("create_room", game="dots", settings={"width": 3, "height": 3}, capacity=2)
    await bob.ok("join", code=room["code"])
    await ada.ok("start")
    for client in (ada, bob):
        await client.wait_for(lambda m: m.get("type") == "game_started", from_start=True)
    await play_game([ada, bob])
    for node in (a, b):
        status, page, _ = fetch(node, f"/api/games?player={bob_profile['id']}", profile_header(ada_profile))
        assert status == 200
        (game,) = page["games"]
        assert [p["profile"] for p in game["players"]] == [ada_profile["id"], bob_profile["id"]]
        assert fetch(node, f"/api/games/{game['id']}", profile_header(bob_profile))[0] == 200
        assert fetch(node, f"/api/games/{game['id']}")[0] == 404
        status, me, _ = fetch(node, f"/api/players/{ada_profile['id']}")
        assert me["name"] == "Ada" and me["games"][0]["played"] == 1 and me["recent"] == []
    await close_all([ada, bob])
