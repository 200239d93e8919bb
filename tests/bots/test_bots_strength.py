"""Hard bots beat easy ones, with margins far outside the 95% intervals (seeded, so stable)."""

from __future__ import annotations

import pytest

from parlour.bots.simulate import simulate


@pytest.mark.parametrize(
    ("game", "players", "games", "settings"),
    [
        ("dots", 2, 20, None),
        ("uno", 2, 400, {"target_score": 0}),
        ("cheat", 4, 150, None),
    ],
)
def test_hard_beats_easy(game: str, players: int, games: int, settings: dict | None) -> None:
    result = simulate(game, players, ["hard", "easy"], games, seed=2026, settings=settings)
    low, _ = result.interval(0)
    assert low > 1 / players, result.report()


def test_cheat_hard_wins_at_least_twice_as_often_as_a_random_seat() -> None:
    result = simulate("cheat", 4, ["hard", "random"], 100, seed=2026)
    random_rate = sum(result.wins[1:]) / 3 / result.games
    assert result.rate(0) >= 2 * random_rate, result.report()
    assert result.unfinished == 0
