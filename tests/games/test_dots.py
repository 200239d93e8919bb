"""Dots & Boxes engine: one test (or more) per bullet of /work/shared/rules/dots.md, plus the contract."""

from __future__ import annotations

import copy
import json
import pickle
import random
from typing import Any

import pytest
from fingerprints import dots_snapshot

from parlour.games import dots
from parlour.games.base import Event, IllegalAction, InvalidSettings, Outcome
from parlour.games.dots import GAME, MAX_LINE_ID, Settings, State, line_id, line_xyd, timeout_line

Line = tuple[int, int, int]


def new(width: int = 4, height: int = 4, players: int = 2) -> State:
    return GAME.setup(GAME.settings({"width": width, "height": height}), players, random.Random(0))


def draw(state: State, *lines: Line) -> list[dict[str, Any]]:
    """Draw ``lines`` in order, each by whoever is on turn; the events as a spectator sees them."""
    out: list[dict[str, Any]] = []
    for x, y, d in lines:
        (seat,) = GAME.to_act(state)
        out += [ev.for_seat(None) for ev in GAME.apply(state, seat, line_id(x, y, d))]
    return out


def box_lines(x: int, y: int) -> list[Line]:
    """The four sides of box (x, y): top, left, right, bottom."""
    return [(x, y, 0), (x, y, 1), (x + 1, y, 1), (x, y + 1, 0)]


# --- settings ---------------------------------------------------------------------------------------------


def test_default_settings_are_the_usual_three_by_three_box_game() -> None:
    s = GAME.settings(None)
    assert s == Settings(width=4, height=4, turn_timer=0, max_players=2)
    assert GAME.settings({}) == s
    assert GAME.default_capacity(s) == 2
    assert GAME.default_capacity(GAME.settings({"max_players": 5})) == 5
    assert (GAME.name, GAME.min_players, GAME.max_players) == ("dots", 2, 8)


@pytest.mark.parametrize(
    "raw",
    [
        {"width": 2, "height": 50},
        {"width": 50, "height": 2},
        {"turn_timer": 10},
        {"turn_timer": 300},
        {"turn_timer": 0},
        {"max_players": 8},
    ],
)
def test_settings_accept_the_bounds(raw: dict[str, Any]) -> None:
    s = GAME.settings(raw)
    for key, value in raw.items():
        assert getattr(s, key) == value


@pytest.mark.parametrize(
    ("raw", "fragment"),
    [
        ({"colour": 1}, "unknown setting(s): colour"),
        ({"width": 1}, "width must be between 2 and 50"),
        ({"height": 51}, "height must be between 2 and 50"),
        ({"width": True}, "width must be an integer"),
        ({"width": 4.0}, "width must be an integer"),
        ({"height": "4"}, "height must be an integer"),
        ({"turn_timer": 5}, "turn_timer must be 0 (off) or between 10 and 300"),
        ({"turn_timer": 301}, "turn_timer must be between 0 and 300"),
        ({"turn_timer": -1}, "turn_timer must be between 0 and 300"),
        ({"max_players": 1}, "max_players must be between 2 and 8"),
        ({"max_players": 9}, "max_players must be between 2 and 8"),
    ],
)
def test_settings_refuse_bad_values_with_a_clear_message(raw: dict[str, Any], fragment: str) -> None:
    with pytest.raises(InvalidSettings) as err:
        GAME.settings(raw)
    assert fragment in err.value.message
    assert err.value.code == "invalid_settings"


def test_settings_must_be_an_object() -> None:
    with pytest.raises(InvalidSettings, match="must be an object"):
        GAME.settings([4, 4])  # type: ignore[arg-type]


def test_settings_are_frozen() -> None:
    with pytest.raises(AttributeError):
        GAME.settings(None).width = 9  # type: ignore[misc]


@pytest.mark.parametrize("players", [0, 1, 9, 2.0, "2"])
def test_setup_needs_two_to_eight_players(players: Any) -> None:
    with pytest.raises(InvalidSettings):
        GAME.setup(GAME.settings(None), players, random.Random(0))


