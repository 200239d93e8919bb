"""Players of one room on different nodes play whole games of all three games (native protocol)."""

from __future__ import annotations

import json

from tests.server.client import Client, close_all, play_game

TABLES = [
    ("dots", 3, {"width": 3, "height": 3, "max_players": 3}),
    ("cheat", 3, {}),
    ("uno", 3, {"target_score": 0}),
]


async def _spread_table(urls: list[str], game: str, players: int, settings: dict) -> tuple[list[Client], str]:
    """The host on the first node, every other player on the next node round the ring."""
    host = await Client.open(urls[0], "P0")
    room = await host.ok("create_room", game=game, settings=settings, capacity=players)
    seated = [host]
    for i in range(1, players):
        client = await Client.open(urls[i % len(urls)], f"P{i}")
        await client.ok("join", code=room["code"])
        seated.append(client)
    return seated, room["code"]


async def test_players_on_two_nodes_play_every_game(cluster) -> None:
    a, b = cluster.add(), cluster.add()
    for game, players, settings in TABLES:
        seated, code = await _spread_table([a.ws, b.ws], game, players, settings)
        watcher = await Client.open(b.ws, "W")
        await watcher.ok("spectate", code=code)
        await seated[1].ok("chat", text=f"hello from node b in {game}")
        await seated[0].expect("chat")
        await seated[0].ok("start")
        for client in [*seated, watcher]:
            await client.wait_for(lambda m: m.get("type") == "game_started", from_start=True)
        over = await play_game(seated)
        assert over["outcome"]["winners"] or over["outcome"]["tie"]
        await watcher.wait_for(lambda m: m.get("type") == "game_over", from_start=True)
        # Every client on node b saw the same game as the host on node a.
        assert seated[1].seq == seated[0].seq == watcher.seq
        await close_all(seated, [watcher])
    health = json.loads(a.get("/healthz"))
    assert sorted(health["cluster"]["nodes"]) == sorted(
        [json.loads(a.get("/healthz"))["node"], json.loads(b.get("/healthz"))["node"]]
    )
