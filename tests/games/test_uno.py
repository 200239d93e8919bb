"""One focused test (or more) per rule in rules/uno.md and per engine-level item of the design
document's testing checklist. Situations are rigged exactly with ``rig`` or a scripted deck."""

from __future__ import annotations

import itertools
import random
from collections import Counter
from typing import Any

import pytest

from parlour.games.base import IllegalAction, InvalidSettings
from parlour.games.uno import CARDS, GAME, State

SHORT = {"r": "red", "y": "yellow", "g": "green", "b": "blue"}
SYMBOLS = {"S": "skip", "R": "reverse", "D": "draw2"}


def card(spec: str, copy: int = 0) -> int:
    """Card id from a short name: 'r5', 'gS' (skip), 'bR' (reverse), 'yD' (draw two), 'W', 'W4'."""
    if spec in ("W", "W4"):
        kind = "wild" if spec == "W" else "wild-draw4"
        matches = [c["id"] for c in CARDS if c["type"] == kind]
    else:
        color, rest = SHORT[spec[0]], spec[1:]
        matches = [
            c["id"]
            for c in CARDS
            if c["color"] == color
            and (c["type"] == SYMBOLS[rest] if rest in SYMBOLS else c["value"] == int(rest))
        ]
    return matches[copy]


def cards(*specs: str) -> list[int]:
    """Distinct ids for a list of names (repeats take the next copy)."""
    seen: Counter[str] = Counter()
    out = []
    for spec in specs:
        out.append(card(spec, seen[spec]))
        seen[spec] += 1
    return out


def rig(
    hands: list[list[int]],
    top: int,
    *,
    settings: dict[str, Any] | None = None,
    draw: list[int] = (),  # type: ignore[assignment]
    turn: int = 0,
    color: str | None = None,
    **fields: Any,
) -> State:
    """A state with exactly these hands and top card; ``draw`` comes off the pile first, in order.
    Every other card lies under them, so all 108 cards stay accounted for."""
    raw = {"target_score": 0, **(settings or {})}
    state = GAME.setup(GAME.settings(raw), len(hands), random.Random(0))
    placed = {c for hand in hands for c in hand} | {top} | set(draw)
    state.hands = [list(hand) for hand in hands]
    state.draw = [c for c in range(108) if c not in placed] + list(reversed(draw))
    state.discard = [top]
    state.color = ["red", "yellow", "green", "blue"].index(color or CARDS[top]["color"])
    state.turn = turn
    state.direction = 1
    for name, value in fields.items():
        setattr(state, name, value)
    return state


def refused(state: State, seat: int, action: dict[str, Any]) -> str:
    """Apply an action that must be refused; check nothing changed; return the code."""
    before = (
        [list(h) for h in state.hands],
        list(state.draw),
        list(state.discard),
        state.turn,
        state.color,
        state.stack,
    )
    with pytest.raises(IllegalAction) as info:
        GAME.apply(state, seat, action)
    after = (
        [list(h) for h in state.hands],
        list(state.draw),
        list(state.discard),
        state.turn,
        state.color,
        state.stack,
    )
    assert after == before
    return info.value.code


def types(events: list[Any]) -> list[str]:
    return [e.type for e in events]


class ScriptedRng(random.Random):
    """Deals a chosen deck: ``top`` lists the cards to come off the deck first, in order.
    ``dealer_cards`` are the cards turned to pick the dealer (seat order)."""

    def __init__(self, top: list[int], dealer_cards: list[int]) -> None:
        super().__init__(1)
        self._top = top
        self._turned = list(dealer_cards)

    def randrange(self, *args: Any, **kwargs: Any) -> int:  # type: ignore[override]
        if self._turned:
            return self._turned.pop(0)
        return super().randrange(*args, **kwargs)

    def shuffle(self, x: list[Any]) -> None:  # type: ignore[override]
        if len(x) == 108 and self._top:
            rest = [c for c in range(108) if c not in self._top]
            x[:] = rest + list(reversed(self._top))
            self._top = []
        else:
            super().shuffle(x)


def deal_script(players: int, hands: list[list[int]], after: list[int]) -> list[int]:
    """Deck order that deals ``hands`` (dealer 0, one card at a time from seat 1), then ``after``."""
    order = [*range(1, players), 0]
    return [hands[seat][i] for i in range(7) for seat in order] + after


def scripted_setup(players: int, hands: list[list[int]], after: list[int], **raw: Any) -> State:
    """Seat 0 turns a Wild (50 points) and deals; everyone else turns a low number."""
    low = cards(*["r1", "y1", "g1", "b1", "r2", "y2", "g2", "b2", "r3"][: players - 1])
    rng = ScriptedRng(deal_script(players, hands, after), [card("W"), *low])
    return GAME.setup(GAME.settings({"target_score": 0, **raw}), players, rng)


HANDS3 = [
    cards("r2", "r3", "r4", "r6", "r7", "r8", "r9"),
    cards("y2", "y3", "y4", "y6", "y7", "y8", "y9"),
    cards("g2", "g3", "g4", "g6", "g7", "g8", "g9"),
]


# ---------------------------------------------------------------- deck and deal


def test_deck_has_108_cards_with_the_official_composition() -> None:
    assert len(CARDS) == 108 and [c["id"] for c in CARDS] == list(range(108))
    per_color = Counter((c["color"], c["type"], c["value"]) for c in CARDS)
    for color in ("red", "yellow", "green", "blue"):
        assert per_color[(color, "number", 0)] == 1
        assert all(per_color[(color, "number", v)] == 2 for v in range(1, 10))
        assert all(per_color[(color, kind, None)] == 2 for kind in ("skip", "reverse", "draw2"))
    assert per_color[("wild", "wild", None)] == 4 and per_color[("wild", "wild-draw4", None)] == 4


def test_card_ids_are_ordered_by_colour_then_value() -> None:
    assert CARDS[0] == {"id": 0, "color": "red", "type": "number", "value": 0}
    assert CARDS[25]["color"] == "yellow" and CARDS[24]["type"] == "draw2"
    assert CARDS[100]["type"] == "wild" and CARDS[107]["type"] == "wild-draw4"


