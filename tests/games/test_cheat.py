"""One or more tests per bullet of rules/cheat.md, plus the seed write-up's checks.

Situations are built with rigged hands so each rule is exercised exactly.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from fingerprints import cheat_fingerprint

from parlour.games.base import Event, IllegalAction, InvalidSettings
from parlour.games.cheat import GAME, Play, Settings, State, allowed_ranks

A, TWO, THREE, FOUR, FIVE, SIX, SEVEN, EIGHT, NINE, TEN, J, Q, K = range(13)


def C(rank: int, suit: int = 0, deck: int = 0) -> int:
    """Card id in the write-up's numbering: deck*52 + rank*4 + suit."""
    return deck * 52 + rank * 4 + suit


def rig(
    hands: list[list[int]],
    turn: int = 0,
    *,
    settings: dict[str, Any] | None = None,
    rank: int | None = None,
    pile: list[int] | None = None,
) -> State:
    """A game in an exact position: these hands, this turn, this last announced rank."""
    state = GAME.setup(GAME.settings(settings), len(hands), random.Random(0))
    state.hands = [list(h) for h in hands]
    state.pile = list(pile or [])
    state.turn = turn
    state.rank = rank
    return state


def play(cards: list[int], rank: int | None = None) -> dict[str, Any]:
    action: dict[str, Any] = {"type": "play", "cards": cards}
    if rank is not None:
        action["rank"] = rank
    return action


CALL = {"type": "call"}


def refused(state: State, seat: int, action: Any, code: str) -> None:
    before = cheat_fingerprint(state)
    with pytest.raises(IllegalAction) as err:
        GAME.apply(state, seat, action)
    assert err.value.code == code
    assert cheat_fingerprint(state) == before


def card_ids(data: Any) -> set[int]:
    """Every card ({"id", "rank", "suit"} dict) anywhere inside a view or event."""
    found: set[int] = set()
    if isinstance(data, dict):
        if {"id", "rank", "suit"} <= data.keys():
            found.add(data["id"])
        for value in data.values():
            found |= card_ids(value)
    elif isinstance(data, list | tuple):
        for value in data:
            found |= card_ids(value)
    return found


def of_type(events: list[Event], kind: str) -> Event:
    return next(e for e in events if e.type == kind)


# --- Engine object and settings ------------------------------------------------


def test_game_object_contract() -> None:
    assert (GAME.name, GAME.min_players, GAME.max_players) == ("cheat", 3, 10)


def test_default_settings() -> None:
    s = GAME.settings(None)
    assert s == Settings(decks="auto", rank_sequence="ascending", turn_timer=0, max_players=6)
    assert GAME.settings({}) == s
    assert GAME.default_capacity(s) == 6
    assert GAME.default_capacity(GAME.settings({"max_players": 10})) == 10


@pytest.mark.parametrize(
    "raw",
    [
        {"decks": 1, "rank_sequence": "up_or_down", "turn_timer": 10, "max_players": 3},
        {"decks": 2, "rank_sequence": "any", "turn_timer": 300, "max_players": 10},
        {"decks": "auto", "turn_timer": 0},
    ],
)
def test_valid_settings(raw: dict[str, Any]) -> None:
    s = GAME.settings(raw)
    for key, value in raw.items():
        assert getattr(s, key) == value


@pytest.mark.parametrize(
    ("raw", "words"),
    [
        ({"colour": "red"}, "unknown"),
        ({"decks": 3}, "decks"),
        ({"decks": "2"}, "decks"),
        ({"decks": True}, "decks"),
        ({"rank_sequence": "down"}, "rank_sequence"),
        ({"rank_sequence": None}, "rank_sequence"),
        ({"turn_timer": 5}, "turn_timer"),
        ({"turn_timer": 301}, "turn_timer"),
        ({"turn_timer": "30"}, "turn_timer"),
        ({"turn_timer": 30.0}, "turn_timer"),
        ({"max_players": 2}, "max_players"),
        ({"max_players": 11}, "max_players"),
        ({"max_players": False}, "max_players"),
    ],
)
def test_invalid_settings_name_the_problem(raw: dict[str, Any], words: str) -> None:
    with pytest.raises(InvalidSettings) as err:
        GAME.settings(raw)
    assert words in err.value.message


def test_settings_must_be_an_object() -> None:
    with pytest.raises(InvalidSettings):
        GAME.settings(["decks"])  # type: ignore[arg-type]


def test_settings_are_frozen() -> None:
    with pytest.raises(AttributeError):
        GAME.settings(None).decks = 2  # type: ignore[misc]


# --- Setup ----------------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 11])
def test_three_to_ten_players(players: int) -> None:
    with pytest.raises(InvalidSettings):
        GAME.setup(GAME.settings(None), players, random.Random(0))


