"""Helpers for history API tests: HTTP requests, game ids from the server's database, finished games."""

from __future__ import annotations

import json
import sqlite3
import urllib.error
import urllib.request
from typing import Any

from tests.server.client import MOVES, Client, Message, play_game
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
    await play_game([host, guest], MOVES[game])
    return [host, guest], room["code"]


async def play_against_bot(host: Client, game: str) -> Message:
    """``host`` plays the game of ``game`` just started in its room against its bot(s), to the end."""
    chooser = MOVES[game]
    while host.game_over is None:
        await host.wait_for(
            lambda m: host.game_over is not None or (host.turn or {}).get("seat") == host.seat,
            20,
            from_start=True,
        )
        if host.game_over is not None:
            break
        seq = host.seq
        reply = await host.request("action", action=chooser(host.view or {}, host.seat or 0))
        assert reply["type"] == "ok", reply
        await host.wait_for(
            lambda m, seq=seq: host.seq > seq or host.game_over is not None, 20, from_start=True
        )
    return host.game_over