def test_highest_turned_card_deals_and_ties_turn_again() -> None:
    tie_seen = False
    for seed in range(300):
        state = GAME.setup(GAME.settings(None), 4, random.Random(seed))
        event = GAME.start_events(state)[0]
        assert event.type == "dealer_draw"
        turns = event.public["turns"]
        points = [[(t["seat"], _points(t["card"])) for t in rnd] for rnd in turns]
        for earlier, later in itertools.pairwise(points):
            best = max(p for _, p in earlier)
            assert sorted(s for s, p in earlier if p == best) == sorted(s for s, _ in later)
            tie_seen = True
        last = points[-1]
        best = max(p for _, p in last)
        assert [s for s, p in last if p == best] == [event.public["dealer"]] == [state.dealer]
    assert tie_seen


def _points(c: dict[str, Any]) -> int:
    if c["type"] == "number":
        return c["value"]
    return 50 if c["color"] == "wild" else 20


def test_cards_go_back_before_the_deal_and_seven_are_dealt_one_at_a_time_from_the_dealers_left() -> None:
    state = scripted_setup(3, HANDS3, cards("b5"))
    assert state.dealer == 0
    assert [sorted(h) for h in state.hands] == [sorted(h) for h in HANDS3]  # deal order respected
    assert len(state.draw) + 21 + 1 == 108
    assert state.discard == [card("b5")] and state.turn == 1  # play starts left of the dealer
    deal = next(e for e in GAME.start_events(state) if e.type == "deal")
    assert deal.public["counts"] == [7, 7, 7]
    assert deal.for_seat(1)["hand"] == [CARDS[c] for c in sorted(HANDS3[1])]
    assert "hand" not in deal.for_seat(None)


def test_first_discard_wild_goes_back_and_another_is_turned() -> None:
    state = scripted_setup(3, HANDS3, cards("W4", "b5"))
    assert state.discard == [card("b5")] and state.color == 3
    assert card("W4") in state.draw


def test_first_discard_skip_skips_the_first_player() -> None:
    state = scripted_setup(3, HANDS3, cards("bS"))
    assert state.turn == 2
    assert "skip" in types(GAME.start_events(state))


def test_first_discard_reverse_makes_the_dealer_play_first() -> None:
    state = scripted_setup(3, HANDS3, cards("bR"))
    assert state.turn == 0 and state.direction == -1


def test_first_discard_draw_two_makes_the_first_player_draw_and_skips_them() -> None:
    state = scripted_setup(3, HANDS3, cards("bD"))
    assert len(state.hands[1]) == 9 and state.turn == 2
    draw = next(e for e in GAME.start_events(state) if e.type == "draw")
    assert len(draw.for_seat(1)["cards"]) == 2 and "cards" not in draw.for_seat(0)


def test_two_and_three_plus_players_set_up_and_bad_counts_are_refused() -> None:
    for players in (2, 3, 10):
        state = GAME.setup(GAME.settings(None), players, random.Random(players))
        assert sum(len(h) for h in state.hands) in (7 * players, 7 * players + 2)
    for players in (1, 11):
        with pytest.raises(InvalidSettings):
            GAME.setup(GAME.settings(None), players, random.Random(0))
    with pytest.raises(InvalidSettings):
        GAME.setup(GAME.settings({"max_players": 4}), 5, random.Random(0))


# ---------------------------------------------------------------- a turn


def test_play_matching_colour() -> None:
    state = rig([cards("r5", "b1"), cards("g1", "g2")], card("r3"))
    events = GAME.apply(state, 0, {"type": "play", "card": card("r5")})
    assert state.discard[-1] == card("r5") and state.turn == 1
    assert types(events) == ["play", "turn"]


def test_play_matching_number() -> None:
    state = rig([cards("b3", "y1"), cards("g1", "g2")], card("r3"))
    GAME.apply(state, 0, {"type": "play", "card": card("b3")})
    assert state.color == 3


def test_play_matching_symbol() -> None:
    state = rig([cards("bS", "y1"), cards("g1", "g2"), cards("g3")], card("rS"))
    GAME.apply(state, 0, {"type": "play", "card": card("bS")})
    assert state.turn == 2


def test_unmatched_card_missing_card_and_wrong_turn_are_refused() -> None:
    state = rig([cards("b4", "y1"), cards("g1", "r2")], card("r3"))
    assert refused(state, 0, {"type": "play", "card": card("b4")}) == "card_not_playable"
    assert refused(state, 0, {"type": "play", "card": card("r9")}) == "card_not_in_hand"
    assert refused(state, 1, {"type": "play", "card": card("r2")}) == "not_your_turn"
    assert refused(state, 1, {"type": "draw"}) == "not_your_turn"


def test_wild_names_a_colour_and_is_always_playable() -> None:
    state = rig([cards("W", "y1"), cards("g1", "g2")], card("r3"))
    assert refused(state, 0, {"type": "play", "card": card("W")}) == "color_required"
    events = GAME.apply(state, 0, {"type": "play", "card": card("W"), "color": "green"})
    assert state.color == 2 and events[0].public["color"] == "green"
    GAME.apply(state, 1, {"type": "play", "card": card("g1")})  # green now matches


def test_voluntary_draw_is_allowed_with_a_playable_card_and_the_drawn_card_may_be_played() -> None:
    state = rig([cards("r5", "b1"), cards("g1", "g2")], card("r3"), draw=cards("r7"))
    assert {"type": "draw"} in GAME.legal_actions(state, 0)
    events = GAME.apply(state, 0, {"type": "draw"})
    assert state.turn == 0 and state.drawn == card("r7")
    assert events[0].for_seat(0)["cards"] == [CARDS[card("r7")]] and "cards" not in events[0].for_seat(1)
    assert refused(state, 0, {"type": "play", "card": card("r5")}) == "must_play_drawn_card_or_pass"
    assert refused(state, 0, {"type": "draw"}) == "already_drawn"
    assert GAME.legal_actions(state, 0) == [{"type": "play", "card": card("r7")}, {"type": "pass"}]
    GAME.apply(state, 0, {"type": "play", "card": card("r7")})
    assert state.discard[-1] == card("r7") and state.turn == 1