# --- coordinates and line ids -----------------------------------------------------------------------------


def test_line_id_formula_and_round_trip_on_every_line_of_the_largest_board() -> None:
    assert line_id(3, 2, 1) == 207
    assert line_id(0, 0, 0) == 0
    ids = set()
    for y in range(50):
        for x in range(50):
            for d in (0, 1):
                if (d == 0 and x == 49) or (d == 1 and y == 49):
                    continue
                lid = line_id(x, y, d)
                assert line_xyd(lid) == (x, y, d)
                ids.add(lid)
    assert len(ids) == 2 * 50 * 49
    assert max(ids) == MAX_LINE_ID


@pytest.mark.parametrize("bad", [-1, MAX_LINE_ID + 1, line_id(49, 0, 0), line_id(0, 49, 1), True, 1.0, "3"])
def test_line_xyd_refuses_what_is_no_line(bad: Any) -> None:
    with pytest.raises(ValueError):
        line_xyd(bad)


@pytest.mark.parametrize(("width", "height"), [(2, 2), (4, 4), (6, 6), (3, 7), (50, 50)])
def test_board_has_every_line_once_and_nothing_else(width: int, height: int) -> None:
    state = new(width, height)
    expected = {
        line_id(x, y, d)
        for x in range(width)
        for y in range(height)
        for d in (0, 1)
        if (x + 1 < width if d == 0 else y + 1 < height)
    }
    legal = GAME.legal_actions(state, 0)
    assert len(legal) == len(expected) == height * (width - 1) + width * (height - 1)
    assert set(legal) == expected
    assert state.remaining == (width - 1) * (height - 1)


# --- board and turns --------------------------------------------------------------------------------------


def test_two_by_two_dots_is_one_box_won_by_the_fourth_side() -> None:
    state = new(2, 2)
    assert [e.for_seat(None) for e in GAME.start_events(state)] == [{"type": "turn", "seat": 0}]
    events = draw(state, (0, 0, 0), (0, 0, 1), (1, 0, 1))
    assert [e["type"] for e in events] == ["line", "turn"] * 3
    assert GAME.to_act(state) == [1]
    events = draw(state, (0, 1, 0))
    assert events == [
        {"type": "line", "seat": 1, "x": 0, "y": 1, "d": 0},
        {"type": "capture", "seat": 1, "x": 0, "y": 0},
        {"type": "game_over", "winners": [1], "scores": [0, 1], "tie": False, "reason": "finished"},
    ]
    assert GAME.outcome(state) == Outcome(winners=[1], scores={0: 0, 1: 1}, reason="finished", tie=False)
    assert GAME.to_act(state) == []
    assert GAME.legal_actions(state, 0) == GAME.legal_actions(state, 1) == []


def test_players_take_turns_in_join_order() -> None:
    state = new(6, 6, players=3)
    events = draw(state, (0, 0, 0), (2, 0, 0), (4, 0, 0), (0, 5, 0))
    assert [e["seat"] for e in events if e["type"] == "turn"] == [1, 2, 0, 1]
    assert [e["seat"] for e in events if e["type"] == "line"] == [0, 1, 2, 0]


def test_capture_gives_another_move_and_no_turn_event() -> None:
    state = new(3, 2)
    draw(state, (0, 0, 0), (0, 1, 0), (0, 0, 1))  # seats 0, 1, 0; box (0, 0) has three sides
    assert GAME.to_act(state) == [1]
    events = draw(state, (1, 0, 1))
    assert events == [
        {"type": "line", "seat": 1, "x": 1, "y": 0, "d": 1},
        {"type": "capture", "seat": 1, "x": 0, "y": 0},
    ]
    assert GAME.to_act(state) == [1]
    assert GAME.legal_actions(state, 0) == []
    assert sorted(GAME.legal_actions(state, 1)) == sorted(
        line_id(*ln) for ln in [(1, 0, 0), (1, 1, 0), (2, 0, 1)]
    )
    assert [e["type"] for e in draw(state, (1, 0, 0))] == ["line", "turn"]
    assert GAME.to_act(state) == [0]