@pytest.mark.parametrize(("players", "cards"), [(3, 52), (6, 52), (7, 104), (10, 104)])
def test_auto_decks_by_player_count(players: int, cards: int) -> None:
    state = GAME.setup(GAME.settings({"max_players": 10}), players, random.Random(players))
    dealt = [c for hand in state.hands for c in hand]
    assert sorted(dealt) == list(range(cards))
    assert state.pile == []
    sizes = [len(h) for h in state.hands]
    assert max(sizes) - min(sizes) <= 1


@pytest.mark.parametrize(("decks", "players", "cards"), [(1, 8, 52), (2, 3, 104)])
def test_decks_setting_overrides_auto(decks: int, players: int, cards: int) -> None:
    state = GAME.setup(GAME.settings({"decks": decks, "max_players": 10}), players, random.Random(1))
    assert sorted(c for h in state.hands for c in h) == list(range(cards))
    assert GAME.view(state, 0)["decks"] == decks


def test_dealt_one_at_a_time_in_join_order() -> None:
    state = GAME.setup(GAME.settings(None), 5, random.Random(42))
    deck = list(range(52))
    random.Random(42).shuffle(deck)
    assert state.hands == [deck[seat::5] for seat in range(5)]
    # 52 cards over 5 seats: the first two seats in join order get the extra card.
    assert [len(h) for h in state.hands] == [11, 11, 10, 10, 10]


def test_first_player_is_random_and_varies_by_seed() -> None:
    firsts = {GAME.setup(GAME.settings(None), 4, random.Random(seed)).turn for seed in range(60)}
    assert firsts == {0, 1, 2, 3}


def test_same_seed_same_deal_and_first_player() -> None:
    a = GAME.setup(GAME.settings(None), 4, random.Random(7))
    b = GAME.setup(GAME.settings(None), 4, random.Random(7))
    assert cheat_fingerprint(a) == cheat_fingerprint(b)


@pytest.mark.parametrize("sequence", ["ascending", "up_or_down", "any"])
def test_first_claim_is_ace(sequence: str) -> None:
    state = GAME.setup(GAME.settings({"rank_sequence": sequence}), 3, random.Random(3))
    assert GAME.view(state, None)["ranks"] == [A]
    seat = state.turn
    assert seat is not None
    refused(state, seat, play([state.hands[seat][0]], TWO), "bad_rank")
    GAME.apply(state, seat, play([state.hands[seat][0]], A))
    assert state.last_play is not None and state.last_play.rank == A


def test_start_events_deal_each_hand_privately() -> None:
    state = GAME.setup(GAME.settings(None), 4, random.Random(5))
    (dealt,) = GAME.start_events(state)
    assert dealt.type == "dealt"
    assert dealt.public["hand_sizes"] == [13, 13, 13, 13]
    assert dealt.public["first"] == state.turn
    assert card_ids(dealt.public) == set()
    for seat in range(4):
        assert card_ids(dealt.for_seat(seat)) == set(state.hands[seat])
        assert [c["id"] for c in dealt.for_seat(seat)["hand"]] == sorted(
            state.hands[seat], key=lambda c: c % 52
        )
    assert card_ids(dealt.for_seat(None)) == set()


# --- A turn -----------------------------------------------------------------------


@pytest.mark.parametrize("count", [1, 2, 3, 4])
def test_place_one_to_four_cards_face_down(count: int) -> None:
    hand = [C(A, s) for s in range(4)] + [C(FIVE)]
    state = rig([hand, [C(TWO)], [C(THREE)]])
    events = GAME.apply(state, 0, play(hand[:count], A))
    played = of_type(events, "played")
    assert played.public == {"seat": 0, "count": count, "rank": A, "pile_size": count, "hand_size": 5 - count}
    assert card_ids(played.for_seat(1)) == set() and card_ids(played.for_seat(None)) == set()
    assert card_ids(played.for_seat(0)) == set(hand[:count])
    assert state.pile == hand[:count] and state.hands[0] == hand[count:]
    assert state.turn == 1


def test_placer_may_lie() -> None:
    state = rig([[C(SEVEN), C(NINE)], [C(TWO)], [C(THREE)]])
    GAME.apply(state, 0, play([C(SEVEN), C(NINE)], A))
    assert state.last_play == Play(0, [C(SEVEN), C(NINE)], A)


def test_more_than_four_cards_refused() -> None:
    hand = [C(A, s) for s in range(4)] + [C(A, 0, 1)]
    state = rig([hand, [C(TWO)], [C(THREE)]], settings={"decks": 2})
    refused(state, 0, play(hand, A), "too_many_cards")


def test_cannot_pass() -> None:
    state = rig([[C(A)], [C(TWO)], [C(THREE)]])
    refused(state, 0, play([], A), "no_cards")
    refused(state, 0, {"type": "pass"}, "bad_action")
    assert all(a["type"] == "play" for a in GAME.legal_actions(state, 0))


