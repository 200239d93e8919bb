"""Each game's ``player_stats``: one count per ``stat_labels`` key, adding up to what the game shows."""

from __future__ import annotations

import random

import pytest

from parlour.bots.catalog import CATALOG, make_bot
from parlour.bots.simulate import run


@pytest.mark.parametrize("name", sorted(CATALOG))
def test_stats_have_their_labels_and_add_up(name: str) -> None:
    game = CATALOG[name].game
    players = max(game.min_players, 3 if name == "cheat" else 2)
    settings = game.settings({"width": 4, "height": 3} if name == "dots" else None)
    for seed in range(20):
        rng = random.Random(seed)
        bots = [make_bot(name, "easy", seat, random.Random(seed * 10 + seat)) for seat in range(players)]
        state = game.setup(settings, players, rng)
        before = game.clone(state)
        outcome, _ = run(game, state, bots, rng)
        assert outcome is not None
        stats = [game.player_stats(state, outcome, seat) for seat in range(players)]
        keys = [key for key, _ in game.stat_labels]
        assert all(list(s) == keys and all(type(v) is int and v >= 0 for v in s.values()) for s in stats)
        assert game.player_stats(before, outcome, 0) == dict.fromkeys(keys, 0), "a clone keeps its own counts"
        if name == "dots":
            assert sum(s["boxes"] for s in stats) == (4 - 1) * (3 - 1), "every box of a 4x3-dot board"
            assert [s["boxes"] for s in stats] == [outcome.scores.get(seat, 0) for seat in range(players)]
        elif name == "uno":
            assert [s["points"] for s in stats] == [outcome.scores[seat] for seat in range(players)]
        elif name == "cheat":
            assert sum(s["calls_right"] for s in stats) == sum(s["caught_lying"] for s in stats)
            assert all(s["calls_right"] <= s["calls"] for s in stats)
        elif name == "connect_four":
            assert abs(stats[0]["discs"] - stats[1]["discs"]) <= 1
