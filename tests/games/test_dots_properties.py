"""Dots & Boxes invariants over thousands of random games, checked after every action against an
independent oracle (box completeness recomputed from the drawn lines), plus exact replay."""

from __future__ import annotations

import random
from typing import Any

from fingerprints import dots_snapshot
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from parlour.games.base import IllegalAction
from parlour.games.dots import GAME, MAX_LINE_ID, State, line_id, line_xyd

Op = tuple[str, int, int]  # ("line" | "leave" | "timeout", seat, line id or 0)


def board_lines(width: int, height: int) -> set[int]:
    return {
        line_id(x, y, d)
        for x in range(width)
        for y in range(height)
        for d in (0, 1)
        if (x + 1 < width if d == 0 else y + 1 < height)
    }


def box_sides(x: int, y: int) -> tuple[int, ...]:
    return (line_id(x, y, 0), line_id(x, y, 1), line_id(x + 1, y, 1), line_id(x, y + 1, 0))


def clone(state: State) -> State:
    """A copy sharing only the read-only board tables (the engine's own: a compiled ``State`` has no
    ``__slots__`` to copy field by field)."""
    return GAME.clone(state)


class Checker:
    """Holds the oracle's view of one game and checks the engine against it after every step."""

    def __init__(self, width: int, height: int, players: int, full: bool) -> None:
        self.width, self.height, self.players, self.full = width, height, players, full
        self.lines = board_lines(width, height)
        self.boxes = [(x, y) for y in range(height - 1) for x in range(width - 1)]
        self.line_boxes: dict[int, list[tuple[int, int]]] = {lid: [] for lid in self.lines}
        for x, y in self.boxes:
            for side in box_sides(x, y):
                self.line_boxes[side].append((x, y))
        self.drawn: set[int] = set()
        self.owner: dict[tuple[int, int], int] = {}

    def after_line(self, state: State, seat: int, lid: int, events: list[dict[str, Any]], turn: int) -> None:
        """Events of one drawn line: the line, its captures (own box first), then turn or game_over."""
        x, y, d = line_xyd(lid)
        assert events[0] == {"type": "line", "seat": seat, "x": x, "y": y, "d": d}
        assert lid not in self.drawn
        self.drawn.add(lid)
        new = {box for box in self.line_boxes[lid] if all(s in self.drawn for s in box_sides(*box))}
        captures = [(e["x"], e["y"]) for e in events if e["type"] == "capture"]
        assert set(captures) == new and len(captures) == len(new) <= 2
        if len(captures) == 2:
            assert captures[0] == (x, y)
        assert all(e["seat"] == seat for e in events if e["type"] == "capture")
        for box in captures:
            self.owner[box] = seat
        kinds = [e["type"] for e in events]
        assert kinds[: 1 + len(captures)] == ["line"] + ["capture"] * len(captures)
        tail = kinds[1 + len(captures) :]
        if GAME.outcome(state) is not None:
            assert tail == ["game_over"]
        elif captures:
            assert tail == [] and state.turn == seat
        else:
            assert tail == ["turn"] and events[-1]["seat"] == state.turn == turn

    def invariants(self, state: State) -> None:
        total = len(self.boxes)
        view = GAME.view(state, None)
        captures = view["captures"]
        assert len(captures) + state.remaining == total
        assert sum(view["scores"]) == len(captures)
        assert {(x, y): s for x, y, s in captures} == self.owner
        for seat in range(self.players):
            assert view["scores"][seat] == sum(1 for s in self.owner.values() if s == seat)
        outcome = GAME.outcome(state)
        acting = [s for s in range(-1, self.players + 1) if GAME.legal_actions(state, s)]
        if outcome is None:
            assert GAME.to_act(state) == [state.turn] == acting
            assert state.turn in state.active and len(state.active) >= 2
            assert set(GAME.legal_actions(state, state.turn)) == self.lines - self.drawn
            assert view["turn"] == state.turn and not view["over"]
        else:
            assert GAME.to_act(state) == [] and acting == []
            assert outcome.winners and set(outcome.winners) <= set(state.active)
            assert outcome.scores == dict(enumerate(view["scores"]))
            assert outcome.tie == (len(outcome.winners) > 1)
            if outcome.reason == "finished":
                assert state.remaining == 0
                best = max(view["scores"][s] for s in state.active)
                assert outcome.winners == [s for s in state.active if view["scores"][s] == best]
            else:
                assert outcome.reason == "last_player" and outcome.winners == state.active
        if self.full:
            assert view["lines"] == [list(line_xyd(lid)) for lid in sorted(self.drawn)]
            for b, (x, y) in enumerate(self.boxes):
                assert state.sides[b] == sum(s in self.drawn for s in box_sides(x, y))

    def illegal(self, state: State, rng: random.Random) -> None:
        """A sample of refused moves: each raises its code and leaves the state as it was."""
        before = dots_snapshot(state)
        over = GAME.outcome(state) is not None
        turn = state.turn
        free = GAME.legal_actions(state, turn)
        other = rng.choice([s for s in range(self.players) if s != turn])
        tries: list[tuple[int, Any, str]] = [
            (other, rng.choice(free) if free else 0, "not_your_turn"),
            (
                turn,
                rng.choice(
                    [-1, MAX_LINE_ID + 1, line_id(self.width - 1, 0, 0), line_id(0, self.height - 1, 1)]
                ),
                "off_board",
            ),
            (turn, rng.choice([True, 1.5, "3", None, [0]]), "bad_action"),
        ]
        if self.drawn:
            tries.append((turn, rng.choice(sorted(self.drawn)), "line_taken"))
        for seat, action, code in tries:
            try:
                GAME.apply(state, seat, action)
            except IllegalAction as err:
                assert err.code == ("game_over" if over else code)
            else:
                raise AssertionError(f"{action!r} by {seat} was accepted")
        assert dots_snapshot(state) == before

    def every_legal_action_applies(self, state: State) -> None:
        turn = state.turn
        for action in GAME.legal_actions(state, turn):
            GAME.apply(clone(state), turn, action)