def test_drawn_card_may_be_kept_with_a_pass() -> None:
    state = rig([cards("r5", "b1"), cards("g1", "g2")], card("r3"), draw=cards("r7"))
    GAME.apply(state, 0, {"type": "draw"})
    assert types(GAME.apply(state, 0, {"type": "pass"})) == ["pass", "turn"]
    assert state.turn == 1 and card("r7") in state.hands[0]
    assert refused(state, 1, {"type": "pass"}) == "cannot_pass"


def test_unplayable_drawn_card_ends_the_turn() -> None:
    state = rig([cards("b1", "b2"), cards("g1", "g2")], card("r3"), draw=cards("y7"))
    GAME.apply(state, 0, {"type": "draw"})
    assert state.turn == 1 and len(state.hands[0]) == 3 and state.drawn == -1


def test_draw_until_playable_keeps_drawing_then_play_or_pass() -> None:
    state = rig(
        [cards("b1", "b2"), cards("g1", "g2")],
        card("r3"),
        draw=cards("y7", "g8", "r9", "y9"),
        settings={"draw_until_playable": True},
    )
    events = GAME.apply(state, 0, {"type": "draw"})
    assert events[0].public["count"] == 3 and state.drawn == card("r9") and state.turn == 0
    GAME.apply(state, 0, {"type": "play", "card": card("r9")})
    assert state.turn == 1


def test_skip_makes_the_next_player_lose_their_turn_and_skips_chain() -> None:
    state = rig([cards("rS", "b1"), cards("bS", "g2"), cards("g3", "y3")], card("r3"))
    GAME.apply(state, 0, {"type": "play", "card": card("rS")})
    assert state.turn == 2
    state = rig([cards("rS", "b1"), cards("b2"), [card("rS", 1), card("y3")]], card("r3"))
    GAME.apply(state, 0, {"type": "play", "card": card("rS")})
    GAME.apply(state, 2, {"type": "play", "card": card("rS", 1)})
    assert state.turn == 1  # a second Skip in a row skips seat 0


def test_multiple_skips_in_a_row_with_two_players_keep_the_turn() -> None:
    state = rig([cards("rS", "gS", "g4", "b1"), cards("y2", "y5")], card("r3"))
    GAME.apply(state, 0, {"type": "play", "card": card("rS")})
    assert state.turn == 0
    GAME.apply(state, 0, {"type": "play", "card": card("gS")})
    assert state.turn == 0
    GAME.apply(state, 0, {"type": "play", "card": card("g4")})
    assert state.turn == 1


def test_reverse_flips_direction() -> None:
    state = rig([cards("rR", "b1"), cards("g1", "g2"), cards("y1", "y2")], card("r3"))
    GAME.apply(state, 0, {"type": "play", "card": card("rR")})
    assert state.direction == -1 and state.turn == 2


def test_reverse_with_two_players_acts_as_a_skip() -> None:
    state = rig([cards("rR", "b1"), cards("g1", "g2")], card("r3"))
    GAME.apply(state, 0, {"type": "play", "card": card("rR")})
    assert state.turn == 0


def test_draw_two_makes_the_next_player_draw_two_and_lose_the_turn() -> None:
    state = rig([cards("rD", "b1"), cards("g1", "g2"), cards("y1", "y2")], card("r3"))
    events = GAME.apply(state, 0, {"type": "play", "card": card("rD")})
    assert len(state.hands[1]) == 4 and state.turn == 2
    assert "skip" in types(events)


def test_draw_two_with_fewer_than_two_cards_left_reshuffles_the_discards() -> None:
    state = rig([cards("rD", "b1"), cards("g1"), cards("y1")], card("r3"))
    state.discard = [c for c in state.draw[:-1]] + [card("r3")]
    state.draw = state.draw[-1:]
    events = GAME.apply(state, 0, {"type": "play", "card": card("rD")})
    assert len(state.hands[1]) == 3 and "reshuffle" in types(events)
    assert state.discard == [card("rD")]


def test_empty_pile_with_nothing_to_reshuffle_just_ends_the_turn() -> None:
    everything = [c for c in range(108) if c not in (card("b1"), card("g1"), card("r3"))]
    state = rig([[card("b1"), *everything[:50]], [card("g1"), *everything[50:]]], card("r3"))
    assert state.draw == []
    events = GAME.apply(state, 0, {"type": "draw"})
    assert events[0].public["count"] == 0 and state.turn == 1


# ---------------------------------------------------------------- Wild Draw Four


def test_wild_draw_four_bluff_challenged_guilty_player_draws_four_and_challenger_plays() -> None:
    state = rig([cards("W4", "r5", "b1"), cards("g1", "g2"), cards("y1")], card("r3"))
    GAME.apply(state, 0, {"type": "play", "card": card("W4"), "color": "green"})
    assert state.turn == 1 and GAME.legal_actions(state, 1) == [{"type": "challenge"}, {"type": "accept"}]
    assert refused(state, 2, {"type": "challenge"}) == "not_your_turn"  # only the next player
    assert refused(state, 1, {"type": "draw"}) == "must_challenge_or_accept"
    assert refused(state, 1, {"type": "play", "card": card("g1")}) == "must_challenge_or_accept"
    events = GAME.apply(state, 1, {"type": "challenge"})
    assert events[0].public["guilty"] is True
    assert len(state.hands[0]) == 6 and len(state.hands[1]) == 2
    assert state.turn == 1 and state.color == 2  # named colour stands; normal turn
    GAME.apply(state, 1, {"type": "play", "card": card("g1")})


def test_wild_draw_four_innocent_challenger_draws_six_and_loses_the_turn() -> None:
    # numbers, symbols and Wilds of other colours do not make the play illegal
    state = rig([cards("W4", "b3", "W", "bS"), cards("g1", "g2"), cards("y1")], card("r3"))
    GAME.apply(state, 0, {"type": "play", "card": card("W4"), "color": "blue"})
    GAME.apply(state, 1, {"type": "challenge"})
    assert len(state.hands[1]) == 8 and state.turn == 2


def test_wild_draw_four_accept_draws_four_and_loses_the_turn() -> None:
    state = rig([cards("W4", "b3"), cards("g1", "g2"), cards("y1")], card("r3"))
    GAME.apply(state, 0, {"type": "play", "card": card("W4"), "color": "blue"})
    GAME.apply(state, 1, {"type": "accept"})
    assert len(state.hands[1]) == 6 and state.turn == 2


