"""Over the real server: a human and bots play whole games (``parlour serve`` in a subprocess)."""

from __future__ import annotations

import asyncio
import json

import pytest

from tests.server.client import Client, first_legal
from tests.server.conftest import server_factory  # noqa: F401  (the real-process fixture)


@pytest.mark.parametrize(
    ("game", "settings", "levels"),
    [("dots", {"width": 4, "height": 4}, ["hard"]), ("cheat", {}, ["hard", "easy"])],
)
async def test_one_human_and_bots_play_to_the_end_over_the_server(
    server_factory,  # noqa: F811
    game: str,
    settings: dict,
    levels: list[str],
) -> None:
    server = server_factory(env={"PARLOUR_BOT_DELAY": "0"})
    human = await Client.open(server.ws, "Human")
    await human.ok("create_room", game=game, settings=settings, capacity=len(levels) + 1)
    for level in levels:
        await human.ok("add_bot", level=level)
    await human.ok("start")
    await human.wait_for(lambda m: m.get("type") == "game_started", from_start=True)
    for _ in range(2000):
        if human.game_over is not None:
            break
        if human.turn is not None and human.turn["seat"] == human.seat:
            seq = human.seq
            reply = await human.request("action", action=first_legal(human.view or {}))
            if reply["type"] == "ok":
                await human.wait_for(
                    lambda m, s=seq: m.get("type") != "game" or m["seq"] > s, from_start=True
                )
                continue
        await asyncio.sleep(0.01)
    over = await human.wait_for(lambda m: m.get("type") == "game_over", timeout=30, from_start=True)
    assert over["outcome"]["reason"] == "finished"
    await human.close()


async def test_a_bot_the_game_does_not_have_is_refused_with_no_bots(server_factory) -> None:  # noqa: F811
    """``add_bot`` for a level the game's catalog entry does not list is refused before anyone is seated,
    and the catalog the web client reads says which levels there are."""
    server = server_factory(env={"PARLOUR_BOT_DELAY": "0"})
    host = await Client.open(server.ws, "Host")
    await host.ok("create_room", game="dots", settings={}, capacity=3)
    reply = await host.request("add_bot", level="grandmaster")
    assert reply["type"] == "error" and reply["code"] == "no_bots", reply
    assert "easy" in reply["message"] and "hard" in reply["message"]
    room = await host.ok("add_bot", level="hard")  # a level it has is taken
    assert room["type"] == "ok"
    await host.wait_for(lambda m: m.get("type") == "member_joined" and m["member"]["bot"], from_start=True)
    catalog = json.loads(server.get("/api/catalog"))
    dots = next(g for g in catalog["games"] if g["name"] == "dots")
    assert dots["bots"] == ["easy", "hard"] and dots["title"] == "Dots & Boxes"
    await host.close()
