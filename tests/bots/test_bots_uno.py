"""UNO hard bot: the habits the rules' strong-play notes ask for, on hand-made tables."""

from __future__ import annotations

import random
from typing import Any

from parlour.bots import make_bot
from parlour.bots.catalog import get_game
from parlour.games.uno import CARDS

GAME = get_game("uno")


def card(color: str, kind: str | int) -> int:
    """A card id by colour and value/type (the first copy)."""
    for c in CARDS:
        if c["color"] == color and (c["value"] == kind or c["type"] == kind):
            return c["id"]
    raise KeyError((color, kind))


def table(hands: list[list[int]], top: int, color: str | None = None, **settings: Any) -> Any:
    """A 2-player round with these hands and this top card, seat 0 to play."""
    state = GAME.setup(GAME.settings({"target_score": 0, **settings}), len(hands), random.Random(1))
    used = {c for h in hands for c in h} | {top}
    state.hands = [list(h) for h in hands]
    state.draw = [c for c in range(108) if c not in used]
    state.discard = [top]
    state.color = ["red", "yellow", "green", "blue"].index(color or CARDS[top]["color"])
    state.turn = 0
    return state


def choose(state: Any, seat: int = 0, bot: Any = None) -> Any:
    bot = bot or make_bot("uno", "hard", seat, random.Random(0))
    return bot.choose(GAME.view(state, seat), GAME.legal_actions(state, seat))


def test_keeps_the_wild_when_a_colour_card_will_do() -> None:
    state = table(
        [[card("wild", "wild"), card("green", 3), card("red", 5)], [card("blue", 1)] * 1], card("green", 7)
    )
    assert choose(state)["card"] == card("green", 3)


def test_names_its_most_held_colour() -> None:
    hand = [card("wild", "wild"), card("red", 3), card("red", 5), card("blue", 2)]
    state = table([hand, [card("yellow", 1), card("yellow", 2), card("yellow", 4)]], card("green", 7))
    action = choose(state)
    assert action["card"] == card("wild", "wild") and action["color"] == "red"


def test_hits_a_player_about_to_go_out_with_a_draw_card() -> None:
    hand = [card("green", "draw2"), card("green", 5), card("green", 6)]
    state = table([hand, [card("yellow", 1)]], card("green", 7))
    assert choose(state)["card"] == card("green", "draw2")


def test_always_calls_uno_as_it_plays_its_second_last_card() -> None:
    state = table([[card("green", 3), card("red", 5)], [card("blue", 1), card("blue", 2)]], card("green", 7))
    action = choose(state)
    assert action["card"] == card("green", 3) and action.get("uno") is True


def test_catches_a_player_who_forgot_to_call_uno() -> None:
    state = table([[card("green", 3), card("red", 5)], [card("blue", 1), card("blue", 2)]], card("blue", 7))
    state.turn = 1
    GAME.apply(state, 1, {"type": "play", "card": card("blue", 1)})  # no UNO call
    assert choose(state, seat=0) == {"type": "catch", "target": 1}


def test_jumps_in_with_an_identical_card() -> None:
    red5, red5b = (c["id"] for c in CARDS if c["color"] == "red" and c["value"] == 5)
    state = table(
        [[card("green", 3), red5b, card("blue", 4)], [card("blue", 1), card("blue", 2)]], red5, jump_in=True
    )
    state.turn = 1
    assert choose(state, seat=0)["card"] == red5b


def test_challenges_a_wild_draw_four_from_a_big_hand_and_accepts_from_a_small_one() -> None:
    # Seat 1 plays a Wild Draw Four on red while holding red: with nine cards left that is likely a bluff.
    big = [card("wild", "wild-draw4"), *[c["id"] for c in CARDS if c["color"] == "red"][1:10]]
    state = table([[card("green", 3), card("blue", 4)], big], card("red", 7))
    state.turn = 1
    bot = make_bot("uno", "hard", 0, random.Random(0))
    bot.observe([e.for_seat(0) for e in GAME.start_events(state)])
    bot.observe(
        [e.for_seat(0) for e in GAME.apply(state, 1, {"type": "play", "card": big[0], "color": "blue"})]
    )
    assert choose(state, bot=bot) == {"type": "challenge"}
    # With one card left it was most likely forced: accept.
    state = table(
        [[card("green", 3), card("blue", 4)], [card("wild", "wild-draw4"), card("blue", 9)]], card("red", 7)
    )
    state.turn = 1
    bot = make_bot("uno", "hard", 0, random.Random(0))
    bot.observe(
        [
            e.for_seat(0)
            for e in GAME.apply(
                state, 1, {"type": "play", "card": card("wild", "wild-draw4"), "color": "blue", "uno": True}
            )
        ]
    )
    assert choose(state, bot=bot) == {"type": "accept"}


def test_stacks_a_draw_two_when_stacking_is_on() -> None:
    hands = [
        [card("green", "draw2"), card("red", 5)],
        [card("yellow", "draw2"), card("blue", 2), card("blue", 3)],
    ]
    state = table(hands, card("yellow", 7), stacking=True)
    state.turn = 1
    GAME.apply(state, 1, {"type": "play", "card": card("yellow", "draw2")})
    assert choose(state)["card"] == card("green", "draw2")


def test_swaps_hands_with_the_shortest_hand_on_a_seven() -> None:
    hand = [card("green", 7), card("red", 5), card("red", 6), card("blue", 2), card("blue", 3)]
    state = GAME.setup(GAME.settings({"target_score": 0, "seven_swap": True}), 3, random.Random(1))
    state.hands = [
        hand,
        [card("yellow", 1), card("yellow", 2), card("yellow", 3), card("yellow", 4)],
        [card("yellow", 5)],
    ]
    state.discard, state.color, state.turn = [card("green", 1)], 2, 0
    action = choose(state)
    assert action["card"] == card("green", 7) and action["target"] == 2