@pytest.mark.parametrize(
    ("line", "first", "second"),
    [((1, 1, 0), (1, 1), (1, 0)), ((1, 1, 1), (1, 1), (0, 1))],
)
def test_one_line_may_capture_two_boxes_reporting_its_own_box_first(
    line: Line, first: tuple[int, int], second: tuple[int, int]
) -> None:
    state = new(4, 4)
    sides = {ln for box in (first, second) for ln in box_lines(*box)} - {line}
    for x, y, d in sorted(sides):
        (seat,) = GAME.to_act(state)
        GAME.apply(state, seat, line_id(x, y, d))
    (seat,) = GAME.to_act(state)
    events = [e.for_seat(None) for e in GAME.apply(state, seat, line_id(*line))]
    assert events == [
        {"type": "line", "seat": seat, "x": line[0], "y": line[1], "d": line[2]},
        {"type": "capture", "seat": seat, "x": first[0], "y": first[1]},
        {"type": "capture", "seat": seat, "x": second[0], "y": second[1]},
    ]
    assert state.scores[seat] == 2
    assert GAME.to_act(state) == [seat]


def test_edge_lines_complete_only_the_box_on_the_board() -> None:
    state = new(3, 3)
    draw(state, (0, 0, 1), (0, 1, 0), (1, 0, 1))
    events = draw(state, (0, 0, 0))
    assert [e for e in events if e["type"] == "capture"] == [{"type": "capture", "seat": 1, "x": 0, "y": 0}]


def test_most_boxes_wins_when_every_box_is_taken() -> None:
    state = new(3, 2)
    # Both boxes get three sides, then the seat on turn takes both with the middle line.
    draw(state, (0, 0, 0), (0, 1, 0), (0, 0, 1), (1, 0, 0), (1, 1, 0), (2, 0, 1))
    assert state.sides == [3, 3]
    (seat,) = GAME.to_act(state)
    events = draw(state, (1, 0, 1))
    assert events[-1] == {
        "type": "game_over",
        "winners": [seat],
        "scores": [2, 0] if seat == 0 else [0, 2],
        "tie": False,
        "reason": "finished",
    }


def test_equal_most_is_a_tie_with_every_tied_seat_a_winner() -> None:
    state = new(3, 2)
    draw(state, (0, 0, 0), (0, 1, 0), (1, 0, 0), (0, 0, 1))  # box (0, 0) has three sides; seat 0 on turn
    draw(state, (1, 0, 1))  # seat 0 takes it and moves again; box (1, 0) now has two sides
    draw(state, (1, 1, 0))  # seat 0 must give box (1, 0) its third side
    events = draw(state, (2, 0, 1))
    assert events[1:] == [
        {"type": "capture", "seat": 1, "x": 1, "y": 0},
        {"type": "game_over", "winners": [0, 1], "scores": [1, 1], "tie": True, "reason": "finished"},
    ]
    assert GAME.outcome(state) == Outcome(winners=[0, 1], scores={0: 1, 1: 1}, reason="finished", tie=True)
    assert GAME.view(state, None)["tie"] is True


def test_a_three_way_game_can_tie_between_two_seats_only() -> None:
    state = new(3, 2, players=3)
    draw(state, (0, 0, 0), (0, 1, 0), (0, 0, 1))  # seats 0, 1, 2; seat 0 on turn, box (0, 0) has 3 sides
    draw(state, (1, 0, 1), (1, 0, 0), (1, 1, 0))  # seat 0 takes it; seats 0 and 1 leave the other to seat 2
    events = draw(state, (2, 0, 1))
    assert events[-1]["winners"] == [0, 2]
    assert events[-1]["scores"] == [1, 0, 1]
    assert events[-1]["tie"] is True


# --- leaving, timeouts ------------------------------------------------------------------------------------


