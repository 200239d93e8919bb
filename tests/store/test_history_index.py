"""The SQLite history index over 1,000 simulated games: totals add up, lists page and filter right."""

from __future__ import annotations

import asyncio
from pathlib import Path

from parlour.store import GameQuery, open_store
from tests.store.simulated import PROFILES, simulated_records


async def test_stats_add_up_over_a_thousand_games(tmp_path: Path) -> None:
    records, expected = simulated_records(1000)
    store = await open_store(str(tmp_path))
    for code in sorted({r.room for r in records}):
        assert await store.create_room(code, {"game": "x"})
    for start in range(0, len(records), 50):  # 50 rooms finishing games in one tick share a transaction
        await asyncio.gather(
            *(
                store.append(r.room, {"k": "action", "s": None, "p": {}, "t": r.ended_at}, r)
                for r in records[start : start + 50]
            )
        )
    await store.append(
        records[0].room, {"k": "action", "s": None, "p": {}, "t": 0.0}, records[0]
    )  # stored once

    for profile, game in expected.played:
        (totals,) = [t for t in await store.player_totals(profile) if t.game == game]
        assert (totals.played, totals.won) == (expected.played[profile, game], expected.won[profile, game])
        for key, value in expected.stats[profile, game].items():
            assert totals.stats[key] == value, (profile, game, key)
    assert sum(expected.played.values()) == sum(
        len(r.players) for r in records if r.result["winners"] or r.result["tie"]
    )

    for game in ("uno", "dots", "cheat", "connect_four"):
        board = await store.leaderboard(game, 5, 100)
        ranked = sorted(
            ((p, g) for p, g in expected.played if g == game and expected.played[p, g] >= 5),
            key=lambda k: (-expected.won[k], -expected.won[k] / expected.played[k], k[0]),
        )
        assert [(t.profile, t.won) for t in board] == [(p, expected.won[p, g]) for p, g in ranked][
            : len(board)
        ]
        assert {t.profile for t in board} == {p for p, _ in ranked}
        assert any(t.bot == "hard" and t.profile == f"bot-{game}-hard" for t in board)
    await store.close()


async def test_lists_page_newest_first_and_keep_private_games_to_their_players(tmp_path: Path) -> None:
    records, expected = simulated_records(300, seed=1)
    store = await open_store(str(tmp_path))
    for code in sorted({r.room for r in records}):
        await store.create_room(code, {"game": "x"})
    for r in records:
        await store.append(r.room, {"k": "action", "s": None, "p": {}, "t": r.ended_at}, r)
    newest_first = sorted(records, key=lambda r: r.ended_at, reverse=True)

    async def everything(query: GameQuery) -> list[str]:
        ids, cursor = [], None
        while True:
            query.before = cursor
            page, cursor = await store.list_games(query)
            assert len(page) <= query.limit and all(g.log == [] for g in page)
            ids += [g.id for g in page]
            if cursor is None:
                return ids

    public = [r.id for r in newest_first if not r.private]
    assert await everything(GameQuery(limit=7)) == public
    me = PROFILES[0]
    mine = expected.games_of[me]
    seen = await everything(GameQuery(viewer=me, limit=13))
    assert seen == [r.id for r in newest_first if not r.private or r.id in mine]
    assert await everything(GameQuery(viewer=me, player=me, limit=5)) == [
        r.id for r in newest_first if r.id in mine
    ]
    other = PROFILES[1]
    assert await everything(GameQuery(viewer=other, player=me, limit=5)) == [
        r.id for r in newest_first if r.id in mine and (not r.private or r.id in expected.games_of[other])
    ]
    assert await everything(GameQuery(player=me, game="dots", limit=4)) == [
        r.id for r in newest_first if r.id in mine and not r.private and r.game == "dots"
    ]
    room = records[4].room
    assert await everything(GameQuery(room=room)) == [
        r.id for r in newest_first if r.room == room and not r.private
    ]
    await store.close()
