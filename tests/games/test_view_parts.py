"""Every engine's view splits into a part shared by all recipients and a part per seat: the server
encodes the shared part once per action, so the two must rebuild the view exactly, without overlap."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from parlour.games import GAMES

SETUPS = {
    "uno": [({"target_score": 0}, 2), ({"target_score": 0, "seven_swap": True, "stacking": True}, 4)],
    "cheat": [({}, 3), ({"decks": 2, "rank_sequence": "up_or_down"}, 5)],
    "dots": [({"width": 4, "height": 3}, 2), ({"width": 3, "height": 3, "max_players": 3}, 3)],
}


@pytest.mark.parametrize("name", sorted(GAMES))
@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), variant=st.integers(0, 1))
def test_view_is_public_part_plus_seat_part(name: str, seed: int, variant: int) -> None:
    game = GAMES[name]
    raw, players = SETUPS[name][variant]
    rng = random.Random(seed)
    state = game.setup(game.settings(raw), players, rng)
    for _ in range(300):
        public = game.public_view(state)
        for seat in [*range(players), None]:
            part = game.seat_view(state, seat)
            assert not public.keys() & part.keys()
            assert game.view(state, seat) == {**public, **part}
        if game.outcome(state) is not None:
            break
        options = [(s, a) for s in game.to_act(state) for a in game.legal_actions(state, s)]
        if not options:
            break
        seat, action = rng.choice(options)
        game.apply(state, seat, action)