def test_without_the_challenge_rule_an_illegal_wild_draw_four_is_refused() -> None:
    off = {"challenge_wild_draw4": False}
    state = rig([cards("W4", "r5"), cards("g1", "g2"), cards("y1")], card("r3"), settings=off)
    assert refused(state, 0, {"type": "play", "card": card("W4"), "color": "blue"}) == "illegal_wild_draw4"
    assert all(a.get("card") != card("W4") for a in GAME.legal_actions(state, 0))
    state = rig([cards("W4", "b5"), cards("g1", "g2"), cards("y1")], card("r3"), settings=off)
    GAME.apply(state, 0, {"type": "play", "card": card("W4"), "color": "blue"})
    assert len(state.hands[1]) == 6 and state.turn == 2  # no decision: draw four, lose the turn


def test_nothing_to_challenge_or_accept() -> None:
    state = rig([cards("r5", "b1"), cards("g1")], card("r3"))
    assert refused(state, 0, {"type": "challenge"}) == "nothing_to_challenge"
    assert refused(state, 0, {"type": "accept"}) == "nothing_to_accept"


# ---------------------------------------------------------------- UNO call and catch


def test_calling_uno_as_you_play_makes_you_safe() -> None:
    state = rig([cards("r5", "b1"), cards("g1", "g2"), cards("y1")], card("r3"))
    assert {"type": "play", "card": card("r5"), "uno": True} in GAME.legal_actions(state, 0)
    events = GAME.apply(state, 0, {"type": "play", "card": card("r5"), "uno": True})
    assert events[0].public["uno"] is True and state.uno_called[0]
    assert refused(state, 2, {"type": "catch", "target": 0}) == "cannot_catch"


def test_missed_uno_is_caught_by_any_other_player_for_the_configured_penalty() -> None:
    state = rig(
        [cards("r5", "b1"), cards("g1", "g2"), cards("y1", "y2")], card("r3"), settings={"uno_penalty": 4}
    )
    GAME.apply(state, 0, {"type": "play", "card": card("r5")})
    assert {"type": "catch", "target": 0} in GAME.legal_actions(state, 2)  # out of turn
    assert refused(state, 0, {"type": "catch", "target": 0}) == "cannot_catch"
    events = GAME.apply(state, 2, {"type": "catch", "target": 0})
    assert types(events) == ["uno_caught", "draw"] and len(state.hands[0]) == 5
    assert events[1].for_seat(0)["cards"] and "cards" not in events[1].for_seat(2)
    assert state.turn == 1


def test_a_catch_when_nobody_is_exposed_is_refused_whatever_the_target() -> None:
    """-1 means "nobody exposed": a catch naming it must not hit the last seat (``hands[-1]``)."""
    state = rig([cards("r5", "b1"), cards("g1", "g2"), cards("y1", "y2")], card("r3"))
    for target in (-1, -2, 3, 0, 2):
        assert refused(state, 1, {"type": "catch", "target": target}) == "cannot_catch"
    assert [len(h) for h in state.hands] == [2, 2, 2]


def test_calling_uno_right_after_playing_makes_you_safe() -> None:
    state = rig([cards("r5", "b1"), cards("g1", "g2"), cards("y1")], card("r3"))
    GAME.apply(state, 0, {"type": "play", "card": card("r5")})
    assert {"type": "call_uno"} in GAME.legal_actions(state, 0)
    GAME.apply(state, 0, {"type": "call_uno"})
    assert refused(state, 1, {"type": "catch", "target": 0}) == "cannot_catch"
    assert refused(state, 0, {"type": "call_uno"}) == "cannot_call_uno"


def test_catch_window_closes_when_the_next_player_plays_or_draws() -> None:
    for action in ({"type": "play", "card": card("g1")}, {"type": "draw"}):
        state = rig([cards("r5", "b1"), cards("r1", "g2"), cards("y1")], card("r3"))
        GAME.apply(state, 0, {"type": "play", "card": card("r5")})
        GAME.apply(state, 1, action if action["type"] == "draw" else {"type": "play", "card": card("r1")})
        assert refused(state, 2, {"type": "catch", "target": 0}) == "cannot_catch"


def test_call_uno_when_not_down_to_one_card_is_refused() -> None:
    state = rig([cards("r5", "b1"), cards("g1", "g2")], card("r3"))
    assert refused(state, 0, {"type": "call_uno"}) == "cannot_call_uno"


# ---------------------------------------------------------------- winning and scoring


def test_emptying_the_hand_wins_and_scores_the_other_hands() -> None:
    hands = [cards("r5"), cards("g1", "bS", "W"), cards("y9", "bD", "W4")]
    state = rig(hands, card("r3"), uno_called=[True, False, False])
    events = GAME.apply(state, 0, {"type": "play", "card": card("r5")})
    assert "round_over" in types(events) and "game_over" in types(events)
    assert state.scores == [1 + 20 + 50 + 9 + 20 + 50, 0, 0]
    outcome = GAME.outcome(state)
    assert outcome is not None and outcome.winners == [0] and outcome.scores[0] == 150
    # Where the points came from, hand by hand, and the log's line says so.
    (ended,) = [e for e in events if e.type == "round_over"]
    assert ended.public["held"] == [0, 1 + 20 + 50, 9 + 20 + 50] and ended.public["points"] == 150
    line = GAME.describe_event(ended.for_seat(None), ["Ada", "Bo", "Cy"])
    assert line == "Ada won round 1 (+150 points: Bo 71, Cy 79)"
    assert GAME.to_act(state) == [] and GAME.legal_actions(state, 1) == []
    assert refused(state, 1, {"type": "draw"}) == "game_over"


def test_last_card_draw_two_still_makes_the_next_player_draw_and_it_scores() -> None:
    state = rig([cards("rD"), cards("g1")], card("r3"), draw=cards("b7", "y8"), uno_called=[True, False])
    GAME.apply(state, 0, {"type": "play", "card": card("rD")})
    assert sorted(state.hands[1]) == sorted(cards("g1", "b7", "y8"))
    assert state.scores[0] == 1 + 7 + 8