def test_duplicate_card_refused() -> None:
    state = rig([[C(A), C(TWO)], [C(TWO, 1)], [C(THREE)]])
    refused(state, 0, play([C(A), C(A)], A), "duplicate_card")


@pytest.mark.parametrize("card", [C(TWO, 1), C(K, 3), 52, -1, 10**9])
def test_card_not_in_hand_refused(card: int) -> None:
    state = rig([[C(A), C(TWO)], [C(TWO, 1)], [C(THREE)]])
    refused(state, 0, play([C(A), card], A), "card_not_in_hand")


def test_only_the_seat_on_the_clock_plays() -> None:
    state = rig([[C(A)], [C(A, 1)], [C(A, 2)]], turn=1)
    refused(state, 0, play([C(A)], A), "not_your_turn")
    refused(state, 2, play([C(A, 2)], A), "not_your_turn")
    refused(state, 7, play([C(A)], A), "not_your_turn")
    GAME.apply(state, 1, play([C(A, 1)], A))


def test_ascending_requires_the_next_rank() -> None:
    state = rig([[C(A)], [C(TWO), C(FIVE)], [C(THREE)]])
    GAME.apply(state, 0, play([C(A)], A))
    assert allowed_ranks(state) == [TWO]
    refused(state, 1, play([C(FIVE)], FIVE), "bad_rank")
    refused(state, 1, play([C(FIVE)], A), "bad_rank")
    GAME.apply(state, 1, play([C(FIVE)]))  # rank may be omitted: it can only be 2
    assert state.last_play is not None and state.last_play.rank == TWO
    assert allowed_ranks(state) == [THREE]


def test_ranks_wrap_from_king_to_ace() -> None:
    state = rig([[C(K)], [C(A), C(TWO)], [C(THREE)]], rank=Q)
    GAME.apply(state, 0, play([C(K)], K))
    assert GAME.view(state, 1)["ranks"] == [A]
    refused(state, 1, play([C(TWO)], TWO), "bad_rank")
    GAME.apply(state, 1, play([C(A)], A))


def test_up_or_down_announces_one_above_or_below() -> None:
    hands = [[C(FIVE), C(SIX)], [C(FOUR), C(NINE)], [C(SIX, 1), C(NINE, 1)]]
    state = rig(hands, settings={"rank_sequence": "up_or_down"}, rank=FOUR)
    assert allowed_ranks(state) == [FIVE, THREE]
    refused(state, 0, play([C(FIVE)]), "bad_rank")  # two choices: must announce one
    refused(state, 0, play([C(FIVE)], SIX), "bad_rank")
    GAME.apply(state, 0, play([C(SIX)], THREE))  # down, and a lie
    assert allowed_ranks(state) == [FOUR, TWO]
    GAME.apply(state, 1, play([C(FOUR)], FOUR))  # up
    assert allowed_ranks(state) == [FIVE, THREE]


def test_up_or_down_wraps_both_ways() -> None:
    state = rig([[C(A)], [C(K)], [C(TWO)]], settings={"rank_sequence": "up_or_down"})
    GAME.apply(state, 0, play([C(A)], A))
    assert allowed_ranks(state) == [TWO, K]
    GAME.apply(state, 1, play([C(K)], K))
    assert allowed_ranks(state) == [A, Q]


def test_any_rank_after_the_first_play() -> None:
    state = rig([[C(A), C(NINE)], [C(K), C(TWO)], [C(TWO, 1), C(NINE, 1)]], settings={"rank_sequence": "any"})
    GAME.apply(state, 0, play([C(A)], A))
    assert sorted(allowed_ranks(state)) == list(range(13))
    refused(state, 1, play([C(K)]), "bad_rank")
    GAME.apply(state, 1, play([C(K)], K))
    GAME.apply(state, 2, play([C(TWO, 1)], SEVEN))
    assert state.last_play is not None and state.last_play.rank == SEVEN


def test_turns_go_round_in_join_order_and_loop_back() -> None:
    hands = [[C(A), C(FIVE)], [C(TWO), C(SIX)], [C(THREE), C(SEVEN)], [C(FOUR), C(EIGHT)]]
    state = rig(hands, turn=2, rank=K)
    seen = []
    for _ in range(5):
        seat = state.turn
        assert seat is not None
        seen.append(seat)
        GAME.apply(state, seat, play([state.hands[seat][0]]))
    assert seen == [2, 3, 0, 1, 2]


# --- Calling "Cheat" -----------------------------------------------------------


def lie_by_seat0() -> State:
    """Seat 0 claims two Aces with a 7 and a 9; the pile already holds 3 cards."""
    hands = [[C(SEVEN), C(NINE), C(J)], [C(TWO), C(TWO, 1)], [C(THREE)], [C(FOUR)]]
    state = rig(hands, rank=K, pile=[C(Q), C(Q, 1), C(Q, 2)])
    GAME.apply(state, 0, play([C(SEVEN), C(NINE)], A))
    return state


