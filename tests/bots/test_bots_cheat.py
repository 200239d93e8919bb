"""Cheat hard bot: card counting, honest play, lying with the card it needs last, calling."""

from __future__ import annotations

import random
from typing import Any

from parlour.bots import make_bot
from parlour.bots.catalog import get_game

GAME = get_game("cheat")


def cid(rank: int, suit: int = 0) -> int:
    return rank * 4 + suit


def table(hands: list[list[int]], turn: int = 0) -> Any:
    """A 4-player, one-deck game with these hands; the first claim is an Ace."""
    state = GAME.setup(GAME.settings(None), len(hands), random.Random(1))
    state.hands = [list(h) for h in hands]
    state.turn = state.first = turn
    return state


def deal_to(bot: Any, state: Any) -> None:
    bot.observe([e.for_seat(bot.seat) for e in GAME.start_events(state)])


def step(state: Any, bots: list[Any], seat: int, action: dict[str, Any]) -> None:
    events = GAME.apply(state, seat, action)
    for b in bots:
        b.observe([e.for_seat(b.seat) for e in events])


def choose(bot: Any, state: Any) -> Any:
    return bot.choose(GAME.view(state, bot.seat), GAME.legal_actions(state, bot.seat))


def test_tells_the_truth_with_everything_it_holds_of_the_rank() -> None:
    state = table([[cid(0, 0), cid(0, 1), cid(5), cid(9)], [cid(1)], [cid(2)], [cid(3)]])
    bot = make_bot("cheat", "hard", 0, random.Random(0))
    assert choose(bot, state) == {"type": "play", "cards": [cid(0, 0), cid(0, 1)], "rank": 0}


def test_lies_with_the_card_it_will_need_last() -> None:
    # Four players, ascending from Ace: our next turns ask for 5, 9, K, 4, 8 (ranks 4, 8, 12, 3, 7).
    hand = [cid(4), cid(8), cid(12), cid(5), cid(3)]
    state = table([hand, [cid(1)], [cid(2)], [cid(6)]])
    bot = make_bot("cheat", "hard", 0, random.Random(0))
    assert choose(bot, state) == {"type": "play", "cards": [cid(5)], "rank": 0}


def test_calls_a_claim_its_own_hand_proves_impossible() -> None:
    hands = [[cid(0, s) for s in range(4)] + [cid(7)], [cid(5), cid(6)], [cid(9)], [cid(10)]]
    state = table(hands, turn=1)
    bots = [make_bot("cheat", "hard", s, random.Random(s)) for s in range(4)]
    for b in bots:
        deal_to(b, state)
    step(state, bots, 1, {"type": "play", "cards": [cid(5)], "rank": 0})
    assert bots[0].lie_odds(GAME.view(state, 0)) == 1.0
    assert choose(bots[0], state) == {"type": "call"}


def test_remembers_what_a_caught_liar_picked_up() -> None:
    hands = [[cid(1, 0), cid(9), cid(10)], [cid(5), cid(6), cid(11)], [cid(0, 1), cid(12)], [cid(3), cid(4)]]
    state = table(hands, turn=0)
    bots = [make_bot("cheat", "hard", s, random.Random(s)) for s in range(4)]
    for b in bots:
        deal_to(b, state)
    step(state, bots, 0, {"type": "play", "cards": [cid(9)], "rank": 0})  # our lie, pile: a 10
    step(state, bots, 2, {"type": "call"})  # caught: we pick the 10 back up
    step(state, bots, 1, {"type": "play", "cards": [cid(5)], "rank": 1})  # seat 1 lies: a 6 as a 2
    step(state, bots, 3, {"type": "call"})  # caught: seat 1 takes the 6 back
    assert cid(5) in bots[0].known[1]


def test_calls_a_last_card_and_stays_quiet_on_a_likely_truth() -> None:
    hands = [[cid(7), cid(8), cid(9)], [cid(0, 0)], [cid(0, 1), cid(0, 2), cid(4), cid(6)], [cid(10)]]
    state = table(hands, turn=1)
    bots = [make_bot("cheat", "hard", s, random.Random(s)) for s in range(4)]
    for b in bots:
        deal_to(b, state)
    step(state, bots, 1, {"type": "play", "cards": [cid(0, 0)], "rank": 0})  # their last card
    assert choose(bots[0], state) == {"type": "call"}
    # A single 2 claimed from a big hand, nothing against it: let it stand.
    hands = [[cid(7), cid(8), cid(9)], [cid(1, 0), *range(20, 32)], [cid(4)], [cid(10)]]
    state = table(hands, turn=1)
    state.rank = 0
    bot = make_bot("cheat", "hard", 0, random.Random(0))
    deal_to(bot, state)
    step(state, [bot], 1, {"type": "play", "cards": [cid(1, 0)], "rank": 1})
    assert choose(bot, state) is None
