"""Hypothesis over thousands of random UNO games: invariants after every single action.

The driver mixes in-turn moves, out-of-turn ones (catch, call UNO, Jump-In), timeouts, leaves
and deliberately illegal actions, so refusals are checked to leave the state untouched.
"""

from __future__ import annotations

import dataclasses
import random
import re
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from parlour.games.base import Event, IllegalAction
from parlour.games.uno import CARDS, GAME, State

HOUSE_RULES = ("draw_until_playable", "stacking", "jump_in", "seven_swap", "zero_rotate", "forced_play")
OUT_OF_TURN = ("catch", "call_uno", "play")  # plays out of turn are Jump-Ins
MAX_STEPS = 20_000

settings_strategy = st.fixed_dictionaries(
    {
        **{rule: st.booleans() for rule in HOUSE_RULES},
        "challenge_wild_draw4": st.booleans(),
        "uno_penalty": st.integers(0, 4),
        "target_score": st.sampled_from([0, 0, 60, 200]),
    }
)


def fingerprint(state: State) -> tuple[Any, ...]:
    """Every field of the state (rng included) as nested tuples, to compare before/after."""

    def freeze(value: Any) -> Any:
        if isinstance(value, list):
            return tuple(freeze(v) for v in value)
        if isinstance(value, random.Random):
            return value.getstate()
        if isinstance(value, Event):
            return value.type  # setup events never change after setup
        return value

    return tuple(freeze(getattr(state, f.name)) for f in dataclasses.fields(state))


def clone(state: State) -> State:
    """A cheap deep copy (lists and rng copied) for trying actions out."""
    rng = random.Random()
    rng.setstate(state.rng.getstate())
    copied = {
        f.name: [list(v) if isinstance(v, list) else v for v in value]
        if f.name == "hands"
        else (list(value) if isinstance(value, list) else value)
        for f in dataclasses.fields(state)
        for value in [getattr(state, f.name)]
    }
    copied["rng"] = rng
    return State(**copied)


def ids_in(value: Any) -> set[int]:
    """Every card id mentioned anywhere in a view or action (keys ``id``, ``card``, ``drawn_card``)."""
    found: set[int] = set()
    if isinstance(value, dict):
        for key, item in value.items():
            if key in ("id", "card", "drawn_card") and isinstance(item, int):
                found.add(item)
            else:
                found |= ids_in(item)
    elif isinstance(value, list):
        for item in value:
            found |= ids_in(item)
    return found


def check_invariants(state: State) -> None:
    cards = [c for hand in state.hands for c in hand] + state.draw + state.discard
    assert sorted(cards) == list(range(108)), "every card is in exactly one place"
    assert state.discard, "there is always a top card"
    for seat in range(state.n):
        if not state.active[seat]:
            assert state.hands[seat] == []
    outcome = GAME.outcome(state)
    to_act = GAME.to_act(state)
    if outcome is not None:
        assert to_act == []
        assert outcome.winners and all(state.active[w] for w in outcome.winners)
        assert outcome.scores == dict(enumerate(state.scores))
        return
    assert to_act == [state.turn] and state.active[state.turn], "the turn belongs to a seated player"
    for seat in range(state.n):
        legal = GAME.legal_actions(state, seat)
        if seat in to_act:
            assert legal, "the seat on the clock always has something to do"
        else:
            assert all(a["type"] in OUT_OF_TURN for a in legal), legal
        if not state.active[seat]:
            assert legal == []


def check_views(state: State, seat: int) -> None:
    view = GAME.view(state, seat)
    own = set(state.hands[seat])
    assert [c["id"] for c in view["hand"]] == sorted(own)
    assert ids_in(view) <= own | {state.discard[-1]}, "a view never shows another seat's cards"
    assert view["counts"] == [len(h) for h in state.hands]
    spectator = GAME.view(state, None)
    assert "hand" not in spectator and "legal" not in spectator
    assert ids_in(spectator) <= {state.discard[-1]}


def check_events(events: list[Event], state: State) -> None:
    for event in events:
        assert re.fullmatch(r"[a-z0-9_]+", event.type)
        assert "cards" not in event.public and "hand" not in event.public, event
        for seat in event.private:
            assert 0 <= seat < state.n
        if event.type == "draw":
            count, reason = event.public["count"], event.public["reason"]
            assert count == len(event.private[event.public["seat"]]["cards"])
            if reason == "uno_penalty":
                assert count <= state.settings.uno_penalty
            elif reason == "timeout" or (reason == "draw" and not state.settings.draw_until_playable):
                assert count <= 1


def illegal_candidates(state: State, rng: random.Random) -> list[tuple[int, dict[str, Any]]]:
    """Random (seat, action) pairs, most of them illegal."""
    seat = rng.randrange(state.n)
    card = rng.choice(state.hands[seat] or [0]) if rng.random() < 0.7 else rng.randrange(108)
    action: dict[str, Any] = {"type": "play", "card": card}
    if rng.random() < 0.5:
        action["color"] = rng.choice(["red", "yellow", "green", "blue"])
    if rng.random() < 0.3:
        action["target"] = rng.randrange(-1, state.n + 1)
    junk_target = rng.choice([-1, -1, -2, state.n, state.n + 3, 2**40, -(2**40), seat, state.exposed])
    others = [{"type": kind} for kind in ("draw", "pass", "call_uno", "challenge", "accept", "dance")] + [
        {"type": "catch", "target": rng.randrange(state.n)},
        {"type": "catch", "target": junk_target},  # -1 while nobody is exposed, out of range, oneself
        {"type": "play", "card": "x"},
    ]
    return [(seat, action), (rng.randrange(state.n), rng.choice(others))]


