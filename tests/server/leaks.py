"""The leak scan: nothing private reaches anyone but its owner, in any frame.

What is private comes from the game's contract, not from this file: per game message ``seq``, each seat's
secrets are the items of its own view's ``secret_fields`` (UNO and Cheat: the hand). No frame to another
client at the same ``seq`` may hold one of them — in its view or in an event, except the events the game
declares ``revealing_events`` (the rules show those to everyone: a Cheat call). Tokens and passwords must
appear only in their owner's ``welcome`` (passwords: nowhere). A spectator's view never carries ``legal``.
"""

from __future__ import annotations

import json
from typing import Any

from parlour.bots.catalog import get_game
from tests.contains import contains
from tests.server.client import Client


def _secrets(client: Client, fields: tuple[str, ...]) -> dict[int, list[Any]]:
    """Per ``seq``: the items of the client's own secret fields."""
    out: dict[int, list[Any]] = {}
    for m in client.messages:
        if m.get("type") in ("game", "game_started"):
            out[m["seq"]] = [item for key in fields for item in m["view"].get(key) or []]
    return out


def scan(game: str, players: list[Client], others: list[Client], secrets: list[str]) -> int:
    """Assert no leak in a room of ``game``; returns how many frames were checked."""
    engine = get_game(game)
    everyone = players + others
    owned = {id(p): _secrets(p, engine.secret_fields) for p in players}
    checked = 0
    for client in everyone:
        for frame, m in zip(client.frames, client.messages, strict=True):
            checked += 1
            for secret in secrets:
                if secret in frame:
                    assert m.get("type") == "welcome" and m.get("token") == secret == client.token, (
                        secret,
                        frame,
                    )
            assert '"password"' not in frame and '"password_hash"' not in frame, frame
            assert '"deck":[' not in frame.replace(" ", ""), frame
            if m.get("type") not in ("game", "game_started"):
                continue
            if client in others:  # a seat's moves (``legal``: its own cards too) go to that seat only
                assert "legal" not in m["view"], json.dumps(m)[:500]
            shown = [m["view"], *(e for e in m["events"] if e.get("type") not in engine.revealing_events)]
            for other in players:
                if other is client:
                    continue
                leaked = [item for item in owned[id(other)].get(m["seq"], []) if contains(shown, item)]
                assert not leaked, (m["seq"], leaked, json.dumps(m)[:500])
    return checked
