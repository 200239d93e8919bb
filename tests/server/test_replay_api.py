"""``GET /api/games/<id>/replay`` on a real ``parlour serve``: what it serves, to whom, after a restart."""

from __future__ import annotations

import asyncio
import json
import sqlite3
import urllib.error
import urllib.request
from typing import Any

from parlour.store import game_id
from tests.server.client import Client, close_all, first_legal
from tests.server.conftest import ServerProcess


def profile(client: Client) -> str:
    """The ``X-Parlour-Profile`` value of the profile the server made for ``client`` when it identified."""
    made = next(m["profile"] for m in client.messages if m.get("type") == "welcome")
    return f"{made['id']}:{made['secret']}"


def get(server: ServerProcess, path: str, who: str | None = None) -> tuple[int, Any]:
    headers = {"X-Parlour-Profile": who} if who else {}
    request = urllib.request.Request(server.http + path, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=10) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


async def finish_against_a_bot(server: ServerProcess, **room: Any) -> tuple[Client, Client, str]:
    """Ada plays a 4×4 Dots game against an easy bot while Sam watches; returns them and the game's id."""
    ada = await Client.open(server.ws, "Ada")
    created = await ada.ok("create_room", game="dots", settings={"width": 4, "height": 4}, capacity=2, **room)
    await ada.ok("add_bot", level="easy")
    sam = await Client.open(server.ws, "Sam")
    await sam.ok(
        "spectate", code=created["code"], **({"password": room["password"]} if "password" in room else {})
    )
    await ada.ok("start")
    await ada.wait_for(lambda m: m.get("type") == "game_started", from_start=True)
    while ada.game_over is None:
        if ada.turn is not None and ada.turn["seat"] == ada.seat:
            seq = ada.seq
            reply = await ada.request("action", action=first_legal(ada.view or {}))
            if reply["type"] == "ok":
                await ada.wait_for(lambda m, s=seq: m.get("type") != "game" or m["seq"] > s, from_start=True)
                continue
        await asyncio.sleep(0.01)
    over = await ada.wait_for(lambda m: m.get("type") == "game_over", from_start=True)
    return ada, sam, over["game_id"]


async def test_a_listed_games_replay_is_served_in_bounded_chunks_to_anyone(server_factory: Any) -> None:
    server = server_factory(env={"PARLOUR_BOT_DELAY": "0"})
    ada, sam, game_id = await finish_against_a_bot(server, public=True)
    live = {m["seq"]: m for m in ada.messages if m.get("type") in ("game_started", "game")}

    status, body = get(server, f"/api/games/{game_id}/replay?step=0&count=500&log=1", profile(ada))
    assert status == 200
    assert body["id"] == game_id and body["game"] == "dots" and body["you"] == ada.seat
    assert body["seat"] == ada.seat  # a player sees their own seat by default
    assert body["total"] == len(live) and len(body["steps"]) == min(50, len(live))  # count is capped
    assert [s["n"] for s in body["steps"]] == list(range(len(body["steps"])))
    assert all(s["view"] == live[s["n"]]["view"] for s in body["steps"])
    assert [e["text"] for e in body["log"]] == [e["text"] for m in live.values() for e in m["log"]]
    assert sorted(p["name"] for p in body["players"]) == ["Ada", "Bot 2"]
    assert all("session" not in p for p in body["players"])  # no session ids leave the server

    last = body["total"] - 1
    status, end = get(server, f"/api/games/{game_id}/replay?step={last}&count=5")
    assert status == 200 and end["you"] is None and end["seat"] == 0  # a stranger: seat 0
    assert len(end["steps"]) == 1 and end["steps"][0]["view"]["over"]
    assert end["steps"][0]["log"][-1]["kind"] == "game_over"

    status, spectator = get(server, f"/api/games/{game_id}/replay?step=3&count=2&seat=spectator")
    assert status == 200 and spectator["seat"] == "spectator" and len(spectator["steps"]) == 2
    status, everyone = get(server, f"/api/games/{game_id}/replay?step=3&count=1&seat=all")
    assert status == 200 and sorted(everyone["steps"][0]["hands"]) == ["0", "1"]

    refused = [
        ("step=-1", "bad_step"),
        (f"step={last + 1}", "bad_step"),
        ("step=x", "bad_step"),
        ("step=%EF%BC%91", "bad_step"),  # a full-width 1: a digit to Python, not to us
        ("step=1_0", "bad_step"),
        ("seat=%EF%BC%91", "bad_seat"),
    ]
    for query, code in refused:
        status, error = get(server, f"/api/games/{game_id}/replay?{query}")
        assert (status, error["error"]) == (400, code), query
    status, error = get(server, f"/api/games/{game_id}/replay?seat=7")
    assert (status, error["error"]) == (400, "bad_seat")
    await close_all([ada, sam])


