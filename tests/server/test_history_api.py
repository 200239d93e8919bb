"""The history API over a real server: a finished game's public record (``GET /api/games/<id>``)."""

from __future__ import annotations

import json
import random
import sqlite3
import urllib.error
import urllib.request
from typing import Any

from parlour.bots.catalog import get_game
from tests.server.client import MOVES, Client, close_all, play_game
from tests.server.conftest import ServerProcess


def fetch(server: ServerProcess, path: str, headers: dict[str, str] | None = None) -> tuple[int, Any, dict]:
    request = urllib.request.Request(server.http + path, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=10) as r:
            return r.status, json.loads(r.read()), dict(r.headers)
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read()), dict(exc.headers)


def game_ids(server: ServerProcess, room: str) -> list[str]:
    """The public ids of a room's finished games, read from the server's database as it runs."""
    db = sqlite3.connect(f"file:{server.data_dir / 'parlour.db'}?mode=ro", uri=True)
    try:
        return [r[0] for r in db.execute("SELECT gid FROM games WHERE room = ? ORDER BY id", (room,))]
    finally:
        db.close()


async def finished_game(
    server: ServerProcess, game: str = "dots", public: bool = True, **create: Any
) -> tuple[list[Client], str]:
    """Two clients play a whole game in a new room; returns them and the room code."""
    host = await Client.open(server.ws, "Ada")
    settings = {"width": 3, "height": 3} if game == "dots" else {}
    room = await host.ok("create_room", game=game, settings=settings, public=public, capacity=2, **create)
    guest = await Client.open(server.ws, "Bob")
    password = {"password": create["password"]} if "password" in create else {}
    await guest.ok("join", code=room["code"], **password)
    await host.ok("chat", text="good luck")
    await host.ok("start")
    for client in (host, guest):
        await client.wait_for(lambda m: m.get("type") == "game_started", from_start=True)
    await play_game([host, guest], MOVES[game])
    return [host, guest], room["code"]


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
