"""The history API over a real server: games by id and in lists, players' stats, leaderboards, and who
may see a private room's games."""

from __future__ import annotations

import json
import random
from typing import Any

from parlour.bots.catalog import get_game
from tests.server.client import Client, close_all, play_game
from tests.server.conftest import ServerFactory, ServerProcess
from tests.server.history import fetch, finished_game, game_ids, play_with_bots, profile_header


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
    # Nothing that identifies a connection or a session, and no chat. A member id is short ("m2"), so it
    # is looked for as a JSON string: as a substring it can turn up inside the game's random id.
    text = json.dumps(body)
    for client in players:
        assert client.token not in text and json.dumps(client.room["you"]["member"]) not in text
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


async def test_lists_players_and_leaderboards(server_factory: ServerFactory) -> None:
    server = server_factory({"PARLOUR_BOT_DELAY": "0"})
    ada, bob = await Client.open(server.ws), await Client.open(server.ws)
    welcomes = [await ada.ok("identify", name="Ada"), await bob.ok("identify", name="Bob")]
    ada_profile, bob_profile = (w["profile"] for w in welcomes)
    answers: list[str] = []

    def get(path: str, profile: dict[str, str] | None = None) -> tuple[int, Any]:
        status, body, _ = fetch(server, path, profile_header(profile) if profile else None)
        answers.append(json.dumps(body))
        return status, body

    # Five games of Ada against a hard bot in a public room, two against Bob in a private one.
    room = await ada.ok(
        "create_room", game="dots", settings={"width": 3, "height": 3}, public=True, capacity=2
    )
    await ada.ok("chat", text="secret plans")
    await ada.ok("add_bot", level="hard")
    results = []
    for n in range(5):
        if n:
            await ada.ok("rematch")
        await ada.ok("start")
        results.append((await play_with_bots([ada]))["outcome"])
    await ada.ok("leave")
    players, private_room = await finished_game(server, public=False, players=[ada, bob], password="pw")
    await ada.ok("rematch")
    await bob.ok("ready", ready=True)
    await ada.ok("start")
    await play_game([ada, bob])
    public_ids = game_ids(server, room["code"])
    private_ids = game_ids(server, private_room)

    # Everyone sees the public games, newest first, page by page; only Ada and Bob the private ones.
    status, page = get("/api/games?limit=2")
    assert status == 200 and [g["id"] for g in page["games"]] == public_ids[::-1][:2]
    seen = [g["id"] for g in page["games"]]
    while page["next"]:
        status, page = get(f"/api/games?limit=2&before={page['next']}")
        seen += [g["id"] for g in page["games"]]
    assert seen == public_ids[::-1]
    first = page["games"][-1]
    assert first["room"] == room["code"] and first["players"][1] == {
        "seat": 1,
        "name": "Bot 2",
        "colour": 1,
        "bot": "hard",
        "profile": "bot-dots-hard",
        "stats": {"boxes": results[0]["scores"].get("1", 0)},
    }
    status, page = get("/api/games", ada_profile)
    assert [g["id"] for g in page["games"]] == (public_ids + private_ids)[::-1]
    assert all("room" not in g for g in page["games"][:2]) and page["next"] is None
    assert [g["id"] for g in get(f"/api/games?player={ada_profile['id']}", bob_profile)[1]["games"]] == [
        *private_ids[::-1],
        *public_ids[::-1],
    ]
    assert [g["id"] for g in get(f"/api/games?player={bob_profile['id']}")[1]["games"]] == []
    assert [g["id"] for g in get(f"/api/games?room={private_room}")[1]["games"]] == []
    assert [g["id"] for g in get(f"/api/games?room={private_room.lower()}", bob_profile)[1]["games"]] == (
        private_ids[::-1]
    )
    assert get("/api/games?game=uno")[1] == {"games": [], "next": None}

    # Ada's profile: her totals per game and her recent games (the private ones for her eyes only).
    status, me = get(f"/api/players/{ada_profile['id']}", ada_profile)
    assert status == 200 and me["name"] == "Ada"
    (dots,) = me["games"]
    wins = sum(0 in r["winners"] and not r["tie"] for r in results)
    assert dots["played"] == 7 and dots["title"] == "Dots & Boxes"
    assert dots["labels"] == {"stats": [["boxes", "Boxes"]], "rates": [["win_rate", "Win rate"]]}
    assert dots["won"] >= wins and dots["stats"]["boxes"] >= sum(r["scores"].get("0", 0) for r in results)
    assert dots["rates"]["win_rate"] == round(dots["won"] / 7, 4)
    assert [g["id"] for g in me["recent"]] == (public_ids + private_ids)[::-1]
    status, stranger_view = get(f"/api/players/{ada_profile['id']}")
    assert [g["id"] for g in stranger_view["recent"]] == public_ids[::-1]
    status, bot = get("/api/players/bot-dots-hard")
    # A tie (two boxes each) names both seats but is nobody's win: played, not won.
    bot_wins = sum(1 in r["winners"] and not r["tie"] for r in results)
    assert bot["bot"] == "hard" and bot["games"][0]["played"] == 5 and bot["games"][0]["won"] == bot_wins

    # The leaderboard: five games or more (the bot and Ada), by wins.
    status, board = get("/api/leaderboard/dots")
    assert status == 200 and board["min_games"] == 5
    rows = {r["profile"]: r for r in board["players"]}
    assert set(rows) == {ada_profile["id"], "bot-dots-hard"}
    assert rows["bot-dots-hard"]["won"] == bot_wins and rows["bot-dots-hard"]["bot"] == "hard"
    assert [r["rank"] for r in board["players"]] == [1, 2]
    assert board["players"][0]["won"] >= board["players"][1]["won"]
    assert get("/api/leaderboard/uno")[1]["players"] == []

    # Refusals.
    assert get("/api/leaderboard/chess")[0] == 404
    assert get("/api/players/p_nobody")[0] == 404
    assert get("/api/games?before=garbage")[0] == 400
    assert get("/api/games?limit=0")[0] == 400
    assert get("/api/games?limit=1000")[0] == 400
    assert get("/api/games?limit=%EF%BC%95")[0] == 400  # a full-width 5: a digit to Python, not to us
    for gid in private_ids:
        assert get(f"/api/games/{gid}")[0] == 404
        assert get(f"/api/games/{gid}", bob_profile)[0] == 200

    # No answer carried a session, a token, a secret, a password or chat.
    text = "\n".join(answers)
    for welcome in welcomes:
        assert welcome["token"] not in text and welcome["session"] not in text
    for secret in (ada_profile["secret"], bob_profile["secret"], "secret plans", '"pw"', '"s_'):
        assert secret not in text
    await close_all(players)