def test_last_card_wild_draw_four_makes_the_next_player_draw_four() -> None:
    state = rig([cards("W4"), cards("g1"), cards("y1")], card("r3"), uno_called=[True, False, False])
    events = GAME.apply(state, 0, {"type": "play", "card": card("W4"), "color": "red"})
    assert len(state.hands[1]) == 5 and GAME.outcome(state) is not None
    # The log names no colour for a last card (the round is over), and says why Bo drew.
    lines = [GAME.describe_event(e.for_seat(None), ["Ada", "Bo", "Cy"]) for e in events]
    assert lines[:2] == ["Ada played Wild Draw Four", "Bo drew 4 cards (for the winning card)"]


def test_match_mode_starts_the_next_round_in_the_same_apply_and_rotates_the_dealer() -> None:
    state = rig([cards("r5"), cards("g1", "g2")], card("r3"), settings={"target_score": 500}, dealer=0)
    events = GAME.apply(state, 0, {"type": "play", "card": card("r5")})
    names = types(events)
    assert names.index("round_over") < names.index("round_started") < names.index("deal")
    assert GAME.outcome(state) is None and state.round == 2 and state.dealer == 1
    assert state.scores == [3, 0] and [len(h) for h in state.hands] in ([7, 7], [7, 9])
    assert sorted([c for h in state.hands for c in h] + state.draw + state.discard) == list(range(108))


def _at_the_break(players: int = 3) -> State:
    """A match with a 10 s pause between rounds, its first round just won by seat 0 (dealer 0)."""
    hands = [cards("r5"), cards("g1", "g2"), cards("b4", "y6", "W")][:players]
    state = rig(hands, card("r3"), settings={"target_score": 500, "round_break": 10}, dealer=0)
    events = GAME.apply(state, 0, {"type": "play", "card": card("r5")})
    assert types(events) == ["play", "round_over", "round_break"]
    assert events[-1].public == {"round": 2, "dealer": 1}
    assert GAME.describe_event(events[-1].for_seat(None), ["Ada", "Bo", "Cy"]) == "Bo deals round 2 next"
    return state


def test_with_a_pause_between_rounds_the_table_rests_on_the_last_card_until_the_next_dealer_deals() -> None:
    state = _at_the_break()
    # The round's end stands: its last card on top, the hands as they were, nobody on turn.
    view = GAME.view(state, 2)
    assert view["top"] == CARDS[card("r5")] and view["counts"] == [0, 2, 3] and view["round"] == 1
    assert view["turn"] is None and view["dealing"] == 1 and view["legal"] == []
    assert GAME.to_act(state) == [1] and GAME.pause(state) == 10
    assert GAME.legal_actions(state, 1) == [{"type": "deal"}]
    # Only the dealer's deal ends it: anything else, or anyone else, is refused.
    assert refused(state, 1, {"type": "draw"}) == "between_rounds"
    assert refused(state, 2, {"type": "play", "card": card("b4")}) == "between_rounds"
    assert refused(state, 2, {"type": "deal"}) == "not_your_turn"
    events = GAME.apply(state, 1, GAME.parse_action({"type": "deal"}))
    assert types(events)[:2] == ["round_started", "deal"] and events[0].public == {"round": 2, "dealer": 1}
    assert state.round == 2 and not state.dealing and GAME.pause(state) == 0
    assert [len(h) for h in state.hands] in ([7, 7, 7], [7, 7, 9], [9, 7, 7])  # a first Draw Two hits seat 2
    assert sorted([c for h in state.hands for c in h] + state.draw + state.discard) == list(range(108))


def test_a_pause_that_runs_out_deals_the_next_round_and_nobody_ran_out_of_time() -> None:
    state = _at_the_break()
    events = GAME.on_timeout(state, 1)
    assert "timeout" not in types(events) and types(events)[:2] == ["round_started", "deal"]
    assert state.round == 2 and state.dealer == 1 and GAME.view(state, None)["turn"] is not None


def test_a_dealer_who_leaves_in_the_pause_passes_the_deal_to_their_left() -> None:
    state = _at_the_break()
    events = GAME.on_leave(state, 1)
    assert types(events) == ["player_left", "round_break"] and events[-1].public == {"round": 2, "dealer": 2}
    assert GAME.to_act(state) == [2] and GAME.legal_actions(state, 2) == [{"type": "deal"}]
    assert GAME.view(state, None)["dealing"] == 2
    GAME.on_leave(state, 0)  # someone else leaving leaves one player: they win the match
    outcome = GAME.outcome(state)
    assert outcome is not None and outcome.winners == [2] and GAME.pause(state) == 0


def test_cards_are_dealt_only_between_rounds_and_a_match_with_no_pause_deals_at_once() -> None:
    state = rig([cards("r5", "r6"), cards("g1", "g2")], card("r3"))
    assert refused(state, 0, {"type": "deal"}) == "not_between_rounds"
    assert GAME.settings({}).round_break == 0  # what a room that leaves it out (and every older game) has
    initial = [(s.key, s.initial, s.needs) for s in GAME.settings_schema if s.initial is not None]
    assert initial == [("round_break", 10, "target_score")]  # a game of one round has no pause to set


def test_match_ends_when_a_player_reaches_the_target() -> None:
    state = rig([cards("r5"), cards("W", "W4")], card("r3"), settings={"target_score": 100}, scores=[10, 90])
    GAME.apply(state, 0, {"type": "play", "card": card("r5")})
    outcome = GAME.outcome(state)
    assert outcome is not None and outcome.winners == [0] and outcome.scores == {0: 110, 1: 90}
    # The finished match's view lists its rounds (this rigged one: only the last was played here).
    assert GAME.view(state, None)["rounds"] == [{"winner": 0, "points": 100}]


# ---------------------------------------------------------------- house rules


def test_stacking_draw_two_on_draw_two_then_the_first_non_stacker_draws_the_total() -> None:
    state = rig(
        [cards("rD", "b1"), cards("gD", "g2", "g3"), cards("y1", "y2")],
        card("r3"),
        settings={"stacking": True},
    )
    GAME.apply(state, 0, {"type": "play", "card": card("rD")})
    assert state.stack == 2 and state.turn == 1
    assert refused(state, 1, {"type": "play", "card": card("g2")}) == "must_stack_or_draw"
    GAME.apply(state, 1, {"type": "play", "card": card("gD")})
    assert GAME.legal_actions(state, 2) == [{"type": "draw"}]
    GAME.apply(state, 2, {"type": "draw"})
    assert len(state.hands[2]) == 6 and state.turn == 0 and state.stack == 0


