"""Dots & Boxes, as ``/work/shared/rules/dots.md`` and the seeds' protocol describe it.

Coordinates follow the seeds' protocol: dot (x, y) with x growing right and y growing down;
line (x, y, d) runs from dot (x, y) to (x+1, y) when d=0 and to (x, y+1) when d=1; box (x, y)
is the square whose top-left dot is (x, y).

The engine action is a line id, an int that does not depend on the board size, so a wire
move can be parsed without the board::

    line_id(x, y, d) = y * 100 + x * 2 + d        (x, y in 0..49, d in {0, 1})

so line (3, 2, 1) is 207 (``line_xyd`` inverts it). Box (x, y) is captured by the line that
draws its fourth side; a line completing two boxes reports box (x, y) first.

Wire actions (``parse_action``)
    ``{"type": "line", "x": int, "y": int, "d": 0|1}`` or ``{"type": "line", "line": id}``.
Refusals (``IllegalAction.code``)
    bad_action (malformed, non-int, bool), off_board, line_taken, not_your_turn, game_over.
Events (all public)
    ``line`` {seat, x, y, d}; ``capture`` {seat, x, y}, one per box, right after its line;
    ``turn`` {seat}, only when the turn passes (never after a capture);
    ``left`` {seat, boxes} when a seat leaves the game (its boxes stay), before the turn passes on;
    ``timeout`` {seat} before the line drawn for a seat whose clock ran out;
    ``game_over`` {winners, scores, tie, reason} with reason "finished" or "last_player".
View (the same for every seat and spectators, but for ``legal``)
    width, height, lines [[x, y, d]...], captures [[x, y, seat]...], scores (list by seat),
    players, active (seats still playing), turn (None once over), over, winners, tie, reason;
    a seat's view adds ``legal``, its wire actions (every free line for the seat on turn, else none).

Leaving removes a seat from the rotation (its boxes stay on the board and in ``scores``, but only
seats still playing can win); with one seat left it wins ("last_player"). A timeout draws for the
seat on the clock (see ``on_timeout``).

Random playouts are the hot path (bots, benchmarks), hence the shape of the state: per-size tables
shared by every game of that size, a side counter per box, and a list of free line ids with O(1)
swap-removal that doubles as ``legal_actions``.

``line``, ``capture`` and ``turn`` events are cached per board size (up to 13×13 dots) and shared
between games, so they are read-only: their ``public`` and ``private`` dicts raise TypeError on
mutation (copy them, as ``Event.for_seat`` does, to add fields). Building them afresh would cost a
third of a playout.

``./serve`` and ``./test`` compile this file with mypyc (``scripts/compile_engines.py``), which checks
annotated types at run time: parameters that may carry unchecked input (``apply``'s seat and action,
``parse_action``, ``setup``'s player count, ``line_xyd``) are ``Any``, so a wrong type is refused as
the source refuses it, never with a ``TypeError``.
"""

from __future__ import annotations

import random
from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from parlour.games.base import (
    TURN_TIMER,
    Event,
    IllegalAction,
    InvalidSettings,
    Outcome,
    ReadOnlyDict,
    SchemaSettings,
    Setting,
    clone_rng,
    number,
    seats,
    shared_event,
)

MIN_DOTS = 2
MAX_DOTS = 50
_STRIDE = 2 * MAX_DOTS  # line ids per row of dots
MAX_LINE_ID = (MAX_DOTS - 1) * _STRIDE + (MAX_DOTS - 2) * 2  # line (48, 49, 0)

_MAX_SEATS = 8
_NOT_ON_BOARD = -2
_DRAWN = -1
# Memory bounds for what is shared between games: how many board sizes stay cached (a game keeps its
# own board alive), and the largest board (in lines) whose events are cached too. A fully cached 50×50
# board would hold 39,200 events; boards that big are not the hot path.
_MAX_BOARDS = 64
_MAX_CACHED_LINES = 312  # 13×13 dots


