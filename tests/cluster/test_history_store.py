"""The Redis store keeps finished games findable by their public id, as the SQLite store does."""

from __future__ import annotations

import asyncio
from pathlib import Path

from parlour.store import GameQuery, GameRecord, Store, open_store
from parlour.store.redis import RedisStore
from tests.cluster.conftest import RedisProcess
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
