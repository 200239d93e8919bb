"""Players of the seed protocols have no guest profile: a game they play is recorded with them by name
only, beside a native player's profile."""

from __future__ import annotations

import json
import urllib.request
from typing import Any

from test_dots_protocol import dots, join, play_out
from wsclient import Native


async def test_a_dots_player_has_no_profile_in_the_game_record(server: Any) -> None:
    native = await Native.open(server.ws)
    profile = (await native.request("identify", name="Nat"))["profile"]
    room = await native.request("create_room", game="dots", settings={"width": 2, "height": 2}, public=True)
    alice = await dots(server)
    joined = await join(alice, room["code"].lower(), "alice")
    await native.request("ready", ready=True)
    await alice.send({"type": "READY", "ready": True})
    await alice.expect(lambda m: m == {"type": "GAMESTATE", "state": "started"})
    await play_out({joined["playerid"]: alice}, 2, 2, native)
    await native.expect_key("type", "game_over")
    with urllib.request.urlopen(f"{server.http}/api/games?room={room['code']}", timeout=5) as response:
        (game,) = json.loads(response.read())["games"]
    players = {p["name"]: p for p in game["players"]}
    assert players["Nat"]["profile"] == profile["id"]
    assert "profile" not in players["alice"] and "bot" not in players["alice"]
    await alice.close()
    await native.close()