def line_id(x: int, y: int, d: int) -> int:
    """The id of line (x, y, d); the inverse of ``line_xyd``."""
    return y * _STRIDE + x * 2 + d


def line_xyd(lid: Any) -> tuple[int, int, int]:
    """The (x, y, d) of a line id; ValueError if no board of up to 50×50 dots has it."""
    if type(lid) is not int or not 0 <= lid <= MAX_LINE_ID:
        raise ValueError(f"not a line id: {lid!r}")
    y, rest = divmod(lid, _STRIDE)
    x, d = divmod(rest, 2)
    if (d == 0 and x >= MAX_DOTS - 1) or (d == 1 and y >= MAX_DOTS - 1):
        raise ValueError(f"not a line id: {lid!r}")
    return x, y, d


def _wire_action(lid: int) -> dict[str, Any]:
    try:
        x, y, d = line_xyd(lid)
    except ValueError:
        return {}
    return ReadOnlyDict(type="line", x=x, y=y, d=d)


_WIRE = [_wire_action(lid) for lid in range(MAX_LINE_ID + 1)]
"""Every line's wire action (``format_action``) by id, read-only: a line's id is the same on every board,
so one table (about 1 MB) serves every view's ``legal`` without building a dict per free line."""


@dataclass(frozen=True, slots=True)
class Settings:
    """A room's Dots & Boxes settings; sizes count dots, so 4×4 dots is the 3×3-box game."""

    width: int = 4
    height: int = 4
    turn_timer: int = 0
    max_players: int = 2


SCHEMA: tuple[Setting, ...] = (
    number(
        "width",
        "Width (dots)",
        4,
        MIN_DOTS,
        MAX_DOTS,
        help="Dots in each row; the boxes lie between them: 4 × 4 dots make 9 boxes.",
    ),
    number("height", "Height (dots)", 4, MIN_DOTS, MAX_DOTS, help="Dots in each column."),
    TURN_TIMER,
    seats(2, 8, 2),
)