def test_a_penalty_nobody_stacked_on_is_drawn_as_its_card_not_as_a_stack() -> None:
    """Stacking on, a single Draw Two the next player drew was logged "(the stacked penalty)"."""
    for stacked in (False, True):
        state = rig(
            [cards("rD", "b1"), cards("gD", "g2", "g3"), cards("y1", "y2")],
            card("r3"),
            settings={"stacking": True},
        )
        GAME.apply(state, 0, {"type": "play", "card": card("rD")})
        if stacked:
            GAME.apply(state, 1, {"type": "play", "card": card("gD")})
        drawer = 2 if stacked else 1
        (draw,) = [e for e in GAME.apply(state, drawer, {"type": "draw"}) if e.type == "draw"]
        assert draw.public["reason"] == ("stack" if stacked else "draw2")
        line = GAME.describe_event(draw.for_seat(None), ["Ada", "Bo", "Cy"])
        assert line is not None and line.endswith("(the stacked penalty)" if stacked else "(Draw Two)")


def test_stacking_does_not_mix_draw_two_and_wild_draw_four() -> None:
    on = {"stacking": True}
    state = rig([cards("rD", "b1"), cards("W4", "g2"), cards("y1")], card("r3"), settings=on)
    GAME.apply(state, 0, {"type": "play", "card": card("rD")})
    assert refused(state, 1, {"type": "play", "card": card("W4"), "color": "red"}) == "must_stack_or_draw"
    state = rig([cards("W4", "b1"), cards("W4", "gD"), cards("y1")], card("r3"), settings=on)
    state.hands[1] = [card("W4", 1), card("gD")]
    GAME.apply(state, 0, {"type": "play", "card": card("W4"), "color": "green"})
    assert refused(state, 1, {"type": "play", "card": card("gD")}) == "must_challenge_or_accept"
    GAME.apply(state, 1, {"type": "play", "card": card("W4", 1), "color": "blue"})
    GAME.apply(state, 2, {"type": "accept"})
    assert len(state.hands[2]) == 9


def test_without_stacking_draw_two_cannot_be_passed_on() -> None:
    state = rig([cards("rD", "b1"), cards("gD", "g2"), cards("y1")], card("r3"))
    GAME.apply(state, 0, {"type": "play", "card": card("rD")})
    assert len(state.hands[1]) == 4 and state.turn == 2


def test_jump_in_with_an_identical_card_out_of_turn_and_play_continues_from_there() -> None:
    on = {"jump_in": True}
    state = rig(
        [cards("r5", "b1"), cards("g1", "g2"), cards("r5", "y2"), cards("y3")], card("r3"), settings=on
    )
    state.hands[2] = [card("r5", 1), card("y2"), card("y4")]
    GAME.apply(state, 0, {"type": "play", "card": card("r5"), "uno": True})
    assert GAME.legal_actions(state, 2) == [{"type": "play", "card": card("r5", 1)}]
    events = GAME.apply(state, 2, {"type": "play", "card": card("r5", 1)})
    assert events[0].public["jump_in"] is True and state.turn == 3


def test_jump_in_needs_an_identical_non_wild_card_and_the_house_rule() -> None:
    state = rig([cards("r5", "b1"), cards("g1"), cards("b5", "W")], card("r3"), settings={"jump_in": True})
    GAME.apply(state, 0, {"type": "play", "card": card("r5")})
    assert refused(state, 2, {"type": "play", "card": card("b5")}) == "not_your_turn"
    state = rig([cards("r5", "b1"), cards("g1"), cards("r5")], card("r3"))
    state.hands[2] = [card("r5", 1)]
    GAME.apply(state, 0, {"type": "play", "card": card("r5")})
    assert refused(state, 2, {"type": "play", "card": card("r5", 1)}) == "not_your_turn"


def test_seven_swap_trades_hands_with_the_named_player_privately() -> None:
    on = {"seven_swap": True}
    state = rig([cards("r7", "b1", "b2"), cards("g1", "g2"), cards("y1")], card("r3"), settings=on)
    assert refused(state, 0, {"type": "play", "card": card("r7")}) == "bad_target"
    assert refused(state, 0, {"type": "play", "card": card("r7"), "target": 0}) == "bad_target"
    assert {"type": "play", "card": card("r7"), "target": 2} in GAME.legal_actions(state, 0)
    events = GAME.apply(state, 0, {"type": "play", "card": card("r7"), "target": 2})
    assert state.hands[0] == cards("y1") and sorted(state.hands[2]) == sorted(cards("b1", "b2"))
    swap = next(e for e in events if e.type == "swap")
    assert "hand" not in swap.for_seat(1) and swap.for_seat(2)["hand"] == [
        CARDS[c] for c in cards("b1", "b2")
    ]


def test_seven_swap_does_not_happen_with_the_last_card() -> None:
    on = {"seven_swap": True}
    state = rig([cards("r7"), cards("g1", "g2")], card("r3"), settings=on, uno_called=[True, False])
    GAME.apply(state, 0, {"type": "play", "card": card("r7")})
    assert GAME.outcome(state) is not None and state.hands[1] == cards("g1", "g2")


def test_zero_rotate_passes_every_hand_in_the_current_direction() -> None:
    on = {"zero_rotate": True}
    state = rig([cards("r0", "b1"), cards("g1", "g2"), cards("y1", "y2", "y3")], card("r3"), settings=on)
    GAME.apply(state, 0, {"type": "play", "card": card("r0")})
    assert state.hands == [cards("y1", "y2", "y3"), cards("b1"), cards("g1", "g2")]
    state = rig([cards("r0", "b1"), cards("g1", "g2"), cards("y1")], card("r3"), settings=on, direction=-1)
    GAME.apply(state, 0, {"type": "play", "card": card("r0")})
    assert state.hands == [cards("g1", "g2"), cards("y1"), cards("b1")]


def test_zero_rotate_does_not_happen_with_the_last_card() -> None:
    on = {"zero_rotate": True}
    state = rig([cards("r0"), cards("g1", "g2")], card("r3"), settings=on, uno_called=[True, False])
    GAME.apply(state, 0, {"type": "play", "card": card("r0")})
    assert GAME.outcome(state) is not None and state.hands[1] == cards("g1", "g2")