def test_leaving_on_turn_passes_the_turn_and_removes_the_seat_from_the_rotation() -> None:
    state = new(6, 6, players=3)
    draw(state, (0, 0, 0))
    assert GAME.to_act(state) == [1]
    assert [e.for_seat(None) for e in GAME.on_leave(state, 1)] == [
        {"type": "left", "seat": 1, "boxes": 0},
        {"type": "turn", "seat": 2},
    ]
    events = draw(state, (2, 0, 0), (4, 0, 0), (0, 5, 0))
    assert [e["seat"] for e in events if e["type"] == "turn"] == [0, 2, 0]
    assert GAME.view(state, None)["active"] == [0, 2]
    assert GAME.legal_actions(state, 1) == []


def test_leaving_off_turn_changes_only_the_rotation() -> None:
    state = new(6, 6, players=4)
    assert GAME.on_leave(state, 2) == [Event("left", {"seat": 2, "boxes": 0})]
    assert GAME.on_leave(state, 2) == []  # leaving twice is harmless
    assert GAME.on_leave(state, 7) == []  # so is a seat that never played
    events = draw(state, (0, 0, 0), (2, 0, 0), (4, 0, 0))
    assert [e["seat"] for e in events if e["type"] == "turn"] == [1, 3, 0]


def test_departed_seats_keep_their_boxes_but_cannot_win() -> None:
    state = new(3, 2, players=3)
    draw(state, (0, 0, 0), (0, 1, 0), (0, 0, 1), (2, 0, 1))  # seats 0, 1, 2, 0; seat 1 on turn
    draw(state, (1, 0, 1))  # seat 1 takes box (0, 0) and must move again
    assert [e.for_seat(None) for e in GAME.on_leave(state, 1)] == [
        {"type": "left", "seat": 1, "boxes": 1},
        {"type": "turn", "seat": 2},
    ]
    left = {"type": "left", "seat": 1, "boxes": 1}
    assert GAME.describe_event(left, ["A", "B", "C"]) == "B left; their box stays"
    assert GAME.view(state, None)["captures"] == [[0, 0, 1]]
    draw(state, (1, 0, 0))  # seat 2 gives box (1, 0) its third side
    events = draw(state, (1, 1, 0))  # seat 0 takes it: 1 box, as many as departed seat 1
    assert events[-1] == {
        "type": "game_over",
        "winners": [0],
        "scores": [1, 1, 0],
        "tie": False,
        "reason": "finished",
    }


def test_the_last_player_left_wins_whatever_the_score() -> None:
    state = new(3, 2)
    draw(state, (0, 0, 0), (0, 1, 0), (0, 0, 1), (1, 0, 1))  # seat 1 takes a box
    events = [e.for_seat(None) for e in GAME.on_leave(state, 1)]
    assert events == [
        {"type": "left", "seat": 1, "boxes": 1},
        {"type": "game_over", "winners": [0], "scores": [0, 1], "tie": False, "reason": "last_player"},
    ]
    assert GAME.outcome(state) == Outcome(winners=[0], scores={0: 0, 1: 1}, reason="last_player", tie=False)
    assert GAME.to_act(state) == []
    assert GAME.on_leave(state, 0) == []
    view = GAME.view(state, 0)
    assert (view["over"], view["winners"], view["reason"], view["turn"]) == (True, [0], "last_player", None)


def test_three_players_need_two_leavers_to_end_the_game() -> None:
    state = new(4, 4, players=3)
    assert GAME.on_leave(state, 0) == [Event("left", {"seat": 0, "boxes": 0}), Event("turn", {"seat": 1})]
    assert GAME.describe_event({"type": "left", "seat": 0, "boxes": 0}, ["A", "B", "C"]) == "A left"
    assert GAME.outcome(state) is None
    events = GAME.on_leave(state, 2)
    assert events[-1].public["winners"] == [1]
    assert GAME.outcome(state).reason == "last_player"  # type: ignore[union-attr]


