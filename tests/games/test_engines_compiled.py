"""The compiled Dots & Boxes and Cheat engines (``scripts/compile_engines.py``, mypyc) play exactly as
their sources do.

Their rule and property tests run against whichever module Python imported (the extension where it
was built). Here each source is loaded beside its extension and both are driven through the same
random games (legal moves, junk seats and actions, timeouts, leaves); they must agree on every event,
view, legal list, refusal and outcome. (UNO has its own: tests/games/test_uno_compiled.py.)
"""

from __future__ import annotations

import importlib
import importlib.util
import random
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lockstep import outcome_of

from parlour.games.compiled import is_compiled

ENGINES = {
    "dots": [{"width": 4, "height": 4}, {"width": 7, "height": 5}, {"width": 20, "height": 20}],
    "cheat": [{}, {"rank_sequence": "any", "decks": 2}, {"rank_sequence": "up_or_down"}],
}
PLAYERS = {"dots": (2, 8), "cheat": (3, 10)}
MAX_STEPS = 1_200
DESCRIPTION = (  # what the Game protocol says an engine describes itself with
    "name",
    "title",
    "how_to_play",
    "leave_rule",
    "end_reasons",
    "min_players",
    "max_players",
    "settings_schema",
    "score_label",
    "scores_add_up",
    "secret_fields",
    "revealing_events",
    "has_catches",
    "stat_labels",
    "stat_rates",
)
JUNK_SEATS: list[Any] = [True, -1, 99, "1", None, 1.0]
JUNK_ACTIONS: list[Any] = [
    None,
    True,
    -1,
    10**6,
    "3",
    1.5,
    [0],
    {},
    {"type": "line", "x": 0, "y": 0, "d": 1},
    {"type": "line", "line": True},
    {"type": "call"},
    {"type": "play", "cards": [0, 1], "rank": 0},
    {"type": "play", "cards": "0"},
]


def _source(name: str) -> ModuleType:
    """``parlour/games/<name>.py`` executed from source under a name of its own."""
    spec = importlib.util.spec_from_file_location(
        f"parlour_{name}_source", Path(__file__).resolve().parents[2] / "parlour" / "games" / f"{name}.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while it runs
    spec.loader.exec_module(module)
    return module


def play_both(name: str, raw: dict[str, Any], players: int, seed: int) -> None:
    compiled = importlib.import_module(f"parlour.games.{name}")
    engines = [compiled.GAME, SOURCES[name].GAME]
    driver = random.Random(seed ^ 0xD07)
    states = [game.setup(game.settings(raw), players, random.Random(seed)) for game in engines]
    assert outcome_of(engines[0].start_events, states[0]) == outcome_of(engines[1].start_events, states[1])
    for _ in range(MAX_STEPS):
        outcomes = [game.outcome(state) for game, state in zip(engines, states, strict=True)]
        assert outcomes[0] == outcomes[1]
        if outcomes[0] is not None:
            break
        assert engines[0].to_act(states[0]) == engines[1].to_act(states[1])
        seat = driver.randrange(players)
        for who in (seat, None):
            assert engines[0].view(states[0], who) == engines[1].view(states[1], who)
        assert engines[0].legal_actions(states[0], seat) == engines[1].legal_actions(states[1], seat)
        roll = driver.random()
        if roll < 0.01:
            results = [outcome_of(g.on_leave, s, seat) for g, s in zip(engines, states, strict=True)]
        elif roll < 0.03:
            turn = engines[0].to_act(states[0])[0]
            results = [outcome_of(g.on_timeout, s, turn) for g, s in zip(engines, states, strict=True)]
        elif roll < 0.2:
            who = driver.choice([seat, driver.choice(JUNK_SEATS)])
            action = driver.choice(JUNK_ACTIONS)
            results = [outcome_of(g.apply, s, who, action) for g, s in zip(engines, states, strict=True)]
            parsed = [outcome_of(g.parse_action, action) for g in engines]
            assert parsed[0] == parsed[1]
        else:
            seats = [s for s in engines[0].to_act(states[0]) if engines[0].legal_actions(states[0], s)]
            who = driver.choice(seats)
            action = driver.choice(engines[0].legal_actions(states[0], who))
            results = [outcome_of(g.apply, s, who, action) for g, s in zip(engines, states, strict=True)]
            assert results[0][0] == "ok", results[0]
        assert results[0] == results[1]
    for who in range(players):
        assert engines[0].view(states[0], who) == engines[1].view(states[1], who)


SOURCES = {name: _source(name) for name in ENGINES}


@pytest.mark.parametrize("name", sorted(ENGINES))
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_compiled_and_source_engines_play_identically(name: str, data: st.DataObject) -> None:
    if not is_compiled(importlib.import_module(f"parlour.games.{name}")):
        pytest.skip(f"the {name} engine is not compiled here")
    raw = data.draw(st.sampled_from(ENGINES[name]))
    low, high = PLAYERS[name]
    play_both(name, raw, data.draw(st.integers(low, high)), data.draw(st.integers(0, 2**32 - 1)))


@pytest.mark.parametrize("name", sorted(ENGINES))
def test_compiled_and_source_engines_refuse_the_same_settings_and_seat_counts(name: str) -> None:
    compiled = importlib.import_module(f"parlour.games.{name}")
    if not is_compiled(compiled):
        pytest.skip(f"the {name} engine is not compiled here")
    engines = [compiled.GAME, SOURCES[name].GAME]
    # Class-level values mypyc warns about ("Unsupported default attribute value") must still be there.
    described = [{key: getattr(game, key) for key in DESCRIPTION} for game in engines]
    assert described[0] == described[1]
    for raw in [
        None,
        {},
        [],
        "x",
        {"width": 1},
        {"width": "4"},
        {"decks": 3},
        {"max_players": 99},
        {"no": 1},
    ]:
        assert outcome_of(engines[0].settings, raw)[:3] == outcome_of(engines[1].settings, raw)[:3]
    for players in [0, 1, 2, 3, 11, "3", 3.0, None, True]:
        results = [
            outcome_of(game.setup, game.settings(None), players, random.Random(5))[0] for game in engines
        ]
        assert results[0] == results[1]
    for raw in JUNK_ACTIONS:  # format_action takes engine actions: those parse_action makes
        parsed = [outcome_of(game.parse_action, raw) for game in engines]
        assert parsed[0] == parsed[1]
        if parsed[0][0] == "ok":
            assert engines[0].format_action(parsed[0][1]) == engines[1].format_action(parsed[1][1])