def test_forced_play_refuses_a_draw_while_holding_a_playable_card() -> None:
    on = {"forced_play": True}
    state = rig([cards("r5", "b1"), cards("g1")], card("r3"), settings=on)
    assert refused(state, 0, {"type": "draw"}) == "forced_play"
    assert {"type": "draw"} not in GAME.legal_actions(state, 0)
    state = rig([cards("b5", "b1"), cards("g1")], card("r3"), settings=on, draw=cards("r8"))
    GAME.apply(state, 0, {"type": "draw"})
    assert refused(state, 0, {"type": "pass"}) == "forced_play"
    GAME.apply(state, 0, {"type": "play", "card": card("r8")})


# ---------------------------------------------------------------- leaving and the clock


def test_leaving_shuffles_the_hand_into_the_pile_and_passes_the_turn() -> None:
    state = rig([cards("r5", "b1"), cards("r1", "g2"), cards("y1")], card("r3"))
    pile = len(state.draw)
    events = GAME.on_leave(state, 0)
    assert types(events) == ["player_left", "turn"] and state.turn == 1
    assert state.hands[0] == [] and len(state.draw) == pile + 2
    assert GAME.legal_actions(state, 0) == [] and refused(state, 0, {"type": "draw"}) == "not_seated"
    GAME.apply(state, 1, {"type": "play", "card": card("r1"), "uno": True})
    assert state.turn == 2
    GAME.apply(state, 2, {"type": "draw"})
    assert state.turn == 1  # the empty seat is skipped


def test_the_last_player_left_wins() -> None:
    state = rig([cards("r5", "b1"), cards("g1", "g2")], card("r3"))
    events = GAME.on_leave(state, 1)
    outcome = GAME.outcome(state)
    assert "game_over" in types(events) and outcome is not None
    assert outcome.winners == [0] and outcome.reason == "opponents_left"


def test_timeout_draws_one_card_and_passes_the_turn() -> None:
    state = rig([cards("r5", "b1"), cards("g1")], card("r3"), draw=cards("r9"))
    events = GAME.on_timeout(state, 0)
    assert types(events)[:2] == ["timeout", "draw"] and len(state.hands[0]) == 3 and state.turn == 1
    with pytest.raises(IllegalAction):
        GAME.on_timeout(state, 0)


def test_timeout_accepts_a_pending_wild_draw_four_and_takes_a_pending_stack() -> None:
    state = rig([cards("W4", "b1"), cards("g1"), cards("y1")], card("r3"))
    GAME.apply(state, 0, {"type": "play", "card": card("W4"), "color": "blue"})
    GAME.on_timeout(state, 1)
    assert len(state.hands[1]) == 5 and state.turn == 2
    state = rig([cards("rD", "b1"), cards("g1"), cards("y1")], card("r3"), settings={"stacking": True})
    GAME.apply(state, 0, {"type": "play", "card": card("rD")})
    GAME.on_timeout(state, 1)
    assert len(state.hands[1]) == 3 and state.turn == 2


def test_timeout_after_drawing_just_passes() -> None:
    state = rig([cards("b5", "b1"), cards("g1")], card("r3"), draw=cards("r8"))
    GAME.apply(state, 0, {"type": "draw"})
    GAME.on_timeout(state, 0)
    assert len(state.hands[0]) == 3 and state.turn == 1


# ---------------------------------------------------------------- settings, wire, views


def test_settings_defaults_and_validation() -> None:
    defaults = GAME.settings(None)
    assert defaults.challenge_wild_draw4 and not defaults.stacking and defaults.uno_penalty == 2
    assert defaults.target_score == 500 and GAME.default_capacity(defaults) == 10
    assert GAME.default_capacity(GAME.settings({"max_players": 4})) == 4
    assert GAME.settings({"turn_timer": 10, "jump_in": True}).jump_in
    for bad in (
        {"stackingg": True},
        {"stacking": 1},
        {"uno_penalty": "2"},
        {"uno_penalty": True},
        {"turn_timer": 5},
        {"turn_timer": 301},
        {"max_players": 11},
        {"max_players": 1},
        {"target_score": -1},
        [],
    ):
        with pytest.raises(InvalidSettings) as info:
            GAME.settings(bad)  # type: ignore[arg-type]
        assert info.value.message


def test_parse_action_normalises_and_refuses_bad_shapes() -> None:
    raw = {"type": "play", "card": 100, "color": "red", "uno": True, "id": 7}
    assert GAME.parse_action(raw) == {"type": "play", "card": 100, "color": "red", "uno": True}
    assert GAME.parse_action({"type": "catch", "target": 2}) == {"type": "catch", "target": 2}
    assert GAME.parse_action({"type": "draw", "x": 1}) == {"type": "draw"}
    for bad in (
        {"type": "play"},
        {"type": "play", "card": 108},
        {"type": "play", "card": True},
        {"type": "play", "card": 3, "color": "purple"},
        {"type": "play", "card": 3, "target": "1"},
        {"type": "play", "card": 3, "uno": 1},
        {"type": "catch"},
        {"type": "fly"},
        {},
        "draw",
    ):
        with pytest.raises(IllegalAction) as info:
            GAME.parse_action(bad)  # type: ignore[arg-type]
        assert info.value.code == "bad_action"


def test_apply_refuses_malformed_actions_and_unseated_players() -> None:
    state = rig([cards("r5", "b1"), cards("g1")], card("r3"))
    assert refused(state, 0, {"type": "fly"}) == "bad_action"
    assert refused(state, 0, "draw") == "bad_action"  # type: ignore[arg-type]
    assert refused(state, 5, {"type": "draw"}) == "not_seated"
    assert refused(state, 0, {"type": "play", "card": "x"}) == "card_not_in_hand"