def truth_by_seat0() -> State:
    hands = [[C(A), C(A, 1), C(J)], [C(TWO), C(TWO, 1)], [C(THREE)], [C(FOUR)]]
    state = rig(hands, rank=K, pile=[C(Q), C(Q, 1), C(Q, 2)])
    GAME.apply(state, 0, play([C(A), C(A, 1)], A))
    return state


def test_next_player_may_call() -> None:
    state = lie_by_seat0()
    assert state.turn == 1
    assert {"type": "call"} in GAME.legal_actions(state, 1)
    GAME.apply(state, 1, CALL)
    assert state.pile == []


@pytest.mark.parametrize("caller", [2, 3])
def test_any_other_player_may_call(caller: int) -> None:
    state = lie_by_seat0()
    assert GAME.legal_actions(state, caller) == [CALL]
    assert GAME.view(state, caller)["can_call"] is True
    events = GAME.apply(state, caller, CALL)
    assert of_type(events, "called").public["caller"] == caller


def test_placer_cannot_call_own_play() -> None:
    state = lie_by_seat0()
    assert GAME.legal_actions(state, 0) == []
    assert GAME.view(state, 0)["can_call"] is False
    refused(state, 0, CALL, "cannot_call_own_play")


def test_nothing_to_call_before_the_first_play() -> None:
    state = rig([[C(A)], [C(TWO)], [C(THREE)]])
    refused(state, 1, CALL, "nothing_to_call")
    assert GAME.to_act(state) == [0]


def test_first_call_wins_and_a_play_is_called_once() -> None:
    state = lie_by_seat0()
    GAME.apply(state, 2, CALL)
    refused(state, 1, CALL, "nothing_to_call")
    refused(state, 3, CALL, "nothing_to_call")


def test_only_the_most_recent_play_can_be_challenged() -> None:
    state = lie_by_seat0()  # seat 0 lied...
    GAME.apply(state, 1, play([C(TWO), C(TWO, 1)], TWO))  # ...seat 1 told the truth on top
    events = GAME.apply(state, 3, CALL)
    called = of_type(events, "called")
    assert called.public["placer"] == 1
    assert {c["id"] for c in called.public["cards"]} == {C(TWO), C(TWO, 1)}
    assert called.public["truthful"] is True
    assert called.public["picked_up_by"] == 3
    # The whole pile (3 old + seat 0's lie + seat 1's play) went to the caller.
    assert len(state.hands[3]) == 1 + 7 and state.pile == []


def test_call_catches_a_lie_placer_picks_up_whole_pile() -> None:
    state = lie_by_seat0()
    events = GAME.apply(state, 2, CALL)
    called = of_type(events, "called")
    assert called.public == {
        "caller": 2,
        "placer": 0,
        "rank": A,
        "cards": [{"id": C(SEVEN), "rank": SEVEN, "suit": 0}, {"id": C(NINE), "rank": NINE, "suit": 0}],
        "truthful": False,
        "picked_up_by": 0,
        "pile_count": 5,
    }
    assert called.private == {}
    assert sorted(state.hands[0]) == sorted([C(J), C(SEVEN), C(NINE), C(Q), C(Q, 1), C(Q, 2)])
    assert state.pile == [] and state.last_play is None
    picked = of_type(events, "picked_up")
    assert picked.public == {"seat": 0, "count": 5, "hand_size": 6}
    assert card_ids(picked.for_seat(0)) == {C(SEVEN), C(NINE), C(Q), C(Q, 1), C(Q, 2)}
    for other in (1, 2, 3, None):
        assert card_ids(picked.for_seat(other)) == set()


def test_one_wrong_card_makes_the_play_a_lie() -> None:
    state = rig([[C(A), C(A, 1), C(FIVE)], [C(TWO)], [C(THREE)]])
    GAME.apply(state, 0, play([C(A), C(A, 1), C(FIVE)], A))
    events = GAME.apply(state, 1, CALL)
    assert of_type(events, "called").public["truthful"] is False
    assert len(state.hands[0]) == 3


def test_call_on_a_true_play_caller_picks_up() -> None:
    state = truth_by_seat0()
    events = GAME.apply(state, 3, CALL)
    called = of_type(events, "called")
    assert called.public["truthful"] is True and called.public["picked_up_by"] == 3
    assert len(state.hands[3]) == 1 + 5 and state.pile == []
    assert state.hands[0] == [C(J)]


@pytest.mark.parametrize(("make", "caller"), [(lie_by_seat0, 1), (lie_by_seat0, 3), (truth_by_seat0, 2)])
def test_play_continues_after_the_challenged_player(make: Any, caller: int) -> None:
    state = make()
    events = GAME.apply(state, caller, CALL)
    assert state.turn == 1
    assert of_type(events, "turn").public == {"seat": 1, "ranks": [TWO]}


