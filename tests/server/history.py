"""Helpers for history API tests: HTTP requests, game ids from the server's database, finished games."""

from __future__ import annotations

import json
import sqlite3
import urllib.error
import urllib.request
from typing import Any

from tests.server.client import Client, Message, first_legal, play_game
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


def profile_header(profile: dict[str, str]) -> dict[str, str]:
    return {"X-Parlour-Profile": f"{profile['id']}:{profile['secret']}"}


async def finished_game(
    server: ServerProcess,
    game: str = "dots",
    public: bool = True,
    players: list[Client] | None = None,
    **create: Any,
) -> tuple[list[Client], str]:
    """Two clients (new ones named Ada and Bob, or ``players``) play a whole game in a new room;
    returns them and the room code."""
    host, guest = players or [await Client.open(server.ws, "Ada"), await Client.open(server.ws, "Bob")]
    settings = {"width": 3, "height": 3} if game == "dots" else {}
    room = await host.ok("create_room", game=game, settings=settings, public=public, capacity=2, **create)
    password = {"password": create["password"]} if "password" in create else {}
    await guest.ok("join", code=room["code"], **password)
    await host.ok("chat", text="good luck")
    await host.ok("start")
    for client in (host, guest):
        await client.wait_for(lambda m: m.get("type") == "game_started", from_start=True)
    await play_game([host, guest])
    return [host, guest], room["code"]


async def play_with_bots(humans: list[Client], max_moves: int = 3000) -> Message:
    """``humans`` play the game just started in their room (first legal move) beside its bots, which
    play their own seats, until it is over."""
    for _ in range(max_moves):
        leader = max(humans, key=lambda c: c.seq)
        if leader.game_over is not None:
            break
        seat = (leader.turn or {}).get("seat")
        actor = next((c for c in humans if c.seat == seat), None)
        seq = leader.seq
        if actor is not None:
            await actor.wait_seq(seq)
            reply = await actor.request("action", action=first_legal(actor.view or {}))
            assert reply["type"] in ("ok", "error"), reply  # a bot's call may overtake the move
        await leader.wait_for(lambda m, c=leader, seq=seq: c.seq > seq or c.game_over is not None, 20, True)
    else:
        raise AssertionError("game did not finish")
    for client in humans:
        await client.wait_for(lambda m, c=client: c.game_over is not None, 20, from_start=True)
    return humans[0].game_over or {}