def test_timeout_takes_a_box_when_one_is_offered() -> None:
    state = new(4, 4)
    draw(state, (2, 2, 0), (2, 2, 1), (3, 2, 1))  # box (2, 2) has three sides; seat 1 on turn
    assert timeout_line(state) == line_id(2, 3, 0)
    events = [e.for_seat(None) for e in GAME.on_timeout(state, 1)]
    assert events == [
        {"type": "timeout", "seat": 1},  # said first: the line drawn for them read as their own move
        {"type": "line", "seat": 1, "x": 2, "y": 3, "d": 0},
        {"type": "capture", "seat": 1, "x": 2, "y": 2},
    ]
    assert GAME.to_act(state) == [1]
    assert GAME.describe_event(events[0], ["Ada", "Bo"]) == "Bo ran out of time, so the game drew a line"


def test_timeout_draws_the_first_safe_line_else_the_first_free_line() -> None:
    state = new(3, 2)
    assert timeout_line(state) == line_id(0, 0, 0)
    draw(state, (0, 0, 0), (1, 0, 0))  # one side each: a second side is still safe
    assert timeout_line(state) == line_id(0, 0, 1)
    draw(state, (0, 0, 1), (2, 0, 1))  # two sides each: nothing is safe, nothing captures
    assert timeout_line(state) == line_id(1, 0, 1)
    assert [e.type for e in GAME.on_timeout(state, 0)] == ["timeout", "line", "turn"]
    assert state.sides == [3, 3]


def test_timeout_is_refused_for_a_seat_off_the_clock_or_after_the_game() -> None:
    state = new(2, 2)
    before = dots_snapshot(state)
    with pytest.raises(IllegalAction) as err:
        GAME.on_timeout(state, 1)
    assert err.value.code == "not_your_turn"
    assert dots_snapshot(state) == before
    GAME.on_leave(state, 1)
    with pytest.raises(IllegalAction) as err:
        GAME.on_timeout(state, 0)
    assert err.value.code == "game_over"


# --- invalid moves change nothing -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("seat", "action", "code"),
    [
        (1, line_id(0, 0, 1), "not_your_turn"),
        (0, line_id(0, 0, 0), "line_taken"),
        (0, line_id(3, 0, 0), "off_board"),  # (3, 0) -> (4, 0) is past the right edge of 4 dots
        (0, line_id(0, 3, 1), "off_board"),
        (0, line_id(40, 40, 0), "off_board"),
        (0, -1, "off_board"),
        (0, MAX_LINE_ID + 1, "off_board"),
        (0, 10**30, "off_board"),
        (0, True, "bad_action"),
        (0, 1.0, "bad_action"),
        (0, "1", "bad_action"),
        (0, {"type": "line", "x": 0, "y": 0, "d": 1}, "bad_action"),
        (0, None, "bad_action"),
    ],
)
def test_invalid_moves_raise_and_change_nothing(seat: int, action: Any, code: str) -> None:
    state = new(4, 4)
    draw(state, (0, 0, 0), (1, 0, 0))  # seat 0 on turn again
    before = dots_snapshot(state)
    with pytest.raises(IllegalAction) as err:
        GAME.apply(state, seat, action)
    assert err.value.code == code
    assert err.value.message
    assert dots_snapshot(state) == before


def test_no_move_after_the_game_is_over() -> None:
    state = new(2, 2)
    draw(state, (0, 0, 0), (0, 0, 1), (1, 0, 1), (0, 1, 0))
    before = dots_snapshot(state)
    with pytest.raises(IllegalAction) as err:
        GAME.apply(state, 1, line_id(0, 0, 0))
    assert err.value.code == "game_over"
    assert dots_snapshot(state) == before


# --- wire actions -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ({"type": "line", "x": 3, "y": 2, "d": 1}, 207),
        ({"type": "line", "x": 0, "y": 0, "d": 0}, 0),
        ({"type": "line", "x": 48, "y": 49, "d": 0}, line_id(48, 49, 0)),
        ({"type": "line", "line": 207}, 207),
        ({"type": "line", "x": 1, "y": 1, "d": 0, "id": 7}, line_id(1, 1, 0)),
    ],
)
def test_parse_action_accepts_coordinates_or_a_line_id(raw: dict[str, Any], expected: int) -> None:
    assert GAME.parse_action(raw) == expected


