"""A room made over /dots asks its password of players only: the web client shows its spectators why
there is no "Take a seat" (pressing it could only be refused, ``wrong_password``)."""

from __future__ import annotations

import json
import secrets

import pytest
from browser_helpers import shots, wait_room
from websockets.sync.client import connect

pytestmark = pytest.mark.browser


def dots_room(server: str, password: str) -> str:
    """CREATE a 3×3 password room over the seed's /dots protocol; its Parlour room code."""
    with connect(server.replace("http", "ws", 1) + "/dots") as ws:
        ws.send(
            json.dumps(
                {
                    "type": "CREATE",
                    "roomname": f"r{secrets.token_hex(4)}",
                    "width": 3,
                    "height": 3,
                    "password": password,
                }
            )
        )
        while True:
            reply = json.loads(ws.recv(timeout=10))
            if reply.get("type") == "CREATE":
                assert reply["ok"] is True, reply
                return str(reply["code"])


def test_spectator_of_a_dots_password_room_is_told_how_to_play(open_page, server):
    code = dots_room(server, "sesame")
    watcher = open_page(f"/r/{code}")
    watcher.fill("#name", "Watcher")
    watcher.click("#spectate-btn")
    wait_room(watcher)
    hint = watcher.locator('[data-testid="seat-password"]')
    hint.wait_for()
    assert "password" in hint.inner_text()
    assert watcher.get_by_role("button", name="Take a seat").count() == 0
    assert watcher.get_by_role("button", name="Just watch").count() == 0
    shots(watcher, "seat-password")
