"""The history API over a real server: a finished game's public record (``GET /api/games/<id>``)."""

from __future__ import annotations

import json
import random

from parlour.bots.catalog import get_game
from tests.server.client import close_all
from tests.server.conftest import ServerProcess
from tests.server.history import fetch, finished_game, game_ids


async def test_a_finished_public_game_is_served_with_its_steps(server: ServerProcess) -> None:
    players, code = await finished_game(server)
    (gid,) = game_ids(server, code)
    status, body, headers = fetch(server, f"/api/games/{gid}")
    assert status == 200 and headers["content-type"] == "application/json"
    assert body["id"] == gid and body["game"] == "dots" and body["room"] == code
    assert [(p["seat"], p["name"]) for p in body["players"]] == [(0, "Ada"), (1, "Bob")]
    assert body["result"]["winners"] or body["result"]["tie"]
    # The steps replay through the engine to the stored result.
    engine = get_game("dots")
    state = engine.setup(engine.settings(body["settings"]), 2, random.Random(body["seed"]))
    for step in body["actions"]:
        assert step["type"] == "action" and step["t"] >= body["started_at"]
        engine.apply(state, step["seat"], step["action"])
    outcome = engine.outcome(state)
    assert outcome is not None and list(outcome.winners) == body["result"]["winners"]
    assert len(body["actions"]) == 12  # every line of a 3x3-dot board
    # Nothing that identifies a connection or a session, and no chat.
    text = json.dumps(body)
    for client in players:
        assert client.token not in text and client.room["you"]["member"] not in text
    assert '"s_' not in text and "good luck" not in text
    # As a file.
    status, again, headers = fetch(server, f"/api/games/{gid}?download=1")
    assert again == body
    assert headers["content-disposition"] == f'attachment; filename="parlour-dots-{gid}.json"'
    await close_all(players)


async def test_unknown_and_unlisted_games_are_not_found(server: ServerProcess) -> None:
    status, body, _ = fetch(server, "/api/games/nosuchgame")
    assert status == 404 and body["error"] == "not_found"
    players, code = await finished_game(server, public=False)
    (gid,) = game_ids(server, code)
    status, body, _ = fetch(server, f"/api/games/{gid}")
    assert status == 404 and body == {"error": "not_found", "message": "no such game"}
    await close_all(players)