class _Board:
    """Read-only tables for one board size, built once and shared by all its games."""

    __slots__ = (
        "adj",
        "box_xy",
        "boxes",
        "cache_events",
        "capture_events",
        "height",
        "line_events",
        "lines",
        "local",
        "pos0",
        "size",
        "width",
        "xyd",
    )

    def __init__(self, width: int, height: int) -> None:
        self.width = width
        self.height = height
        # Lines in id order, which is also y-major reading order.
        self.lines = [
            line_id(x, y, d)
            for y in range(height)
            for x in range(width)
            for d in (0, 1)
            if (d == 0 and x < width - 1) or (d == 1 and y < height - 1)
        ]
        self.boxes = (width - 1) * (height - 1)
        self.box_xy = [(b % (width - 1), b // (width - 1)) for b in range(self.boxes)]
        self.size = size = self.lines[-1] + 1
        # local[id]: the line's index in ``lines``, or _NOT_ON_BOARD. A game's own arrays are indexed
        # by it, so they stay as small as the board (copying them is most of ``setup``).
        self.local = [_NOT_ON_BOARD] * size
        self.pos0 = list(range(len(self.lines)))
        self.xyd: list[tuple[int, int, int]] = [(-1, -1, -1)] * size
        self.adj: list[tuple[int, ...]] = [()] * size
        for i, lid in enumerate(self.lines):
            x, y, d = line_xyd(lid)
            self.local[lid] = i
            self.xyd[lid] = (x, y, d)
            # Box (x, y) first, then the neighbour across the line, as the rules ask.
            near = [(x, y), (x, y - 1)] if d == 0 else [(x, y), (x - 1, y)]
            self.adj[lid] = tuple(
                by * (width - 1) + bx for bx, by in near if 0 <= bx < width - 1 and 0 <= by < height - 1
            )
        # Filled on first use, [seat][line id] and [seat][box]; left empty on big boards.
        self.cache_events = len(self.lines) <= _MAX_CACHED_LINES
        self.line_events: list[list[Event | None]]
        self.capture_events: list[list[Event | None]]
        if self.cache_events:
            self.line_events = [[None] * size for _ in range(_MAX_SEATS)]
            self.capture_events = [[None] * self.boxes for _ in range(_MAX_SEATS)]
        else:
            self.line_events = [[None] * size] * _MAX_SEATS
            self.capture_events = [[None] * self.boxes] * _MAX_SEATS


_BOARDS: dict[tuple[int, int], _Board] = {}


def _board(width: int, height: int) -> _Board:
    board = _BOARDS.get((width, height))
    if board is None:
        if len(_BOARDS) >= _MAX_BOARDS:
            del _BOARDS[next(iter(_BOARDS))]  # the oldest size
        board = _BOARDS[(width, height)] = _Board(width, height)
    return board


class State:
    """One game in progress. Mutated only by the engine; read it through ``view``."""

    __slots__ = (
        "active",
        "board",
        "drawn",
        "free",
        "next_seat",
        "owner",
        "players",
        "pos",
        "remaining",
        "result",
        "rng",
        "scores",
        "settings",
        "sides",
        "turn",
        "view",
    )

    def __init__(self, settings: Settings, players: int, rng: random.Random) -> None:
        board = _board(settings.width, settings.height)
        self.settings = settings
        self.board = board
        self.rng = rng
        self.players = players
        self.free = board.lines.copy()
        self.pos = board.pos0.copy()
        self.sides = [0] * board.boxes
        self.owner = [-1] * board.boxes
        self.remaining = board.boxes
        self.scores = [0] * players
        self.active = _SEATS[players].copy()
        self.next_seat = _NEXT_SEAT[players].copy()
        self.turn = 0
        self.result: Outcome | None = None
        self.drawn: list[int] = []
        """Line ids in the order they were drawn (``public_view`` catches up from it)."""
        self.view = _BoardView()


class _BoardView:
    """The view's ``lines`` and ``captures``, kept in id order and brought up to date from the lines
    drawn since the last view: rebuilding them from the whole board on every move cost a tenth of a
    room's work per Dots move. Their inner lists are shared between views and never mutated. Tied
    to one ``drawn`` list: a state copied without a fresh view rebuilds its own on first use."""

    __slots__ = ("box_ids", "captures", "line_ids", "lines", "source", "synced")

    def __init__(self) -> None:
        self.source: list[int] | None = None
        self.synced = 0
        self.line_ids: list[int] = []
        self.lines: list[list[int]] = []
        self.box_ids: list[int] = []
        self.captures: list[list[int]] = []

    def sync(self, state: State) -> None:
        board, owner, drawn = state.board, state.owner, state.drawn
        if self.source is not drawn:
            self.source, self.synced = drawn, 0
            self.line_ids, self.lines, self.box_ids, self.captures = [], [], [], []
        line_ids, box_ids = self.line_ids, self.box_ids
        for lid in drawn[self.synced :]:
            k = bisect_left(line_ids, lid)
            line_ids.insert(k, lid)
            self.lines.insert(k, list(board.xyd[lid]))
            for b in board.adj[lid]:
                if owner[b] >= 0:
                    k = bisect_left(box_ids, b)
                    if k == len(box_ids) or box_ids[k] != b:
                        box_ids.insert(k, b)
                        self.captures.insert(k, [*board.box_xy[b], owner[b]])
        self.synced = len(drawn)


def _line_event(board: _Board, seat: int, lid: int) -> Event:
    x, y, d = board.xyd[lid]
    ev = shared_event("line", seat=int(seat), x=x, y=y, d=d)
    if board.cache_events:
        board.line_events[seat][lid] = ev
    return ev


def _capture_event(board: _Board, seat: int, box: int) -> Event:
    x, y = board.box_xy[box]
    ev = shared_event("capture", seat=int(seat), x=x, y=y)
    if board.cache_events:
        board.capture_events[seat][box] = ev
    return ev


_TURN_EVENTS = tuple(shared_event("turn", seat=s) for s in range(_MAX_SEATS))
_SEATS = [list(range(n)) for n in range(_MAX_SEATS + 1)]
_NEXT_SEAT = [[(s + 1) % n for s in range(n)] if n else [] for n in range(_MAX_SEATS + 1)]


def _int_field(raw: dict[str, Any], key: str) -> int:
    value = raw.get(key)
    if type(value) is not int:
        raise IllegalAction("bad_action", f"{key!r} must be an integer")
    return value


class DotsGame(SchemaSettings):
    """The Dots & Boxes engine (see the module docstring for coordinates and ids)."""

    name = "dots"
    title = "Dots & Boxes"
    how_to_play = (
        "Take turns drawing a line between two neighbouring dots. Draw the fourth side of a box to claim "
        "it and move again. When the board is full, most boxes wins. The first move passes round the "
        "table from game to game."
    )
    leave_rule = (
        "A leaver's boxes stay on the board and the others play on without them; if only one player is left, "
        "they win."
    )
    end_reasons = (("last_player", "Everyone else left."),)
    min_players = 2
    max_players = _MAX_SEATS
    settings_schema = SCHEMA
    settings_type = Settings
    score_label = "boxes"
    scores_add_up = False
    secret_fields: tuple[str, ...] = ()  # Dots & Boxes hides nothing
    revealing_events: tuple[str, ...] = ()
    has_catches = False
    stat_labels: tuple[tuple[str, str], ...] = (("boxes", "Boxes"),)
    stat_rates: tuple[tuple[str, str, str, str], ...] = ()

    def setup(self, settings: Settings, players: Any, rng: random.Random, opener: int = 0) -> State:
        """An empty board; ``opener`` draws first."""
        if type(players) is not int or not 2 <= players <= _MAX_SEATS:
            raise InvalidSettings(f"dots needs 2 to {_MAX_SEATS} players")
        if type(opener) is not int or not 0 <= opener < players:
            raise InvalidSettings(f"no seat {opener} to open the game")
        state = State(settings, players, rng)
        state.turn = opener
        return state

    def start_events(self, state: State) -> list[Event]:
        """Only the first turn: nothing else happens during setup."""
        return [_TURN_EVENTS[state.turn]]

    def parse_action(self, raw: Any) -> int:
        """Wire ``{"type": "line", "x", "y", "d"}`` or ``{"type": "line", "line": id}`` to a line id.

        Only bounds every board shares are checked here; the board's own size is checked by ``apply``.
        """
        if not isinstance(raw, dict) or raw.get("type") != "line":
            raise IllegalAction("bad_action", 'expected {"type": "line", "x": int, "y": int, "d": 0|1}')
        if "line" in raw:
            lid = _int_field(raw, "line")
            try:
                line_xyd(lid)
            except ValueError:
                raise IllegalAction("off_board", f"no line {lid} on any board") from None
            return lid
        x, y, d = _int_field(raw, "x"), _int_field(raw, "y"), _int_field(raw, "d")
        if d not in (0, 1):
            raise IllegalAction("bad_action", "d must be 0 (right) or 1 (down)")
        if not (0 <= x < MAX_DOTS and 0 <= y < MAX_DOTS) or (x if d == 0 else y) == MAX_DOTS - 1:
            raise IllegalAction("off_board", f"line ({x}, {y}, {d}) is off the board")
        return line_id(x, y, d)

    def format_action(self, action: int) -> dict[str, Any]:
        """A line id as ``{"type": "line", "x", "y", "d"}``."""
        x, y, d = line_xyd(action)
        return {"type": "line", "x": x, "y": y, "d": d}

    def legal_actions(self, state: State, seat: int) -> list[int]:
        """Every free line id for the seat on turn (a copy, in no particular order); else empty."""
        if seat != state.turn or state.result is not None:
            return []
        return state.free.copy()

    def apply(self, state: State, seat: Any, action: Any) -> list[Event]:
        """Draw a line; capture what it completes; the turn passes only if nothing was captured."""
        if state.result is not None:
            raise IllegalAction("game_over", "the game is over")
        if seat != state.turn:
            raise IllegalAction("not_your_turn", "it is not your turn")
        if type(action) is not int:
            raise IllegalAction("bad_action", "a move is a line id (int)")
        board = state.board
        local = board.local
        if not 0 <= action < len(local) or (i := local[action]) < 0:
            raise IllegalAction("off_board", "that line is off the board")
        pos = state.pos
        p = pos[i]
        if p < 0:
            raise IllegalAction("line_taken", "that line is already drawn")
        free = state.free
        last = free.pop()
        if last != action:
            free[p] = last
            pos[local[last]] = p
        pos[i] = _DRAWN
        state.drawn.append(action)
        events = [board.line_events[seat][action] or _line_event(board, seat, action)]
        sides = state.sides
        got = 0
        for b in board.adj[action]:
            n = sides[b] + 1
            sides[b] = n
            if n == 4:
                state.owner[b] = seat
                events.append(board.capture_events[seat][b] or _capture_event(board, seat, b))
                got += 1
        if got:
            state.scores[seat] += got
            state.remaining -= got
            if not state.remaining:
                events.append(self._finish(state, "finished"))
        else:
            state.turn = nxt = state.next_seat[seat]
            events.append(_TURN_EVENTS[nxt])
        return events

    def pause(self, state: State) -> int:
        return 0  # no rests: the game goes on move by move

    def to_act(self, state: State) -> list[int]:
        """The seat on turn, or nobody once the game is over."""
        return [] if state.result is not None else [state.turn]

    def view(self, state: State, seat: int | None) -> dict[str, Any]:
        """The whole board (Dots & Boxes hides nothing) and, for a seat, its legal moves."""
        return {**self.public_view(state), **self.seat_view(state, seat)}

    def seat_view(self, state: State, seat: int | None) -> dict[str, Any]:
        """A seat's wire actions: every free line for the seat on turn (the only seat whose list is
        not empty, so one list per action is built), nothing for spectators."""
        if seat is None:
            return {}
        if seat != state.turn or state.result is not None:
            return {"legal": []}
        wire = _WIRE
        return {"legal": [wire[lid] for lid in state.free]}

    def public_view(self, state: State) -> dict[str, Any]:
        board = state.board
        result = state.result
        view = state.view
        if view.synced != len(state.drawn) or view.source is not state.drawn:
            view.sync(state)
        return {
            "width": board.width,
            "height": board.height,
            "lines": view.lines.copy(),
            "captures": view.captures.copy(),
            "scores": state.scores.copy(),
            "players": state.players,
            "active": state.active.copy(),
            "turn": None if result is not None else state.turn,
            "over": result is not None,
            "winners": None if result is None else result.winners.copy(),
            "tie": False if result is None else result.tie,
            "reason": None if result is None else result.reason,
        }

    def on_leave(self, state: State, seat: int) -> list[Event]:
        """Remove ``seat`` from the rotation (its boxes stay); under two players left, the last one wins.
        A ``left`` event says so first, for the table's log."""
        if state.result is not None or seat not in state.active:
            return []
        successor = state.next_seat[seat]
        state.active.remove(seat)
        for s in state.active:
            if state.next_seat[s] == seat:
                state.next_seat[s] = successor
        left = Event("left", {"seat": seat, "boxes": state.scores[seat]})
        if len(state.active) < 2:
            return [left, self._finish(state, "last_player")]
        if state.turn == seat:
            state.turn = successor
            return [left, _TURN_EVENTS[successor]]
        return [left]

    def on_timeout(self, state: State, seat: int) -> list[Event]:
        """Draw for the seat on the clock: the lowest-id line that captures, else the lowest-id safe
        line (no box gets its third side), else the lowest-id free line. The seat keeps the turn after
        a capture, like any capture, so the clock restarts for it. A ``timeout`` event comes first:
        without it the line drawn for them read as their own move."""
        if state.result is not None:
            raise IllegalAction("game_over", "the game is over")
        if seat != state.turn:
            raise IllegalAction("not_your_turn", "it is not this seat's turn")
        return [Event("timeout", {"seat": seat}), *self.apply(state, seat, timeout_line(state))]

    def outcome(self, state: State) -> Outcome | None:
        """The result once every box is taken or fewer than two players remain."""
        return state.result

    def player_stats(self, state: State, outcome: Outcome, seat: int) -> dict[str, int]:
        return {"boxes": state.owner.count(seat)}

    def clone(self, state: State) -> State:
        """A copy sharing only what never changes (the board's tables, the frozen settings)."""
        copy = State(state.settings, state.players, clone_rng(state.rng))  # compiled, __new__ alone fails
        copy.board = state.board
        copy.free, copy.pos, copy.sides, copy.owner = (
            state.free.copy(),
            state.pos.copy(),
            state.sides.copy(),
            state.owner.copy(),
        )
        copy.drawn, copy.view = state.drawn.copy(), _BoardView()
        copy.remaining, copy.turn = state.remaining, state.turn
        copy.scores, copy.active = state.scores.copy(), state.active.copy()
        copy.next_seat = state.next_seat.copy()
        result = state.result
        copy.result = (
            None
            if result is None
            else Outcome(result.winners.copy(), dict(result.scores), result.reason, result.tie)
        )
        return copy

    def slip_target(self, action: Any) -> int | None:
        return None  # nothing to catch anyone out on

    def describe_event(self, event: dict[str, Any], names: Sequence[str]) -> str | None:
        kind = event["type"]
        if kind == "line":
            x, y, d = event["x"], event["y"], event["d"]
            end = (x + 1, y) if d == 0 else (x, y + 1)
            return f"{names[event['seat']]} drew the line from ({x}, {y}) to {end}"
        if kind == "capture":
            return f"{names[event['seat']]} took the box at ({event['x']}, {event['y']})"
        if kind == "timeout":
            # No pronoun for the seat: "You ran out of time: a line was drawn for them" read as someone else.
            return f"{names[event['seat']]} ran out of time, so the game drew a line"
        if kind == "left":
            boxes = event["boxes"]
            kept = "; their box stays" if boxes == 1 else f"; their {boxes} boxes stay" if boxes else ""
            return f"{names[event['seat']]} left{kept}"
        if kind == "game_over":
            scores = event["scores"]
            who = " and ".join(names[w] for w in event["winners"])
            boxes = scores[event["winners"][0]] if event["winners"] else 0
            verb = "tie" if event["tie"] else "wins"
            why = ", the last player left" if event["reason"] == "last_player" else ""
            return f"{who} {verb} with {boxes} box{'es' if boxes != 1 else ''}{why}"
        return None

    def _finish(self, state: State, reason: str) -> Event:
        """Most boxes among the seats still playing wins; a departed seat's boxes count for nobody."""
        active = state.active
        scores = state.scores
        best = max(scores) if len(active) == state.players else max([scores[s] for s in active])
        winners = [s for s in active if scores[s] == best]
        tie = len(winners) > 1
        state.result = Outcome(winners, dict(enumerate(scores)), reason, tie)
        # Not cached, so a plain (mutable) event: it ends each game once.
        return Event(
            "game_over", {"winners": winners.copy(), "scores": scores.copy(), "tie": tie, "reason": reason}
        )


def timeout_line(state: State) -> int:
    """The line ``on_timeout`` draws (see there); exposed so bots and tests can ask."""
    adj = state.board.adj
    sides = state.sides
    free = sorted(state.free)
    for lid in free:
        if any(sides[b] == 3 for b in adj[lid]):
            return lid
    for lid in free:
        if all(sides[b] < 2 for b in adj[lid]):
            return lid
    return free[0]


GAME = DotsGame()