def play(
    width: int, height: int, players: int, seed: int, leave_rate: float, timeout_rate: float, full: bool
) -> tuple[State, list[Op], list[list[dict[str, Any]]]]:
    """One random game, checked after every step; returns the state, its log and its events."""
    rng = random.Random(seed)
    state = GAME.setup(GAME.settings({"width": width, "height": height}), players, random.Random(seed))
    check = Checker(width, height, players, full)
    log: list[Op] = []
    history = [[e.for_seat(None) for e in GAME.start_events(state)]]
    assert history == [[{"type": "turn", "seat": 0}]]
    while GAME.outcome(state) is None:
        assert len(check.drawn) < len(check.lines), "every game ends once every line is drawn"
        roll = rng.random()
        seat = state.turn
        if roll < leave_rate:
            leaver = rng.randrange(players)
            was_active = leaver in state.active
            was_turn = leaver == seat and was_active
            said = [{"type": "left", "seat": leaver, "boxes": state.scores[leaver]}] if was_active else []
            events = [e.for_seat(None) for e in GAME.on_leave(state, leaver)]
            log.append(("leave", leaver, 0))
            if GAME.outcome(state) is not None:
                assert events[:-1] == said and events[-1]["type"] == "game_over"
            elif was_turn:
                assert events == [*said, {"type": "turn", "seat": state.turn}] and state.turn != leaver
            else:
                assert events == said and state.turn == seat
            assert leaver not in state.active
        else:
            if full and rng.random() < 0.1:
                check.every_legal_action_applies(state)
            expected_next = state.next_seat[seat]
            if roll < leave_rate + timeout_rate:
                raw_events = GAME.on_timeout(state, seat)
                log.append(("timeout", seat, 0))
                assert raw_events[0].public == {"seat": seat} and raw_events[0].type == "timeout"
            else:
                action = rng.choice(GAME.legal_actions(state, seat))
                raw_events = GAME.apply(state, seat, action)
                log.append(("line", seat, action))
            events = [e.for_seat(None) for e in raw_events]
            drawn = events[1:] if events[0]["type"] == "timeout" else events  # then a move's events
            lid = line_id(drawn[0]["x"], drawn[0]["y"], drawn[0]["d"])
            check.after_line(state, seat, lid, drawn, expected_next)
        history.append(events)
        if full or rng.random() < 0.02:
            check.invariants(state)
            check.illegal(state, rng)
    check.full = True
    check.invariants(state)
    check.illegal(state, rng)
    return state, log, history


def replay(width: int, height: int, players: int, seed: int, log: list[Op]) -> tuple[State, list[Any]]:
    state = GAME.setup(GAME.settings({"width": width, "height": height}), players, random.Random(seed))
    history = [[e.for_seat(None) for e in GAME.start_events(state)]]
    for kind, seat, action in log:
        if kind == "line":
            events = GAME.apply(state, seat, action)
        elif kind == "timeout":
            events = GAME.on_timeout(state, seat)
        else:
            events = GAME.on_leave(state, seat)
        history.append([e.for_seat(None) for e in events])
    return state, history


rates = st.sampled_from([0.0, 0.0, 0.01, 0.05])
timeouts = st.sampled_from([0.0, 0.0, 0.1, 0.5, 1.0])


@settings(max_examples=2500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    width=st.integers(2, 8),
    height=st.integers(2, 8),
    players=st.integers(2, 6),
    seed=st.integers(0, 2**32 - 1),
    leave_rate=rates,
    timeout_rate=timeouts,
)
def test_random_games_keep_every_invariant_and_replay_exactly(
    width: int, height: int, players: int, seed: int, leave_rate: float, timeout_rate: float
) -> None:
    full = width * height <= 25
    state, log, history = play(width, height, players, seed, leave_rate, timeout_rate, full)
    again, history_again = replay(width, height, players, seed, log)
    assert dots_snapshot(again) == dots_snapshot(state)
    assert history_again == history
    assert GAME.view(again, None) == GAME.view(state, None)


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    size=st.sampled_from([(50, 50), (50, 2), (2, 50), (31, 17), (20, 20)]),
    players=st.integers(2, 6),
    seed=st.integers(0, 2**32 - 1),
    leave_rate=st.sampled_from([0.0, 0.001]),
)
def test_big_boards_play_to_the_end(
    size: tuple[int, int], players: int, seed: int, leave_rate: float
) -> None:
    width, height = size
    state, log, _ = play(width, height, players, seed, leave_rate, 0.05, full=False)
    again, _ = replay(width, height, players, seed, log)
    assert dots_snapshot(again) == dots_snapshot(state)