def test_rank_sequence_carries_on_after_a_call() -> None:
    state = rig(
        [[C(FIVE)], [C(SIX)], [C(SEVEN)]], turn=2, rank=THREE, settings={"rank_sequence": "up_or_down"}
    )
    GAME.apply(state, 2, play([C(SEVEN)], FOUR))
    GAME.apply(state, 1, CALL)
    assert state.turn == 0
    assert allowed_ranks(state) == [FIVE, THREE]


def test_call_after_a_player_left_continues_after_the_placer() -> None:
    hands = [[C(A), C(J)], [C(TWO)], [C(THREE)], [C(FOUR)], [C(FIVE)]]
    state = rig(hands)
    GAME.apply(state, 0, play([C(J)], A))
    GAME.on_leave(state, 1)  # the seat on the clock leaves; seat 2 takes the turn
    assert state.turn == 2
    GAME.apply(state, 4, CALL)
    assert state.turn == 2
    assert sorted(state.hands[0]) == sorted([C(A), C(J), C(TWO)])  # with seat 1's hand


# --- Winning --------------------------------------------------------------------


def last_card_by_seat0(truthful: bool) -> State:
    card = C(A) if truthful else C(NINE)
    state = rig([[card], [C(TWO), C(FIVE)], [C(THREE), C(SIX)], [C(FOUR), C(SEVEN)]], pile=[C(K)])
    GAME.apply(state, 0, play([card], A))
    return state


@pytest.mark.parametrize("truthful", [True, False])
def test_no_win_until_the_last_play_stands(truthful: bool) -> None:
    state = last_card_by_seat0(truthful)
    assert state.hands[0] == []
    assert GAME.outcome(state) is None
    assert GAME.view(state, None)["winner"] is None
    assert GAME.to_act(state) == [1, 2, 3]


@pytest.mark.parametrize("truthful", [True, False])
def test_win_when_next_player_places_without_a_call(truthful: bool) -> None:
    state = last_card_by_seat0(truthful)
    events = GAME.apply(state, 1, play([C(TWO)], TWO))
    over = of_type(events, "game_over")
    assert over.public == {"winner": 0, "reason": "finished", "hand_sizes": [0, 1, 2, 2]}
    result = GAME.outcome(state)
    assert result is not None
    assert (result.winners, result.scores, result.reason) == ([0], {0: 0, 1: 1, 2: 2, 3: 2}, "finished")
    assert GAME.to_act(state) == []
    assert all(GAME.legal_actions(state, s) == [] for s in range(4))
    v = GAME.view(state, 2)
    assert (v["winner"], v["over"], v["turn"], v["callers"]) == (0, True, None, [])
    assert GAME.view(state, None)["winner"] == 0  # shown to everyone, spectators too


@pytest.mark.parametrize("caller", [1, 3])
def test_win_when_a_call_reveals_the_last_play_true(caller: int) -> None:
    state = last_card_by_seat0(truthful=True)
    events = GAME.apply(state, caller, CALL)
    assert [e.type for e in events] == ["called", "picked_up", "game_over"]
    assert of_type(events, "game_over").public["winner"] == 0
    assert len(state.hands[caller]) == 2 + 2
    result = GAME.outcome(state)
    assert result is not None and result.winners == [0]


def test_caught_lying_on_last_card_picks_up_and_plays_on() -> None:
    state = last_card_by_seat0(truthful=False)
    events = GAME.apply(state, 2, CALL)
    assert [e.type for e in events] == ["called", "picked_up", "turn"]
    assert sorted(state.hands[0]) == sorted([C(NINE), C(K)])
    assert GAME.outcome(state) is None
    assert state.turn == 1
    GAME.apply(state, 1, play([C(TWO)], TWO))
    assert GAME.outcome(state) is None  # seat 0 holds cards again: no win from that play


def test_after_a_win_every_action_is_refused() -> None:
    state = last_card_by_seat0(truthful=True)
    GAME.apply(state, 2, CALL)
    refused(state, 1, play([C(TWO)], TWO), "game_over")
    refused(state, 3, CALL, "game_over")
    assert GAME.on_leave(state, 1) == [] and GAME.on_timeout(state, 1) == []


# --- Leaving ------------------------------------------------------------------


def four_players() -> State:
    hands = [[C(A), C(FIVE)], [C(TWO), C(SIX)], [C(THREE), C(SEVEN)], [C(FOUR), C(EIGHT)]]
    return rig(hands, pile=[C(K)])


