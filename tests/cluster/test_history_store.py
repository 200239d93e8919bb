"""The Redis store keeps finished games findable by their public id, as the SQLite store does."""

from __future__ import annotations

from parlour.store import GameRecord
from parlour.store.redis import RedisStore
from tests.cluster.conftest import RedisProcess


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
