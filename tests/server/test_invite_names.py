"""An invite link's page names the room's game and its host ("Join Ada's UNO game"): it said only "Join
room K7QF2", and a friend could not tell one link from another's before typing a name and joining."""

from __future__ import annotations

import json
from typing import Any

from tests.server.client import Client
from tests.server.test_invite_hardening import _get


async def test_the_invite_names_the_game_and_whoever_hosts_now(server: Any) -> None:
    ada = await Client.open(server.ws, "Ada")
    code = (await ada.ok("create_room", game="uno", public=False))["code"]
    status, body = _get(server, f"/api/invite/{code}")
    invite = json.loads(body)
    assert status == 200
    assert set(invite) == {"code", "url", "qr", "lan", "local_only", "game", "host", "password", "playing"}
    facts = [invite[key] for key in ("game", "host", "password", "playing")]
    assert facts == ["uno", "Ada", False, False]
    bo = await Client.open(server.ws, "Bo")
    await bo.ok("join", code=code)
    await ada.ok("leave")  # the host leaves: Bo hosts now
    await bo.wait_for(lambda m: m["type"] == "host_changed")
    assert json.loads(_get(server, f"/api/invite/{code}")[1])["host"] == "Bo"
    await ada.close()
    await bo.close()


async def test_the_invite_says_a_password_is_needed_and_a_game_is_on(server: Any) -> None:
    """Joining a password room without it was refused only after Join; joining mid-game made the
    visitor a spectator without a word before. The link's page can say both first."""
    ada, bo = await Client.open(server.ws, "Ada"), await Client.open(server.ws, "Bo")
    code = (await ada.ok("create_room", game="dots", password="pw", capacity=2))["code"]
    facts = json.loads(_get(server, f"/api/invite/{code}")[1])
    assert (facts["password"], facts["playing"]) == (True, False)
    assert "pw" not in json.dumps(facts)
    await bo.ok("join", code=code, password="pw")
    await ada.ok("start")
    await bo.wait_for(lambda m: m["type"] == "game_started")
    facts = json.loads(_get(server, f"/api/invite/{code}")[1])
    assert (facts["password"], facts["playing"]) == (True, True)
    await ada.close()
    await bo.close()
