"""Connect Four: two players drop discs into the columns of an upright board; four in a row wins.

The whole game in one module, as the ``Game`` contract (``parlour.games.base``) asks: nothing outside
this file, its bots (``parlour/bots/connect_four.py``) and its table (``parlour/web/connect_four.js``)
knows these rules.

Coordinates: column 0 is the left, row 0 the bottom. The room's ``opener`` drops first
(seat 0 in a room's first game, then round the table from game to game).

Wire actions (``parse_action``)
    ``{"type": "drop", "column": int}``; the engine action is the column number.
Refusals (``IllegalAction.code``)
    bad_action (malformed), off_board (no such column), column_full, not_your_turn, game_over.
Events (all public)
    ``drop`` {seat, column, row}; ``turn`` {seat}; ``game_over`` {winners, tie, reason, line}, the
    reason "four_in_a_row", "board_full" (a tie) or "opponent_left", ``line`` the winning cells.
View (the same for every seat and spectators, but for ``legal``)
    width, height, cells (rows from the top, each cell a seat or None), turn (None once over),
    last ([column, row] of the latest disc), over, winners, tie, reason, line; a seat's view adds
    ``legal``, its wire actions (a drop per open column for the seat on turn, else none).

Leaving hands the game to the other player; running out of time drops a disc for the seat on the
clock in the free column nearest the middle.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from parlour.games.base import (
    TURN_TIMER,
    Event,
    IllegalAction,
    InvalidSettings,
    Outcome,
    SchemaSettings,
    Setting,
    clone_rng,
    number,
    seats,
)

MAX_SIDE = 10
DIRECTIONS = ((1, 0), (0, 1), (1, 1), (1, -1))


@dataclass(frozen=True, slots=True)
class Settings:
    """The board's size (the classic 7 × 6 by default) and the turn clock."""

    width: int = 7
    height: int = 6
    turn_timer: int = 0
    max_players: int = 2


SCHEMA: tuple[Setting, ...] = (
    number("width", "Columns", 7, 4, MAX_SIDE),
    number("height", "Rows", 6, 4, MAX_SIDE),
    TURN_TIMER,
    seats(2, 2, 2),
)


@dataclass(slots=True)
class State:
    """The board as columns of seats, bottom first; mutated only by the engine."""

    settings: Settings
    rng: random.Random
    columns: list[list[int]]
    turn: int = 0
    last: tuple[int, int] | None = None
    result: Outcome | None = None
    line: list[list[int]] | None = None


def _four(state: State, column: int, row: int) -> list[list[int]] | None:
    """The cells of a line of four or more through (column, row) held by one seat, if there is one."""
    seat = state.columns[column][row]

    def owner(c: int, r: int) -> int | None:
        if 0 <= c < len(state.columns) and 0 <= r < len(state.columns[c]):
            return state.columns[c][r]
        return None

    for dc, dr in DIRECTIONS:
        cells = [[column, row]]
        for sign in (1, -1):
            c, r = column + sign * dc, row + sign * dr
            while owner(c, r) == seat:
                cells.append([c, r])
                c, r = c + sign * dc, r + sign * dr
        if len(cells) >= 4:
            return sorted(cells)
    return None


def _middle_first(width: int) -> list[int]:
    return sorted(range(width), key=lambda c: (abs(2 * c - (width - 1)), c))