def same_move(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """Equal up to flags apply may ignore (a colour on a non-Wild, an unneeded target, ``uno``)."""
    if a["type"] != b["type"] or a.get("card") != b.get("card"):
        return False
    if a["type"] == "catch":
        return a["target"] == b["target"]
    if a["type"] != "play":
        return True
    if CARDS[a["card"]]["color"] == "wild" and a.get("color") != b.get("color"):
        return False
    return "target" not in a or a["target"] == b.get("target")


def pick(state: State, rng: random.Random) -> tuple[int, dict[str, Any]]:
    """A random legal move, biased towards playing cards so games finish."""
    seat = state.turn
    if rng.random() < 0.1:
        movers = [s for s in range(state.n) if s != seat and GAME.legal_actions(state, s)]
        if movers:
            seat = rng.choice(movers)
    legal = GAME.legal_actions(state, seat)
    plays = [a for a in legal if a["type"] == "play"]
    action = dict(rng.choice(plays if plays and rng.random() < 0.8 else legal))
    if action.get("uno") and rng.random() < 0.4:
        del action["uno"]  # forget to call UNO sometimes, so catches happen
    return seat, action


def run_game(
    raw_settings: dict[str, Any], players: int, seed: int, thorough: bool = True
) -> tuple[State, list[tuple[str, int, Any]]]:
    """Play one random game, checking invariants after every action; returns the final state and log."""
    driver = random.Random(seed ^ 0x5EED)
    state = GAME.setup(GAME.settings(raw_settings), players, random.Random(seed))
    check_events(GAME.start_events(state), state)
    log: list[tuple[str, int, Any]] = []
    round_points: dict[int, int] = {}
    for _ in range(MAX_STEPS):
        check_invariants(state)
        if GAME.outcome(state) is not None:
            break
        if thorough:
            check_views(state, driver.randrange(players))
        roll = driver.random()
        if roll < 0.01:
            seat = driver.choice([s for s in range(players) if state.active[s]])
            events = GAME.on_leave(state, seat)
            log.append(("leave", seat, None))
        elif roll < 0.04:
            seat = state.turn
            events = GAME.on_timeout(state, seat)
            log.append(("timeout", seat, None))
        elif thorough and roll < 0.3:
            seat, action = driver.choice(illegal_candidates(state, driver))
            legal = GAME.legal_actions(state, seat)
            before = fingerprint(state)
            try:
                events = GAME.apply(state, seat, action)
            except IllegalAction as refused:
                assert re.fullmatch(r"[a-z0-9_]+", refused.code)
                assert fingerprint(state) == before, f"refused {action} changed the state"
                continue
            # Accepted after all: then it must be one of the listed moves.
            assert any(same_move(a, action) for a in legal), f"{action} accepted but not listed"
            log.append(("apply", seat, action))
        else:
            seat, action = pick(state, driver)
            events = GAME.apply(state, seat, action)
            log.append(("apply", seat, action))
        check_events(events, state)
        for event in events:
            if event.type == "round_over":
                winner = event.public["winner"]
                round_points[winner] = round_points.get(winner, 0) + event.public["points"]
    else:
        raise AssertionError("the game did not end")
    outcome = GAME.outcome(state)
    assert outcome is not None
    assert all(state.scores[s] == round_points.get(s, 0) for s in range(players)), "scores add up"
    if outcome.reason == "finished":
        target = state.settings.target_score
        assert all(state.scores[w] >= target for w in outcome.winners)
    return state, log


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(raw=settings_strategy, players=st.integers(2, 10), seed=st.integers(0, 2**32 - 1))
def test_random_games_keep_every_invariant(raw: dict[str, Any], players: int, seed: int) -> None:
    run_game(raw, players, seed)


@settings(max_examples=60, deadline=None)
@given(raw=settings_strategy, players=st.integers(2, 6), seed=st.integers(0, 2**32 - 1))
def test_every_legal_action_applies_cleanly(raw: dict[str, Any], players: int, seed: int) -> None:
    """At every step, each listed action for every seat applies to a copy without complaint."""
    driver = random.Random(seed)
    state = GAME.setup(GAME.settings(raw), players, random.Random(seed))
    for _ in range(300):
        if GAME.outcome(state) is not None:
            break
        for seat in range(players):
            for action in GAME.legal_actions(state, seat):
                GAME.apply(clone(state), seat, action)
        seat, action = pick(state, driver)
        GAME.apply(state, seat, action)


@settings(max_examples=60, deadline=None)
@given(raw=settings_strategy, players=st.integers(2, 10), seed=st.integers(0, 2**32 - 1))
def test_replay_rebuilds_the_identical_game(raw: dict[str, Any], players: int, seed: int) -> None:
    state, log = run_game(raw, players, seed, thorough=False)
    replay = GAME.setup(GAME.settings(raw), players, random.Random(seed))
    for kind, seat, action in log:
        if kind == "apply":
            GAME.apply(replay, seat, action)
        elif kind == "leave":
            GAME.on_leave(replay, seat)
        else:
            GAME.on_timeout(replay, seat)
    assert fingerprint(replay) == fingerprint(state)


@settings(max_examples=1500, deadline=None)
@given(raw=settings_strategy, players=st.integers(2, 10), seed=st.integers(0, 2**32 - 1))
def test_many_quick_games_end_with_all_cards_accounted(raw: dict[str, Any], players: int, seed: int) -> None:
    """Volume: many more games with the cheap invariants only."""
    state, _ = run_game(raw, players, seed, thorough=False)
    assert GAME.outcome(state) is not None