async def test_unknown_and_private_games_are_the_same_404_for_strangers(server_factory: Any) -> None:
    server = server_factory(env={"PARLOUR_BOT_DELAY": "0"})
    ada, sam, game_id = await finish_against_a_bot(server, password="s3cret!")
    unknown = get(server, "/api/games/notagame/replay")
    assert unknown[0] == 404
    assert get(server, f"/api/games/{game_id}/replay") == unknown  # no profile
    assert get(server, f"/api/games/{game_id}/replay", profile(sam)) == unknown  # watched, did not play
    assert get(server, f"/api/games/{game_id}/replay", "not:a-profile") == unknown
    status, body = get(server, f"/api/games/{game_id}/replay", profile(ada))
    assert status == 200 and body["you"] == ada.seat
    await close_all([ada, sam])


async def test_recent_games_and_their_replays_survive_a_restart(server_factory: Any) -> None:
    server = server_factory(env={"PARLOUR_BOT_DELAY": "0"})
    ada, sam, game_id = await finish_against_a_bot(server, public=True)
    cy = await Client.open(server.ws, "Cy")
    assert ada.room is not None
    snapshot = await cy.ok("spectate", code=ada.room["code"])
    recent = snapshot["recent_games"]
    assert [g["id"] for g in recent] == [game_id]
    assert recent[0]["game"] == "dots" and recent[0]["reason"] == "finished"
    status, before = get(server, f"/api/games/{game_id}/replay?step=0&count=50")
    await close_all([ada, sam, cy])

    server.stop()
    server.start()
    back = await Client.open(server.ws)
    room = await back.ok("resume", token=ada.token)
    assert room["type"] == "welcome"
    snapshot = await back.wait_for(lambda m: m.get("type") == "room", from_start=True)
    assert [g["id"] for g in snapshot["recent_games"]] == [game_id]
    assert get(server, f"/api/games/{game_id}/replay?step=0&count=50") == (status, before)
    await back.close()


async def test_a_game_still_being_played_has_no_replay(server_factory: Any) -> None:
    """The id a running game will have (read here from the room's log: its seed) answers 404 until the
    game is over — with nothing in it — and the game's replay once it is."""
    server = server_factory(env={"PARLOUR_BOT_DELAY": "0"})
    ada = await Client.open(server.ws, "Ada")
    created = await ada.ok("create_room", game="dots", settings={"width": 3, "height": 3}, public=True)
    await ada.ok("add_bot", level="easy")
    await ada.ok("start")
    await ada.wait_for(lambda m: m.get("type") == "game_started", from_start=True)
    db = sqlite3.connect(f"file:{server.data_dir / 'parlour.db'}?mode=ro", uri=True)
    try:
        rows = [
            json.loads(r[0])
            for r in db.execute("SELECT data FROM room_log WHERE room = ?", (created["code"],))
        ]
    finally:
        db.close()
    seed = next(r["p"]["seed"] for r in rows if r["k"] == "start")
    running = game_id(created["code"], 1, seed)
    assert ada.game_over is None
    assert get(server, f"/api/games/{running}/replay", profile(ada)) == get(server, "/api/games/x/replay")
    while ada.game_over is None:
        if ada.turn is not None and ada.turn["seat"] == ada.seat:
            await ada.request("action", action=first_legal(ada.view or {}))
        await asyncio.sleep(0.01)
    over = await ada.wait_for(lambda m: m.get("type") == "game_over", from_start=True)
    assert over["game_id"] == running
    status, body = get(server, f"/api/games/{running}/replay?step=0&count=1", profile(ada))
    assert status == 200 and body["total"] > 1
    await ada.close()