def test_leaving_on_own_turn_hand_to_pile_and_next_turn_begins() -> None:
    state = four_players()
    events = GAME.on_leave(state, 0)
    assert [e.type for e in events] == ["left", "turn"]
    assert of_type(events, "left").public == {"seat": 0, "to_pile": 2, "pile_size": 3}
    assert all(card_ids(e.for_seat(s)) == set() for e in events for s in (0, 1, 2, 3, None))
    assert sorted(state.pile) == sorted([C(K), C(A), C(FIVE)]) and state.hands[0] == []
    assert state.turn == 1
    assert GAME.view(state, 2)["active"] == [1, 2, 3]
    assert GAME.legal_actions(state, 0) == []
    refused(state, 0, CALL, "not_your_turn")
    assert GAME.to_act(state) == [1]


def test_leaving_after_making_the_last_play_it_cannot_be_challenged() -> None:
    state = four_players()
    GAME.apply(state, 0, play([C(FIVE)], A))  # a lie
    GAME.on_leave(state, 0)
    refused(state, 1, CALL, "nothing_to_call")
    refused(state, 2, CALL, "nothing_to_call")
    assert GAME.view(state, 2)["last_play"] == {"seat": 0, "count": 1, "rank": A, "callable": False}
    assert GAME.to_act(state) == [1]
    GAME.apply(state, 1, play([C(TWO)], TWO))  # play continues normally
    assert GAME.outcome(state) is None and state.turn == 2


def test_leaving_after_placing_last_card_does_not_win() -> None:
    state = rig([[C(A)], [C(TWO), C(FIVE)], [C(THREE)], [C(FOUR)]])
    GAME.apply(state, 0, play([C(A)], A))
    GAME.on_leave(state, 0)
    GAME.apply(state, 1, play([C(TWO)], TWO))
    assert GAME.outcome(state) is None


def test_leaving_while_another_player_decides() -> None:
    state = four_players()
    GAME.apply(state, 0, play([C(FIVE)], A))  # seat 1 must decide; seat 3 leaves meanwhile
    events = GAME.on_leave(state, 3)
    assert [e.type for e in events] == ["left"]
    assert state.turn == 1
    assert GAME.to_act(state) == [1, 2]
    GAME.apply(state, 2, CALL)  # seat 0's play is still open to challenge
    assert state.turn == 1 and C(FIVE) in state.hands[0]


def test_turns_skip_a_seat_that_left() -> None:
    hands = [[C(A), C(FIVE)], [C(TWO), C(SIX)], [C(THREE), C(SEVEN)], [C(FOUR), C(EIGHT)]]
    state = rig(hands)
    GAME.on_leave(state, 1)
    GAME.apply(state, 0, play([C(A)], A))
    assert state.turn == 2
    GAME.apply(state, 2, play([C(THREE)], TWO))
    GAME.apply(state, 3, play([C(FOUR)], THREE))
    assert state.turn == 0


def test_fewer_than_three_players_ends_the_game() -> None:
    state = rig([[C(A), C(FIVE)], [C(TWO)], [C(THREE)]], turn=1)
    events = GAME.on_leave(state, 2)
    assert [e.type for e in events] == ["left", "game_over"]
    assert of_type(events, "game_over").public["reason"] == "not_enough_players"
    result = GAME.outcome(state)
    assert result is not None
    assert (result.winners, result.reason, result.scores) == ([], "not_enough_players", {0: 2, 1: 1})
    refused(state, 1, play([C(TWO)], A), "game_over")
    assert GAME.to_act(state) == []


def test_fewer_than_three_ends_even_with_a_last_card_play_open() -> None:
    state = rig([[C(A)], [C(TWO)], [C(THREE)]])
    GAME.apply(state, 0, play([C(A)], A))
    GAME.on_leave(state, 2)
    result = GAME.outcome(state)
    assert result is not None and result.winners == [] and result.reason == "not_enough_players"


def test_leaving_twice_or_unknown_seat_is_a_no_op() -> None:
    state = four_players()
    GAME.on_leave(state, 3)
    before = cheat_fingerprint(state)
    assert GAME.on_leave(state, 3) == [] and GAME.on_leave(state, 9) == []
    assert cheat_fingerprint(state) == before


# --- Turn timer -----------------------------------------------------------------


def test_timeout_places_a_true_card_when_held() -> None:
    state = rig([[C(K), C(TWO, 3), C(TWO, 1)], [C(A)], [C(THREE)]], rank=A)
    events = GAME.on_timeout(state, 0)
    assert [e.type for e in events] == ["timed_out", "played", "turn"]
    assert state.last_play == Play(0, [C(TWO, 1)], TWO)


def test_timeout_places_first_card_as_required_rank_when_none_held() -> None:
    state = rig([[C(K), C(SEVEN, 2), C(SEVEN, 1)], [C(A)], [C(THREE)]], rank=A)
    GAME.on_timeout(state, 0)
    assert state.last_play == Play(0, [C(SEVEN, 1)], TWO)
    assert state.turn == 1