@pytest.mark.parametrize(
    ("raw", "code"),
    [
        ({"type": "move", "x": 0, "y": 0, "d": 0}, "bad_action"),
        ({"x": 0, "y": 0, "d": 0}, "bad_action"),
        ({"type": "line", "x": 0, "y": 0}, "bad_action"),
        ({"type": "line", "x": True, "y": 0, "d": 0}, "bad_action"),
        ({"type": "line", "x": 0, "y": 0, "d": False}, "bad_action"),
        ({"type": "line", "x": 1.0, "y": 0, "d": 0}, "bad_action"),
        ({"type": "line", "x": "1", "y": 0, "d": 0}, "bad_action"),
        ({"type": "line", "x": 0, "y": 0, "d": 2}, "bad_action"),
        ({"type": "line", "x": 0, "y": 0, "d": -1}, "bad_action"),
        ({"type": "line", "line": "7"}, "bad_action"),
        ({"type": "line", "line": None}, "bad_action"),
        ({"type": "line", "x": -1, "y": 0, "d": 0}, "off_board"),
        ({"type": "line", "x": 0, "y": 50, "d": 0}, "off_board"),
        ({"type": "line", "x": 49, "y": 0, "d": 0}, "off_board"),
        ({"type": "line", "x": 0, "y": 49, "d": 1}, "off_board"),
        ({"type": "line", "line": -1}, "off_board"),
        ({"type": "line", "line": MAX_LINE_ID + 1}, "off_board"),
        ({"type": "line", "line": line_id(49, 0, 0)}, "off_board"),
    ],
)
def test_parse_action_refuses_malformed_or_impossible_lines(raw: Any, code: str) -> None:
    with pytest.raises(IllegalAction) as err:
        GAME.parse_action(raw)
    assert err.value.code == code


def test_parse_action_refuses_a_non_object() -> None:
    with pytest.raises(IllegalAction) as err:
        GAME.parse_action([1, 2, 0])  # type: ignore[arg-type]
    assert err.value.code == "bad_action"


def test_a_line_past_this_board_parses_but_apply_refuses_it() -> None:
    state = new(4, 4)
    action = GAME.parse_action({"type": "line", "x": 5, "y": 0, "d": 0})
    with pytest.raises(IllegalAction) as err:
        GAME.apply(state, 0, action)
    assert err.value.code == "off_board"


# --- view, events, legal actions --------------------------------------------------------------------------


def test_view_is_the_whole_board_for_everyone_and_legal_moves_for_the_seat_on_turn() -> None:
    state = new(3, 2)
    draw(state, (0, 0, 0), (0, 1, 0), (0, 0, 1), (1, 0, 1))
    view = GAME.view(state, None)
    assert view == {
        "width": 3,
        "height": 2,
        "lines": [[0, 0, 0], [0, 0, 1], [1, 0, 1], [0, 1, 0]],
        "captures": [[0, 0, 1]],
        "scores": [0, 1],
        "players": 2,
        "active": [0, 1],
        "turn": 1,
        "over": False,
        "winners": None,
        "tie": False,
        "reason": None,
    }
    assert GAME.view(state, 0) == {**view, "legal": []}
    free = [(1, 0, 0), (1, 1, 0), (2, 0, 1)]
    assert sorted((m["x"], m["y"], m["d"]) for m in GAME.view(state, 1)["legal"]) == free
    assert all(m["type"] == "line" for m in GAME.view(state, 1)["legal"])
    assert json.loads(json.dumps(GAME.view(state, 1))) == GAME.view(state, 1)


def test_view_is_a_copy() -> None:
    state = new(3, 2)
    view = GAME.view(state, 0)
    view["scores"].append(9)
    view["active"].clear()
    assert GAME.view(state, 0)["scores"] == [0, 0]
    assert GAME.view(state, 0)["active"] == [0, 1]