class ConnectFour(SchemaSettings):
    """The Connect Four engine (see the module docstring)."""

    name = "connect_four"
    title = "Connect Four"
    how_to_play = (
        "Take turns dropping a disc into a column; it falls to the lowest free space. Get four of your "
        "discs in a row — across, up or diagonally — to win. A full board with no row of four is a tie. "
        "The first move passes to the other player from game to game."
    )
    leave_rule = "The other player wins the game."
    end_reasons = (
        ("four_in_a_row", "Four in a row."),
        ("board_full", "The board is full."),
        ("opponent_left", "The other player left."),
    )
    min_players = 2
    max_players = 2
    settings_schema = SCHEMA
    settings_type = Settings
    score_label = "wins"
    scores_add_up = False
    secret_fields: tuple[str, ...] = ()  # nothing is hidden
    revealing_events: tuple[str, ...] = ()
    has_catches = False
    stat_labels: tuple[tuple[str, str], ...] = (("discs", "Discs dropped"),)
    stat_rates: tuple[tuple[str, str, str, str], ...] = ()

    def setup(self, settings: Settings, players: int, rng: random.Random, opener: int = 0) -> State:
        """An empty board; ``opener`` drops first."""
        if type(players) is not int or players != 2:
            raise InvalidSettings("Connect Four is for 2 players")
        if type(opener) is not int or not 0 <= opener < players:
            raise InvalidSettings(f"no seat {opener} to open the game")
        return State(settings, rng, [[] for _ in range(settings.width)], opener)

    def start_events(self, state: State) -> list[Event]:
        return [Event("turn", {"seat": state.turn})]

    def parse_action(self, raw: dict[str, Any]) -> int:
        if not isinstance(raw, dict) or raw.get("type") != "drop":
            raise IllegalAction("bad_action", 'expected {"type": "drop", "column": int}')
        column = raw.get("column")
        if type(column) is not int:
            raise IllegalAction("bad_action", "column must be an integer")
        if not 0 <= column < MAX_SIDE:
            raise IllegalAction("off_board", f"there is no column {column}")
        return column

    def format_action(self, action: int) -> dict[str, Any]:
        return {"type": "drop", "column": action}

    def legal_actions(self, state: State, seat: int) -> list[int]:
        if state.result is not None or seat != state.turn:
            return []
        height = state.settings.height
        return [c for c, discs in enumerate(state.columns) if len(discs) < height]

    def apply(self, state: State, seat: int, action: int) -> list[Event]:
        if state.result is not None:
            raise IllegalAction("game_over", "the game is over")
        if seat != state.turn:
            raise IllegalAction("not_your_turn", "it is not your turn")
        if type(action) is not int:
            raise IllegalAction("bad_action", "a move is a column number")
        if not 0 <= action < len(state.columns):
            raise IllegalAction("off_board", f"there is no column {action}")
        if len(state.columns[action]) >= state.settings.height:
            raise IllegalAction("column_full", "that column is full")
        return self._drop(state, seat, action)

    def _drop(self, state: State, seat: int, column: int) -> list[Event]:
        discs = state.columns[column]
        discs.append(seat)
        row = len(discs) - 1
        state.last = (column, row)
        events = [Event("drop", {"seat": seat, "column": column, "row": row})]
        line = _four(state, column, row)
        if line is not None:
            state.line = line
            events.append(self._finish(state, [seat], "four_in_a_row"))
        elif all(len(d) >= state.settings.height for d in state.columns):
            events.append(self._finish(state, [0, 1], "board_full"))
        else:
            state.turn = 1 - seat
            events.append(Event("turn", {"seat": state.turn}))
        return events

    def _finish(self, state: State, winners: list[int], reason: str) -> Event:
        tie = len(winners) > 1
        state.result = Outcome(winners, {s: int(s in winners and not tie) for s in (0, 1)}, reason, tie)
        return Event(
            "game_over", {"winners": list(winners), "tie": tie, "reason": reason, "line": state.line or []}
        )

    def pause(self, state: State) -> int:
        return 0  # no rests: the game goes on move by move

    def to_act(self, state: State) -> list[int]:
        return [] if state.result is not None else [state.turn]

    def view(self, state: State, seat: int | None) -> dict[str, Any]:
        return {**self.public_view(state), **self.seat_view(state, seat)}

    def public_view(self, state: State) -> dict[str, Any]:
        width, height = state.settings.width, state.settings.height
        result = state.result
        cells: list[list[int | None]] = [
            [discs[row] if row < len(discs) else None for discs in state.columns]
            for row in range(height - 1, -1, -1)
        ]
        return {
            "width": width,
            "height": height,
            "cells": cells,
            "turn": None if result is not None else state.turn,
            "last": None if state.last is None else list(state.last),
            "over": result is not None,
            "winners": None if result is None else list(result.winners),
            "tie": False if result is None else result.tie,
            "reason": None if result is None else result.reason,
            "line": state.line or [],
        }

    def seat_view(self, state: State, seat: int | None) -> dict[str, Any]:
        """A seat's wire actions (``legal``); spectators get none."""
        if seat is None:
            return {}
        return {"legal": [self.format_action(c) for c in self.legal_actions(state, seat)]}

    def on_leave(self, state: State, seat: int) -> list[Event]:
        if state.result is not None or seat not in (0, 1):
            return []
        return [self._finish(state, [1 - seat], "opponent_left")]

    def on_timeout(self, state: State, seat: int) -> list[Event]:
        if state.result is not None:
            raise IllegalAction("game_over", "the game is over")
        if seat != state.turn:
            raise IllegalAction("not_your_turn", "it is not this seat's turn")
        free = self.legal_actions(state, seat)
        column = next(c for c in _middle_first(len(state.columns)) if c in free)
        return [Event("timeout", {"seat": seat}), *self._drop(state, seat, column)]

    def outcome(self, state: State) -> Outcome | None:
        return state.result

    def player_stats(self, state: State, outcome: Outcome, seat: int) -> dict[str, int]:
        return {"discs": sum(column.count(seat) for column in state.columns)}

    def clone(self, state: State) -> State:
        result = state.result
        if result is not None:
            result = Outcome(list(result.winners), dict(result.scores), result.reason, result.tie)
        line = None if state.line is None else [cell.copy() for cell in state.line]
        columns = [discs.copy() for discs in state.columns]
        return State(state.settings, clone_rng(state.rng), columns, state.turn, state.last, result, line)

    def slip_target(self, action: Any) -> int | None:
        return None  # nothing to catch anyone out on

    def describe_event(self, event: dict[str, Any], names: Sequence[str]) -> str | None:
        kind = event["type"]
        if kind == "drop":
            return f"{names[event['seat']]} dropped a disc in column {event['column'] + 1}"
        if kind == "timeout":
            return f"{names[event['seat']]} ran out of time"
        if kind == "game_over":
            if event["tie"]:
                return "The board is full: a tie"
            winner = names[event["winners"][0]]
            left = event["reason"] == "opponent_left"
            return f"{winner} wins" + (" (the opponent left)" if left else " with four in a row")
        return None


GAME = ConnectFour()
