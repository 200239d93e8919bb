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


async def test_a_resume_on_another_node_replaces_the_old_connection(cluster) -> None:
    """As on one node: the old connection is told ``replaced`` and closed (4000), by its own node."""
    a, b, c = cluster.add(), cluster.add(), cluster.add()
    first = await Client.open(a.ws, "Twin")
    code = (await first.ok("create_room", game="dots"))["code"]
    friend = await Client.open(c.ws, "Friend")
    await friend.ok("join", code=code)
    second = await Client.open(b.ws)  # resumes on node b: the room is owned by node a
    await second.ok("resume", token=first.token)
    assert (await second.expect("room"))["code"] == code
    await first.expect("replaced")
    await first._reader
    assert first.ws.close_code == 4000
    # The room speaks to the new connection only, and the old one's close did not disconnect it.
    await friend.ok("chat", text="still there?")
    assert (await second.expect("chat"))["message"]["text"] == "still there?"
    third = await Client.open(c.ws)  # and again, from node b's connection to node c
    await third.ok("resume", token=first.token)
    await third.expect("room")
    await second.expect("replaced")
    await second._reader
    assert second.ws.close_code == 4000
    await friend.ok("chat", text="and now?")
    await third.expect("chat")
    await close_all([third, friend])