def test_timeout_up_or_down_tries_up_then_down() -> None:
    state = rig(
        [[C(K), C(THREE)], [C(A)], [C(THREE, 1)]], rank=FOUR, settings={"rank_sequence": "up_or_down"}
    )
    GAME.on_timeout(state, 0)
    assert state.last_play == Play(0, [C(THREE)], THREE)


def test_timeout_any_sequence_is_truthful() -> None:
    state = rig([[C(K), C(NINE)], [C(A)], [C(THREE, 1)]], rank=FOUR, settings={"rank_sequence": "any"})
    GAME.on_timeout(state, 0)
    assert state.last_play == Play(0, [C(NINE)], NINE)


def test_timeout_for_a_seat_not_on_the_clock_does_nothing() -> None:
    state = rig([[C(A)], [C(TWO)], [C(THREE)]])
    before = cheat_fingerprint(state)
    assert GAME.on_timeout(state, 1) == []
    assert cheat_fingerprint(state) == before


def test_timeout_on_last_card_then_the_play_stands() -> None:
    state = rig([[C(A)], [C(TWO)], [C(THREE)]])
    GAME.on_timeout(state, 0)
    GAME.on_timeout(state, 1)
    result = GAME.outcome(state)
    assert result is not None and result.winners == [0]


# --- Secrets (the write-up's "check every event" for leaked information) --------


def test_view_shows_own_hand_sorted_and_only_sizes_of_others() -> None:
    hands = [[C(K), C(A, 3), C(FIVE, 1), C(A)], [C(TWO)], [C(THREE), C(FOUR)]]
    state = rig(hands, pile=[C(Q), C(J)])
    v = GAME.view(state, 0)
    assert [c["id"] for c in v["hand"]] == [C(A), C(A, 3), C(FIVE, 1), C(K)]
    assert v["hand"][0] == {"id": C(A), "rank": A, "suit": 0}
    assert v["hand_sizes"] == [4, 1, 2]
    assert v["pile_size"] == 2
    assert (v["turn"], v["ranks"], v["active"], v["winner"], v["last_play"]) == (
        0,
        [A],
        [0, 1, 2],
        None,
        None,
    )
    assert card_ids(v) == set(hands[0])


def test_spectator_view_has_no_hand_and_no_cards() -> None:
    state = rig([[C(A)], [C(TWO)], [C(THREE)]], pile=[C(Q)])
    v = GAME.view(state, None)
    assert "hand" not in v and "can_call" not in v
    assert card_ids(v) == set()


def test_last_play_shows_size_and_claim_but_not_the_cards() -> None:
    state = lie_by_seat0()
    for seat in (0, 1, 2, 3, None):
        v = GAME.view(state, seat)
        assert v["last_play"] == {"seat": 0, "count": 2, "rank": A, "callable": True}
        assert v["callers"] == [1, 2, 3]
        mine = set(state.hands[seat]) if seat is not None else set()
        assert card_ids(v) == mine  # neither the pile nor the just-placed cards