def test_view_shows_own_sorted_hand_counts_and_pending_state_but_no_hidden_cards() -> None:
    state = rig([cards("W", "b1", "r5", "g2", "yS"), cards("g1", "y7")], card("r3"), draw=cards("r9"))
    GAME.apply(state, 0, {"type": "draw"})
    view = GAME.view(state, 0)
    assert [c["id"] for c in view["hand"]] == sorted(cards("W", "b1", "r5", "g2", "yS", "r9"))
    assert [c["color"] for c in view["hand"]] == ["red", "red", "yellow", "green", "blue", "wild"]
    assert view["counts"] == [6, 2] and view["top"]["id"] == card("r3") and view["color"] == "red"
    assert view["pending"]["drawn_card_playable"] and view["pending"]["drawn_card"] == card("r9")
    assert view["turn"] == 0 and view["direction"] == 1 and view["draw_pile"] == len(state.draw)
    assert {"type": "pass"} in view["legal"]
    other = GAME.view(state, 1)
    assert "drawn_card" not in other["pending"] and other["pending"]["drawn_card_playable"]
    assert not {c["id"] for c in other["hand"]} & set(state.hands[0])
    spectator = GAME.view(state, None)
    assert "hand" not in spectator and "legal" not in spectator and spectator["counts"] == [6, 2]
    assert "draw" not in spectator and all("deck" not in key for key in spectator)


def test_view_reports_a_pending_challenge_and_stack() -> None:
    state = rig([cards("W4", "b1"), cards("g1"), cards("y1")], card("r3"))
    GAME.apply(state, 0, {"type": "play", "card": card("W4"), "color": "blue"})
    pending = GAME.view(state, 2)["pending"]
    assert pending["challenge"] == {"offender": 0, "challenger": 1}
    assert pending["draw_stack"] == 4 and pending["stack_kind"] == "wild-draw4"


def test_same_seed_and_actions_reproduce_the_same_game() -> None:
    def play(seed: int) -> list[Any]:
        state = GAME.setup(GAME.settings({"target_score": 0}), 3, random.Random(seed))
        picker = random.Random(99)
        log = [e.for_seat(0) for e in GAME.start_events(state)]
        while GAME.outcome(state) is None and len(log) < 3000:
            seat = GAME.to_act(state)[0]
            log += [
                e.for_seat(0) for e in GAME.apply(state, seat, picker.choice(GAME.legal_actions(state, seat)))
            ]
        return log

    assert play(5) == play(5)
    assert play(5) != play(6)


def test_catch_window_closes_when_the_next_player_challenges_or_accepts() -> None:
    for answer in ("challenge", "accept"):
        state = rig([cards("W4", "b1"), cards("g1", "g2"), cards("y1", "y2")], card("r3"))
        GAME.apply(state, 0, {"type": "play", "card": card("W4"), "color": "blue"})
        assert {"type": "catch", "target": 0} in GAME.legal_actions(state, 2)
        GAME.apply(state, 1, {"type": answer})
        assert refused(state, 2, {"type": "catch", "target": 0}) == "cannot_catch"


def test_the_seat_answering_a_wild_draw_four_is_the_one_on_the_clock() -> None:
    state = rig([cards("W4", "b1"), cards("g1"), cards("y1")], card("r3"))
    GAME.apply(state, 0, {"type": "play", "card": card("W4"), "color": "blue"})
    assert GAME.to_act(state) == [1]


def test_stacked_bluff_caught_makes_the_bluffer_draw_the_whole_stack() -> None:
    state = rig(
        [cards("W4", "b1", "b2"), [card("W4", 1), card("r7"), card("g2")], cards("y1", "y2")],
        card("r3"),
        settings={"stacking": True},
    )
    GAME.apply(state, 0, {"type": "play", "card": card("W4"), "color": "red"})
    GAME.apply(state, 1, {"type": "play", "card": card("W4", 1), "color": "green"})  # holds red: a bluff
    assert state.stack == 8
    events = GAME.apply(state, 2, {"type": "challenge"})
    assert events[0].public == {"seat": 2, "offender": 1, "guilty": True}
    assert len(state.hands[1]) == 10 and state.turn == 2 and state.stack == 0


def test_a_zero_uno_penalty_makes_a_catch_cost_nothing() -> None:
    state = rig([cards("r5", "b1"), cards("g1", "g2"), cards("y1")], card("r3"), settings={"uno_penalty": 0})
    pile = len(state.draw)
    GAME.apply(state, 0, {"type": "play", "card": card("r5")})
    events = GAME.apply(state, 1, {"type": "catch", "target": 0})
    assert events[1].public["count"] == 0 and len(state.hands[0]) == 1 and len(state.draw) == pile


def test_deck_running_out_reshuffles_the_discards_except_the_top_card() -> None:
    state = rig([cards("b1", "b2"), cards("g1", "g2")], card("r3"))
    state.discard = [*state.draw, card("r3")]
    state.draw = []
    events = GAME.apply(state, 0, {"type": "draw"})
    assert types(events)[0] == "reshuffle" and state.discard == [card("r3")]
    assert len(state.hands[0]) == 3 and len(state.draw) == 108 - 4 - 1 - 1


def test_a_bool_or_out_of_range_seat_is_refused_even_when_it_equals_the_seat_on_turn() -> None:
    state = rig([cards("r5", "b1"), cards("r6", "g1")], card("r3"), turn=1)
    assert refused(state, True, {"type": "play", "card": card("r6")}) == "not_seated"  # type: ignore[arg-type]
    assert refused(state, -1, {"type": "draw"}) == "not_seated"
    assert GAME.apply(state, 1, {"type": "play", "card": card("r6")})[0].public["seat"] == 1


def test_views_share_read_only_cards_and_settings_that_serialise_as_plain_json() -> None:
    orjson = pytest.importorskip("orjson")
    state = rig([cards("r5", "b1"), cards("g1")], card("r3"), settings={"stacking": True})
    view, spectator = GAME.view(state, 0), GAME.view(state, None)
    assert view["top"] is CARDS[card("r3")] and view["settings"] is spectator["settings"]
    for shared in (view["top"], view["hand"][0], view["settings"]):
        with pytest.raises(TypeError):
            shared["id"] = 1
    assert view["settings"]["stacking"] is True and view["settings"]["target_score"] == 0
    plain = {
        **view,
        "top": dict(view["top"]),
        "hand": [dict(c) for c in view["hand"]],
        "settings": dict(view["settings"]),
    }
    assert orjson.dumps(view) == orjson.dumps(plain)
    view["legal"][0]["marked"] = True  # a view's legal actions are copies: the engine's stay as they were
    assert all("marked" not in a for a in GAME.legal_actions(state, 0))
