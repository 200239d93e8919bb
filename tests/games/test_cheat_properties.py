"""Random Cheat games across 3..10 players and every setting, checked after every step.

Hypothesis draws the table (players, settings, seed, how often people call or
leave); a ``random.Random`` seeded from it drives the moves, which keeps each
game cheap. Random play may never finish, so the test (only) caps the steps.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field
from typing import Any

import orjson
import pytest
from fingerprints import cheat_fingerprint
from hypothesis import HealthCheck, given
from hypothesis import settings as hsettings
from hypothesis import strategies as st

from parlour.games.base import Event, IllegalAction
from parlour.games.cheat import GAME, State, allowed_ranks

STEP_CAP = 120


def clone(state: State) -> State:
    """An independent copy, so one position can try many actions (the engine's own, counters too)."""
    return GAME.clone(state)


CARD = re.compile(rb'"id":(-?\d+)')


def card_ids(data: Any) -> set[int]:
    """Every card id anywhere inside a view or event: only cards carry an "id" (one fast dump)."""
    return {int(m) for m in CARD.findall(orjson.dumps(data, option=orjson.OPT_NON_STR_KEYS))}


@dataclass
class Table:
    """One random game: its inputs, the log that replays it, and every event seen."""

    players: int
    raw_settings: dict[str, Any]
    seed: int
    call_rate: float
    leave_rate: float
    log: list[tuple[str, int, Any]] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)


def new_state(table: Table) -> State:
    return GAME.setup(GAME.settings(table.raw_settings), table.players, random.Random(table.seed))


def random_play(state: State, seat: int, rng: random.Random) -> dict[str, Any]:
    """Any legal play, not just the ones ``legal_actions`` lists: a random 1–4 subset."""
    hand = state.hands[seat]
    cards = rng.sample(hand, rng.randint(1, min(4, len(hand))))
    return {"type": "play", "cards": cards, "rank": rng.choice(allowed_ranks(state))}


def illegal_action(state: State, rng: random.Random) -> tuple[int, Any, str]:
    """A refused action and the code it must be refused with."""
    n = state.players
    seats = [s for s in range(n) if state.active[s]]
    turn = state.turn
    assert turn is not None
    hand = state.hands[turn]
    others = [s for s in seats if s != turn]
    other = rng.choice(others)
    ranks = allowed_ranks(state)
    play = state.last_play
    options: list[tuple[int, Any, str]] = [
        (turn, {"type": "play", "cards": "x"}, "bad_action"),
        (turn, {"type": "bid"}, "bad_action"),
        (turn, {"type": "play", "cards": []}, "no_cards"),
        (turn, {"type": "play", "cards": [hand[0], hand[0]], "rank": ranks[0]}, "duplicate_card"),
        (
            other,
            {"type": "play", "cards": state.hands[other][:1] or [hand[0]], "rank": ranks[0]},
            "not_your_turn",
        ),
    ]
    if state.hands[other]:
        options.append(
            (turn, {"type": "play", "cards": [state.hands[other][0]], "rank": ranks[0]}, "card_not_in_hand")
        )
    if state.pile:
        options.append(
            (turn, {"type": "play", "cards": [rng.choice(state.pile)], "rank": ranks[0]}, "card_not_in_hand")
        )
    if len(hand) >= 5:
        options.append((turn, {"type": "play", "cards": hand[:5], "rank": ranks[0]}, "too_many_cards"))
    if len(ranks) < 13:
        bad = next(r for r in range(13) if r not in ranks)
        options.append((turn, {"type": "play", "cards": [hand[0]], "rank": bad}, "bad_rank"))
    if play is None:
        options.append((rng.choice(seats), {"type": "call"}, "nothing_to_call"))
    elif not play.callable:
        options.append(
            (rng.choice([s for s in seats if s != play.seat]), {"type": "call"}, "nothing_to_call")
        )
    elif state.active[play.seat]:
        options.append((play.seat, {"type": "call"}, "cannot_call_own_play"))
    gone = [s for s in range(n) if not state.active[s]]
    if gone:
        options.append((rng.choice(gone), {"type": "call"}, "not_your_turn"))
    return rng.choice(options)