def choose(state: State, rng: random.Random) -> tuple[int, dict[str, Any]]:
    """A plausible table: calls now and then, otherwise the biggest truthful play or a bluff."""
    callers = GAME.view(state, None)["callers"]
    if callers and rng.random() < 0.2:
        return rng.choice(callers), CALL
    seat = GAME.to_act(state)[0]
    plays = [a for a in GAME.legal_actions(state, seat) if a["type"] == "play"]
    honest = [a for a in plays if all(c % 52 // 4 == a["rank"] for c in a["cards"])]
    return seat, max(honest, key=lambda a: len(a["cards"])) if honest else rng.choice(plays)


def test_no_event_leaks_cards_over_a_whole_game() -> None:
    """Every event of a full game: cards reach only their owner, or everyone on a reveal."""
    rng = random.Random(11)
    state = GAME.setup(GAME.settings(None), 4, random.Random(11))
    events = GAME.start_events(state)
    for _ in range(3000):
        if GAME.outcome(state) is not None:
            break
        holders = {c: s for s, hand in enumerate(state.hands) for c in hand}
        play_before = list(state.last_play.cards) if state.last_play else []
        seat, action = choose(state, rng)
        new = GAME.apply(state, seat, action)
        events += new
        for event in new:
            if event.type == "called":
                assert card_ids(event.public) == set(play_before)
            else:
                assert card_ids(event.public) == set()
            for owner, private in event.private.items():
                # played: the placer's own cards; picked_up: now the picker's own cards.
                mine = {c for c, s in holders.items() if s == owner} | set(state.hands[owner])
                assert card_ids(private) <= mine
    assert GAME.outcome(state) is not None
    assert {e.type for e in events} >= {"dealt", "played", "called", "picked_up", "turn", "game_over"}


# --- Wire shape and the write-up's illegal-move checks ---------------------------


@pytest.mark.parametrize(
    "raw",
    [
        None,
        "play",
        [],
        {},
        {"type": "accuse_cheater"},
        {"type": 1},
        {"type": "play"},
        {"type": "play", "cards": "1,2"},
        {"type": "play", "cards": [1, "2"]},
        {"type": "play", "cards": [1.0]},
        {"type": "play", "cards": [True]},
        {"type": "play", "cards": [{"rank": 0, "suit": 0}]},
        {"type": "play", "cards": [1], "rank": "A"},
        {"type": "play", "cards": [1], "rank": 13},
        {"type": "play", "cards": [1], "rank": -1},
        {"type": "play", "cards": [1], "rank": False},
    ],
)
def test_malformed_actions_are_bad_action(raw: Any) -> None:
    with pytest.raises(IllegalAction) as err:
        GAME.parse_action(raw)
    assert err.value.code == "bad_action"
    state = rig([[C(A), C(TWO)], [C(THREE)], [C(FOUR)]])
    refused(state, 0, raw, "bad_action")


def test_parse_action_normalises() -> None:
    assert GAME.parse_action({"type": "call", "id": 3}) == {"type": "call"}
    assert GAME.parse_action({"type": "play", "cards": [4, 5]}) == {"type": "play", "cards": [4, 5]}
    assert GAME.parse_action({"type": "play", "cards": [4], "rank": 0}) == {
        "type": "play",
        "cards": [4],
        "rank": 0,
    }


def test_legal_actions_list_truthful_and_bluff_plays() -> None:
    hand = [C(A), C(A, 1), C(A, 2), C(A, 3), C(A, 0, 1), C(SEVEN)]
    state = rig([hand, [C(TWO)], [C(THREE)]], settings={"decks": 2})
    actions = GAME.legal_actions(state, 0)
    assert play([C(A), C(A, 0, 1), C(A, 1), C(A, 2)], A) in actions  # 4 truthful Aces
    assert play([C(SEVEN)], A) in actions  # a bluff
    assert all(1 <= len(a["cards"]) <= 4 for a in actions)
    for action in actions:
        GAME.apply(rig([hand, [C(TWO)], [C(THREE)]], settings={"decks": 2}), 0, action)
    assert GAME.legal_actions(state, 1) == []


def test_to_act_lists_the_clock_then_callers() -> None:
    state = lie_by_seat0()
    assert GAME.to_act(state) == [1, 2, 3]
    GAME.apply(state, 1, CALL)
    assert GAME.to_act(state) == [1]


def test_seat_view_without_legal_is_seat_view_less_legal() -> None:
    """What the room sends a recipient that never reads ``legal`` (``Sink.legal``), over a whole game."""
    rng = random.Random(5)
    state = GAME.setup(GAME.settings({"rank_sequence": "any"}), 4, random.Random(5))
    for _ in range(300):
        if GAME.outcome(state) is not None:
            break
        for seat in (None, 0, 1, 2, 3):
            full = GAME.seat_view(state, seat)
            full.pop("legal", None)
            assert GAME.seat_view_without_legal(state, seat) == full
        seat, action = choose(state, rng)
        GAME.apply(state, seat, action)
    assert GAME.outcome(state) is not None


def test_log_lines_count_one_card_as_a_card() -> None:
    """One card placed, picked up or left on the pile reads "1 card" (claimed as "an Ace"), as more
    read "n cards" (as "Aces")."""
    names = ["Ada", "Bo", "Cy", "Di"]
    state = rig([[C(SEVEN), C(NINE)], [C(TWO)], [C(THREE)], [C(FOUR)]])
    placed = GAME.apply(state, 0, play([C(SEVEN)], A))
    called = GAME.apply(state, 1, CALL)
    lines = [GAME.describe_event(e.for_seat(None), names) for e in [*placed, *called]]
    assert "Ada placed 1 card as an Ace" in lines
    assert "Bo called Cheat on Ada: it was a lie; Ada picks up 1 card" in lines
    left = [GAME.describe_event(e.for_seat(None), names) for e in GAME.on_leave(state, 2)]
    assert "Cy left; 1 card went onto the pile" in left


def test_a_truthful_call_names_no_pronoun_the_log_cannot_turn_into_you() -> None:
    """The line read "…: they told the truth", which the placer's own log showed as "Bo called Cheat on
    you: they told the truth" (it rewrites names, not pronouns)."""
    names = ["Ada", "Bo", "Cy", "Di"]
    state = rig([[C(A), C(NINE)], [C(TWO)], [C(THREE)], [C(FOUR)]])
    placed = GAME.apply(state, 0, play([C(A)], A))
    called = GAME.apply(state, 1, CALL)
    lines = [GAME.describe_event(e.for_seat(None), names) for e in [*placed, *called]]
    assert "Bo called Cheat on Ada: it was the truth; Bo picks up 1 card" in lines
