"""Game-log entries: every engine describes what matters, from public fields only."""

from __future__ import annotations

import json
import random

import pytest

from parlour.games import GAMES, Event

SETTINGS = {"uno": {"seven_swap": True, "zero_rotate": True, "jump_in": True, "target_score": 0}}
QUIET = {"turn", "dealer_draw", "drawn_playable"}  # bookkeeping: whose turn, who deals


@pytest.mark.parametrize("name", sorted(GAMES))
def test_entries_come_from_public_fields_and_cover_every_event(name):
    game = GAMES[name]
    kinds_seen: set[str] = set()
    for seed in range(25):
        rng = random.Random(seed)
        state = game.setup(game.settings(SETTINGS.get(name, {})), 3, rng)
        events = list(game.start_events(state))
        for _ in range(2000):
            if game.outcome(state):
                break
            moves = [(s, a) for s in range(3) for a in game.legal_actions(state, s)]
            seat, action = rng.choice(moves)
            events += game.apply(state, seat, action)
        for event in events:
            entry = game.describe(event)
            # The same entry without the private part: nothing hidden can have gone into it.
            assert entry == game.describe(Event(event.type, dict(event.public), {}))
            if event.type in QUIET:
                assert entry is None
                continue
            if entry is None:
                assert event.type == "draw" and event.public["count"] == 0
                continue
            kinds_seen.add(event.type)
            assert entry["kind"] == event.type and entry["icon"] and entry["text"]
            json.dumps(entry)
    assert (
        kinds_seen
        >= {
            "uno": {"play", "draw", "skip", "reverse"},
            "cheat": {"played", "called"},
            "dots": {"line", "capture", "game_over"},
        }[name]
    )