def check_invariants(state: State, table: Table, new_events: list[Event], pile_before: set[int]) -> None:
    n = state.players
    total = 52 * state.decks
    everywhere = [c for hand in state.hands for c in hand] + state.pile
    assert len(everywhere) == total and set(everywhere) == set(range(total)), "a card is lost or doubled"
    pile = set(state.pile)
    over = state.reason is not None
    active = [s for s in range(n) if state.active[s]]
    if over:
        result = GAME.outcome(state)
        assert result is not None and GAME.to_act(state) == []
        assert result.winners or result.reason == "not_enough_players"
        assert all(GAME.legal_actions(state, s) == [] for s in range(n))
    else:
        assert GAME.outcome(state) is None
        assert len(active) >= 3
        turn = state.turn
        assert turn is not None and state.active[turn] and state.hands[turn]
        to_act = GAME.to_act(state)
        assert to_act[0] == turn
        play = state.last_play
        callable_ = play is not None and play.callable
        if callable_:
            assert play is not None and set(play.cards) <= pile
            assert set(to_act) == set(active) - {play.seat} | {turn}
        else:
            assert to_act == [turn]
        for seat in range(n):
            kinds = {a["type"] for a in GAME.legal_actions(state, seat)}
            assert ("play" in kinds) == (seat == turn), "only the seat on the clock may play"
            may_call = callable_ and state.active[seat] and play is not None and seat != play.seat
            assert ("call" in kinds) == may_call, "only non-placers may call"
        # Nobody but the last placer is ever left holding nothing while the game runs.
        for seat in active:
            assert state.hands[seat] or (play is not None and play.seat == seat)
    for seat in [*range(n), None]:
        v = GAME.view(state, seat)
        seen = card_ids(v)
        if seat is None:
            assert "hand" not in v and not seen
        else:
            assert seen == set(state.hands[seat]), "a view shows someone else's cards"
            assert len(v["hand"]) == len(state.hands[seat])
        assert not seen & pile, "a view shows the pile"
        assert v["pile_size"] == len(state.pile)
        assert v["hand_sizes"] == [len(h) for h in state.hands]
    for event in new_events:
        public = card_ids(event.public)
        if event.type == "called":
            assert public <= pile_before
        else:
            assert not public, f"{event.type} shows cards publicly"
        for owner, private in event.private.items():
            assert card_ids(private) <= pile_before | set(state.hands[owner]) | pile
            if event.type == "picked_up":
                assert card_ids(private) <= set(state.hands[owner])


def run_game(table: Table, *, checks: bool = True) -> State:
    """Play one random game, logging every input, checking after every step."""
    rng = random.Random(table.seed ^ 0x5EED)
    state = new_state(table)
    table.events.extend(GAME.start_events(state))
    for _ in range(STEP_CAP):
        if state.reason is not None:
            break
        pile_before = set(state.pile)
        if checks and rng.random() < 0.3:
            seat, action, code = illegal_action(state, rng)
            before = cheat_fingerprint(state)
            try:
                GAME.apply(state, seat, action)
            except IllegalAction as err:
                assert err.code == code, (err.code, code, action)
            else:
                raise AssertionError(f"{action} by {seat} was accepted")
            assert cheat_fingerprint(state) == before
        roll = rng.random()
        active = [s for s in range(state.players) if state.active[s]]
        to_act = GAME.to_act(state)
        if roll < table.leave_rate:
            entry = ("leave", rng.choice(active), None)
        elif roll < table.leave_rate + 0.03:
            entry = ("timeout", to_act[0], None)
        elif len(to_act) > 1 and roll < table.leave_rate + 0.03 + table.call_rate:
            entry = ("act", rng.choice(to_act[1:]), {"type": "call"})
        elif rng.random() < 0.25:
            entry = ("act", to_act[0], random_play(state, to_act[0], rng))
        else:
            entry = ("act", to_act[0], rng.choice(GAME.legal_actions(state, to_act[0])))
        table.log.append(entry)
        new = apply_entry(state, entry)
        table.events.extend(new)
        if checks:
            check_invariants(state, table, new, pile_before)
    return state


def apply_entry(state: State, entry: tuple[str, int, Any]) -> list[Event]:
    kind, seat, action = entry
    if kind == "leave":
        return GAME.on_leave(state, seat)
    if kind == "timeout":
        return GAME.on_timeout(state, seat)
    return GAME.apply(state, seat, action)


tables = st.builds(
    Table,
    players=st.integers(3, 10),
    raw_settings=st.fixed_dictionaries(
        {
            "decks": st.sampled_from(["auto", 1, 2]),
            "rank_sequence": st.sampled_from(["ascending", "up_or_down", "any"]),
            "max_players": st.just(10),
        }
    ),
    seed=st.integers(0, 2**32 - 1),
    call_rate=st.sampled_from([0.0, 0.05, 0.2, 0.5]),
    leave_rate=st.sampled_from([0.0, 0.0, 0.01, 0.05]),
)


@pytest.mark.slow
@hsettings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(table=tables)
def test_random_games_keep_every_invariant(table: Table) -> None:
    run_game(table)


@hsettings(max_examples=150, deadline=None)
@given(table=tables)
def test_every_listed_action_applies(table: Table) -> None:
    """Not just the one chosen: each listed action is accepted from the same position."""
    state = new_state(table)
    rng = random.Random(table.seed)
    for _ in range(30):
        if state.reason is not None:
            break
        seat = rng.choice(GAME.to_act(state))
        actions = GAME.legal_actions(state, seat)
        assert actions
        before = cheat_fingerprint(state)
        for action in actions:
            GAME.apply(clone(state), seat, action)
        assert cheat_fingerprint(state) == before
        GAME.apply(state, seat, rng.choice(actions))


@hsettings(max_examples=100, deadline=None)
@given(table=tables)
def test_replay_rebuilds_the_identical_game(table: Table) -> None:
    state = run_game(table, checks=False)
    again = Table(table.players, table.raw_settings, table.seed, table.call_rate, table.leave_rate)
    rebuilt = new_state(again)
    events = GAME.start_events(rebuilt)
    for entry in table.log:
        events.extend(apply_entry(rebuilt, entry))
    assert cheat_fingerprint(rebuilt) == cheat_fingerprint(state)
    assert events == table.events
    assert GAME.outcome(rebuilt) == GAME.outcome(state)
    assert GAME.view(rebuilt, 0) == GAME.view(state, 0)