def test_legal_actions_is_a_copy_and_only_for_the_seat_on_turn() -> None:
    state = new(3, 3)
    legal = GAME.legal_actions(state, 0)
    legal.clear()
    assert len(GAME.legal_actions(state, 0)) == 12
    assert GAME.legal_actions(state, 1) == []
    assert GAME.legal_actions(state, 5) == []


def test_events_are_read_only_but_copy_and_pickle_as_plain_events() -> None:
    state = new(3, 3)
    (event, turn) = GAME.apply(state, 0, line_id(0, 0, 0))
    with pytest.raises(TypeError):
        event.public["seat"] = 5
    with pytest.raises(TypeError):
        event.public.update(seat=5)
    with pytest.raises(TypeError):
        event.private[0] = {}
    assert event.for_seat(0) == event.for_seat(None) == {"type": "line", "seat": 0, "x": 0, "y": 0, "d": 0}
    assert copy.deepcopy(event) == event
    assert pickle.loads(pickle.dumps(turn)) == turn == Event("turn", {"seat": 1})
    assert json.dumps(event.public) == '{"seat": 0, "x": 0, "y": 0, "d": 0}'


def test_events_are_shared_on_small_boards_only() -> None:
    """Caching every event of a 50×50 board for 8 seats would hold tens of thousands of objects."""
    small = [GAME.apply(new(4, 4), 0, 0)[0] for _ in range(2)]
    big = [GAME.apply(new(30, 30), 0, 0)[0] for _ in range(2)]
    assert small[0] is small[1]
    assert big[0] is not big[1] and big[0] == big[1]
    with pytest.raises(TypeError):
        big[0].public["x"] = 1


def test_board_tables_are_bounded_and_games_outlive_their_eviction() -> None:
    state = new(2, 2)
    for width in range(3, 51):
        for height in (2, 3):
            new(width, height)
    assert len(dots._BOARDS) <= dots._MAX_BOARDS
    draw(state, (0, 0, 0), (0, 0, 1), (1, 0, 1), (0, 1, 0))
    assert GAME.outcome(state) is not None


def test_fifty_by_fifty_board_plays_to_the_end() -> None:
    state = new(50, 50, players=3)
    assert len(GAME.legal_actions(state, 0)) == 4900
    rng = random.Random(7)
    moves = 0
    while GAME.outcome(state) is None:
        (seat,) = GAME.to_act(state)
        GAME.apply(state, seat, rng.choice(GAME.legal_actions(state, seat)))
        moves += 1
    assert moves == 4900
    assert sum(state.scores) == 49 * 49
    view = GAME.view(state, None)
    assert len(view["lines"]) == 4900
    assert len(view["captures"]) == 49 * 49


def test_agrees_with_openspiel_on_turns_and_result() -> None:
    """OpenSpiel's C++ dots_and_boxes is an independent reference for the same rules (2 players)."""
    pyspiel = pytest.importorskip("pyspiel")
    rng = random.Random(3)
    for width, height in [(2, 2), (4, 4), (5, 3), (6, 6)]:
        game = pyspiel.load_game(f"dots_and_boxes(num_rows={height - 1},num_cols={width - 1})")
        for _ in range(30):
            ref = game.new_initial_state()
            state = new(width, height)
            while not ref.is_terminal():
                assert GAME.to_act(state) == [ref.current_player()]
                x, y, d = line_xyd(rng.choice(GAME.legal_actions(state, state.turn)))
                ref_action = y * (width - 1) + x if d == 0 else height * (width - 1) + y * width + x
                assert ref_action in ref.legal_actions()
                ref.apply_action(ref_action)
                GAME.apply(state, state.turn, line_id(x, y, d))
            outcome = GAME.outcome(state)
            assert outcome is not None
            returns = ref.returns()
            expected = [0, 1] if returns[0] == 0 else [0] if returns[0] > 0 else [1]
            assert outcome.winners == expected
