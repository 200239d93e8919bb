"""The compiled UNO engine (``scripts/compile_engines.py``, mypyc) plays exactly as its source does.

Every other UNO test runs against whichever module Python imported: the extension where it was
built. Here the source is loaded beside it and both are driven through the same random games
(legal moves, junk of every shape, timeouts, leaves, all house rules); they must agree on every
event, view, legal list, refusal, RNG state and outcome. Also: the guard that passes over an
extension built from other source, and that a machine with a compiler really gets the extension.
"""

from __future__ import annotations

import hashlib
import importlib.machinery
import importlib.util
import random
import shutil
import sys
import warnings
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lockstep import outcome_of

from parlour.games import uno
from parlour.games.compiled import compiled_modules, is_compiled, load_stale_from_source

HOUSE_RULES = ("draw_until_playable", "stacking", "jump_in", "seven_swap", "zero_rotate", "forced_play")
MAX_STEPS = 1_500  # a game may go on; that it ends is test_uno_properties' business


def _source_module() -> ModuleType:
    """``parlour/games/uno.py`` executed from source under a name of its own."""
    spec = importlib.util.spec_from_file_location(
        "parlour_uno_source", Path(uno.__file__).with_name("uno.py")
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while it runs
    spec.loader.exec_module(module)
    return module


needs_compiled = pytest.mark.skipif(not is_compiled(uno), reason="the UNO engine is not compiled here")


def test_a_machine_with_a_compiler_runs_the_compiled_engine() -> None:
    """``./test`` and ``./serve`` compile it first; a silent fallback (a type error mypyc refuses,
    say) would lose the speed without anyone noticing."""
    if shutil.which("cc") is None or importlib.util.find_spec("mypyc") is None:
        pytest.skip("no C compiler or no mypyc: the pure-Python engine is expected")
    assert is_compiled(uno), f"parlour.games.uno comes from {uno.__file__}"
    assert "uno" in compiled_modules()  # what the server's start-up line reports


JUNK_SEATS: list[Any] = [True, False, -1, 10, "1", None, 1.0]


def junk_action(driver: random.Random, players: int) -> Any:
    """An action of a random shape, mostly illegal, some not even well-formed."""
    card = driver.choice([driver.randrange(108), -1, 108, "3", None, 2.0])
    action: dict[str, Any] = {"type": driver.choice(["play", "play", "draw", "pass", "call_uno", "catch"])}
    if action["type"] == "play":
        action["card"] = card
    if driver.random() < 0.5:
        action["color"] = driver.choice(["red", "blue", "wild", 3, None])
    if driver.random() < 0.4:
        action["target"] = driver.choice([driver.randrange(-1, players + 1), "0", None, True])
    if driver.random() < 0.3:
        action["uno"] = driver.choice([True, False, 1, "yes"])
    return driver.choice([action, action, action, ["play"], None, {"type": "dance"}, {}])


def play_both(raw: dict[str, Any], players: int, seed: int) -> None:
    """One random game (its first ``MAX_STEPS``) on both engines in lock step, comparing everything
    after every step."""
    engines = [uno.GAME, SOURCE.GAME]
    driver = random.Random(seed ^ 0xC0FFEE)
    states = [game.setup(game.settings(raw), players, random.Random(seed)) for game in engines]
    assert engines[0].start_events(states[0]) == engines[1].start_events(states[1])
    for _ in range(MAX_STEPS):
        outcomes = [game.outcome(state) for game, state in zip(engines, states, strict=True)]
        assert outcomes[0] == outcomes[1]
        if outcomes[0] is not None:
            break
        seat = driver.randrange(players)
        for who in (seat, None):
            assert engines[0].view(states[0], who) == engines[1].view(states[1], who)
        assert engines[0].to_act(states[0]) == engines[1].to_act(states[1])
        legal = engines[0].legal_actions(states[0], seat)
        assert legal == engines[1].legal_actions(states[1], seat)
        roll = driver.random()
        if roll < 0.01:
            results = [
                outcome_of(game.on_leave, state, seat) for game, state in zip(engines, states, strict=True)
            ]
        elif roll < 0.03:
            turn = states[0].turn
            results = [
                outcome_of(game.on_timeout, state, turn) for game, state in zip(engines, states, strict=True)
            ]
        elif roll < 0.25:
            who = driver.choice([seat, seat, driver.choice(JUNK_SEATS)])
            action = junk_action(driver, players)
            results = [
                outcome_of(game.apply, state, who, action)
                for game, state in zip(engines, states, strict=True)
            ]
            parsed = [outcome_of(game.parse_action, action) for game in engines]
            assert parsed[0] == parsed[1]
        else:
            turn = states[0].turn
            seat, legal = (
                (seat, legal)
                if legal and driver.random() < 0.2
                else (turn, engines[0].legal_actions(states[0], turn))
            )
            action = driver.choice(legal)
            results = [
                outcome_of(game.apply, state, seat, action)
                for game, state in zip(engines, states, strict=True)
            ]
            assert results[0][0] == "ok", results[0]
        assert results[0] == results[1]
        assert states[0].rng.getstate() == states[1].rng.getstate()


SOURCE = _source_module()

settings_strategy = st.fixed_dictionaries(
    {
        **{rule: st.booleans() for rule in HOUSE_RULES},
        "challenge_wild_draw4": st.booleans(),
        "uno_penalty": st.integers(0, 4),
        "target_score": st.sampled_from([0, 0, 100]),
    }
)


@needs_compiled
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(raw=settings_strategy, players=st.integers(2, 10), seed=st.integers(0, 2**32 - 1))
def test_compiled_and_source_engines_play_identically(raw: dict[str, Any], players: int, seed: int) -> None:
    play_both(raw, players, seed)


@needs_compiled
def test_compiled_and_source_engines_refuse_the_same_settings_and_seat_counts() -> None:
    bad_settings: list[Any] = [
        [],
        "x",
        {"stacking": 1},
        {"uno_penalty": "2"},
        {"max_players": 11},
        {"nope": 1},
    ]
    for raw in [None, {}, {"stacking": True}, *bad_settings]:
        assert outcome_of(uno.GAME.settings, raw)[:3] == outcome_of(SOURCE.GAME.settings, raw)[:3]
    for players in [1, 2, 11, "2", 2.0, None, True]:
        results = [
            outcome_of(game.setup, game.settings(None), players, random.Random(5))[0]
            for game in (uno.GAME, SOURCE.GAME)
        ]
        assert results[0] == results[1]


def test_an_extension_built_from_other_source_is_passed_over(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    package = tmp_path / "stalepkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "engine.py").write_text("WHERE = 'source'\n")
    (package / f"engine{importlib.machinery.EXTENSION_SUFFIXES[0]}").write_bytes(b"not a real extension")
    sys.path.insert(0, str(tmp_path))
    try:
        (package / "compiled.json").write_text('{"engine": "the digest of an older engine.py"}')
        with pytest.warns(UserWarning, match="older than its source"):
            assert load_stale_from_source("stalepkg", package) == ["engine"]
        assert sys.modules["stalepkg.engine"].WHERE == "source"
        del sys.modules["stalepkg.engine"]

        digest = hashlib.sha256((package / "engine.py").read_bytes()).hexdigest()
        (package / "compiled.json").write_text(f'{{"engine": "{digest}"}}')
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            assert load_stale_from_source("stalepkg", package) == []
        assert "stalepkg.engine" not in sys.modules

        monkeypatch.setenv("PARLOUR_PURE_PYTHON", "1")  # every extension passed over, without a warning
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            assert load_stale_from_source("stalepkg", package) == ["engine"]
        assert sys.modules["stalepkg.engine"].WHERE == "source"
    finally:
        sys.path.remove(str(tmp_path))
        for name in [n for n in sys.modules if n.startswith("stalepkg")]:
            del sys.modules[name]
