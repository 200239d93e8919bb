"""A player's rates: a rate of nothing (no Cheat calls made) is no rate, not 0%."""

from __future__ import annotations

from parlour.net.history import totals_json
from parlour.store import PlayerTotals


def test_a_rate_with_nothing_to_rate_is_null_and_one_with_something_is_the_share() -> None:
    never_called = totals_json(PlayerTotals("p_ada", "cheat", "Ada", None, 3, 1, {"caught_lying": 2}))
    assert never_called["rates"] == {"win_rate": 0.3333, "call_accuracy": None}
    called = totals_json(PlayerTotals("p_bo", "cheat", "Bo", None, 4, 0, {"calls": 3, "calls_right": 2}))
    assert called["rates"] == {"win_rate": 0.0, "call_accuracy": 0.6667}
