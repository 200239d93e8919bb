"""The leak scan: nothing private reaches anyone but its owner, in any frame.

Per game message ``seq``, each seat's hand is known from that seat's own view. Every card object
(a dict with an ``id`` and a ``rank`` or ``color``) in a frame to another client at the same
``seq`` must not be in that hand, except where the rules reveal it publicly (a Cheat call).
Tokens and passwords must appear only in their owner's ``welcome`` (passwords: nowhere).
"""

from __future__ import annotations

import json
from typing import Any

from tests.server.client import Client

PUBLIC_REVEALS = {
    "called",
    "round_over",
    "game_over",
    "round_started",
    "dealer_draw",
}  # rules show these to all


def _cards(value: Any, out: set[int]) -> None:
    if isinstance(value, dict):
        if "id" in value and ("rank" in value or "color" in value) and isinstance(value["id"], int):
            out.add(value["id"])
        for inner in value.values():
            _cards(inner, out)
    elif isinstance(value, list):
        for inner in value:
            _cards(inner, out)


def _hands(client: Client) -> dict[int, set[int]]:
    hands: dict[int, set[int]] = {}
    for m in client.messages:
        if m.get("type") in ("game", "game_started") and "hand" in m["view"]:
            hands[m["seq"]] = {c["id"] for c in m["view"]["hand"]}
    return hands


def scan(players: list[Client], others: list[Client], secrets: list[str]) -> int:
    """Assert no leak; returns how many frames were checked."""
    everyone = players + others
    hands = {id(p): _hands(p) for p in players}
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
            seen: set[int] = set()
            _cards({k: v for k, v in m["view"].items() if k != "hand"}, seen)
            for event in m["events"]:
                if event.get("type") not in PUBLIC_REVEALS:
                    _cards(event, seen)
            for other in players:
                if other is client:
                    continue
                leaked = seen & hands[id(other)].get(m["seq"], set())
                assert not leaked, (m["seq"], leaked, json.dumps(m)[:500])
    return checked
