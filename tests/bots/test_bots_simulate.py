"""``parlour simulate``: the in-process API and the command-line entry points."""

from __future__ import annotations

import argparse

import pytest

from parlour.bots import make_bot
from parlour.bots.simulate import add_simulate_parser, run_simulate, simulate


def test_simulate_counts_every_game_and_rotates_seats() -> None:
    result = simulate("dots", 2, ["easy", "easy"], 30, seed=1, settings={"width": 3, "height": 3})
    assert result.games == 30
    assert sum(result.wins) == pytest.approx(30 - result.unfinished)
    assert result.average_length == 12  # every line of a 2×2-box board gets drawn
    lo, hi = result.interval(0)
    assert 0 <= lo <= result.rate(0) <= hi <= 1


def test_simulate_is_reproducible_from_its_seed() -> None:
    a = simulate("uno", 3, ["hard", "easy", "easy"], 20, seed=7, settings={"target_score": 0})
    b = simulate("uno", 3, ["hard", "easy", "easy"], 20, seed=7, settings={"target_score": 0})
    assert (a.wins, a.actions) == (b.wins, b.actions)


def test_short_bot_lists_are_padded_with_the_last_level() -> None:
    result = simulate("cheat", 4, ["hard", "easy"], 2, seed=3)
    assert result.bots == ["hard", "easy", "easy", "easy"]


def test_cli_prints_rates_with_intervals_and_length(capsys: pytest.CaptureFixture[str]) -> None:
    parser = argparse.ArgumentParser()
    add_simulate_parser(parser.add_subparsers(dest="command"))
    args = parser.parse_args(
        ["simulate", "--game", "dots", "--players", "2", "--bots", "hard,easy", "--games", "4", "--seed", "1"]
    )
    assert args.func(args) == 0 and args.func is run_simulate
    out = capsys.readouterr().out
    assert "dots: 2 players, 4 games" in out
    assert "95% CI" in out and "average game length: 24.0 actions" in out


def test_unknown_bots_are_refused() -> None:
    with pytest.raises(KeyError):
        make_bot("dots", "grandmaster", 0)
    with pytest.raises(KeyError):
        make_bot("chess", "easy", 0)
