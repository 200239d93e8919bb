"""Replays: a finished game rebuilt from its record, one engine-changing command at a time.

A ``GameRecord`` holds what the room played: the game, its settings and seed, the seated players and
the room's command log from the start of the game to its end. The room built the game with
``engine.setup(rules, players, Random(seed), opener)`` (the opener from the command that started it)
and then changed it only through three kinds of commands — a move (``action``, logged as the engine
action it applied), the turn clock running out (``timer`` "turn" → ``on_timeout``) and a seated
player leaving (``leave``, ``kick``, or a ``timer`` "grace:…" without a bot taking over →
``on_leave``). Each of those is one *step*, and each made the room send one game message (its
``seq`` is the step's number), so step ``k`` shows exactly what the table showed after message
``seq = k``; step 0 is the deal.

Stepping must stay cheap on a 5,000-move game: a ``Replay`` makes one pass when it is built (the
game's log lines, clones of the state every ``CLONE_EVERY`` steps, fewer on very long games so a
replay holds at most ``MAX_CLONES``) and then keeps a cursor, the state at the last step served.
Reading on from the cursor applies only the new steps; a jump starts from the nearest clone before
it. ``Replays`` keeps the most recently used replays (an LRU).
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from parlour.bots.catalog import get_game
from parlour.games import Event, Game, Outcome
from parlour.rooms.game_record import dealt
from parlour.rooms.game_record import steps as game_steps
from parlour.rooms.messages import log_entries
from parlour.store import GameRecord

CLONE_EVERY = 64
"""Steps between kept clones: a jump replays at most this many steps (on a game under 2,048 steps)."""
MAX_CLONES = 32
"""Clones one replay keeps at most: a 50×50 Dots state is ~120 KB, and ``Replays`` holds several games."""
MAX_STEPS_PER_REQUEST = 50
ALL = "all"
"""The viewer that sees every hand (a finished game only)."""


class StepKind(StrEnum):
    """What changed the game at a step."""

    DEAL = "deal"
    ACTION = "action"
    TIMEOUT = "timeout"
    LEAVE = "leave"


@dataclass(frozen=True, slots=True)
class Step:
    """One engine-changing command of the log: who (``seat``, None for nobody), what, and when."""

    kind: StepKind
    seat: int | None
    action: Any = None
    at: float = 0.0
    by_bot: bool = False
    """A bot made this move for the seat's player, who had dropped out."""


class ReplayError(ValueError):
    """The record cannot be replayed (an unknown game, or a log the engine refuses)."""


def steps_of(record: GameRecord) -> list[Step]:
    """The deal, then the record's engine-changing commands in order (``game_record.steps`` reads them
    out of the room's log the way the room's handlers read them)."""
    try:
        listed = game_steps(record)
    except KeyError as exc:
        raise ReplayError(f"unknown game {record.game!r}") from exc
    except Exception as exc:  # an engine refusing the log: the record is not replayable
        raise ReplayError(f"the log does not replay: {exc}") from exc
    deal = Step(StepKind.DEAL, None, None, record.log[0]["t"] if record.log else record.started_at)
    return [
        deal,
        *(
            Step(StepKind(s["type"]), s["seat"], s.get("action"), s["t"], s.get("by_bot", False))
            for s in listed
        ),
    ]


@dataclass(slots=True)
class _Point:
    """The game after step ``step``; ``lines`` log lines had been written before the next step."""

    step: int
    state: Any
    lines: int


@dataclass(slots=True)
class StepView:
    """One step as a viewer sees it (the JSON the replay API serves)."""

    n: int
    kind: StepKind
    actor: int | None
    action: Any
    at: float
    events: list[dict[str, Any]]
    log: list[dict[str, Any]]
    view: dict[str, Any]
    turn: int | None
    hands: dict[str, Any] | None = None

    def json(self) -> dict[str, Any]:
        out = {
            "n": self.n,
            "kind": self.kind.value,
            "actor": self.actor,
            "action": self.action,
            "at": self.at,
            "events": self.events,
            "log": self.log,
            "view": self.view,
            "turn": self.turn,
        }
        if self.hands is not None:
            out["hands"] = self.hands
        return out


@dataclass(slots=True)
class Replay:
    """One finished game, ready to be stepped through by any viewer."""

    record: GameRecord
    engine: Game = field(init=False)
    steps: list[Step] = field(init=False)
    names: list[str] = field(init=False)
    log: list[dict[str, Any]] = field(init=False)
    """Every log line of the game, each with the ``step`` that wrote it (no event objects)."""
    clone_every: int = field(init=False)
    """Steps between the clones kept: the most a jump replays."""
    outcome: Outcome | None = field(init=False)
    """How the replayed game ended (a record's ``result`` says the same for a finished game)."""
    _clones: list[_Point] = field(init=False)
    _cursor: _Point | None = field(init=False, default=None)

    def __post_init__(self) -> None:
        record = self.record
        try:
            self.engine = get_game(record.game)
        except KeyError as exc:
            raise ReplayError(f"unknown game {record.game!r}") from exc
        self.steps = steps_of(record)
        self.names = [p["name"] for p in sorted(record.players, key=lambda p: p["seat"])]
        self.log, self._clones = [], []
        point = _Point(-1, None, 0)
        self.clone_every = max(CLONE_EVERY, -(-len(self.steps) // MAX_CLONES))
        for n in range(len(self.steps)):
            events, _ = self._advance(point)
            entries = self._describe(events, point.lines, self.steps[n])
            self.log.extend({k: v for k, v in e.items() if k != "event"} | {"step": n} for e in entries)
            point.lines += len(entries)
            if n % self.clone_every == 0:
                self._clones.append(_Point(n, self.engine.clone(point.state), point.lines))
        self.outcome = self.engine.outcome(point.state)
        self._cursor = point

    @property
    def total(self) -> int:
        return len(self.steps)

    def _advance(self, point: _Point) -> tuple[list[Event], int | None]:
        """Apply the step after ``point`` to it (in place); its events and the seat that acted."""
        engine, n = self.engine, point.step + 1
        step = self.steps[n]
        seat = step.seat
        try:
            if step.kind is StepKind.DEAL:
                point.state = dealt(engine, self.record)
                events = engine.start_events(point.state)
            elif seat is None:
                raise ReplayError(f"step {n} names no seat")
            elif step.kind is StepKind.ACTION:
                events = engine.apply(point.state, seat, step.action)
            elif step.kind is StepKind.TIMEOUT:
                events = engine.on_timeout(point.state, seat)
            else:
                events = engine.on_leave(point.state, seat)
        except ReplayError:
            raise
        except Exception as exc:  # an engine refusing the log: the record is not replayable
            raise ReplayError(f"step {n} does not replay: {exc}") from exc
        point.step = n
        return events, seat

    def _describe(self, events: list[Event], first: int, step: Step) -> list[dict[str, Any]]:
        """The game-log entries of ``events`` as the live table wrote them (``Outbound.describe``),
        the acting seat's marked ``by_bot`` when a bot made the move for its player."""
        public = [event.for_seat(None) for event in events]
        stand_in = step.seat if step.by_bot else None
        return log_entries(self.engine.describe_event, events, public, self.names, first, stand_in)

    def _start(self, before: int) -> _Point:
        """A point at step ``before - 1`` (or the empty point before the deal) to advance from: the cursor
        if it is there already or closer than any clone, else a copy of the nearest clone."""
        target = before - 1
        cursor = self._cursor
        best = None
        for clone in self._clones:
            if clone.step <= target:
                best = clone
            else:
                break
        if cursor is not None and cursor.step <= target and (best is None or cursor.step >= best.step):
            return cursor
        if best is None:
            return _Point(-1, None, 0)
        return _Point(best.step, self.engine.clone(best.state), best.lines)

    def read(self, first: int, count: int, viewer: int | str | None) -> list[StepView]:
        """Steps ``first ..`` (at most ``count``) as ``viewer`` — a seat, ``ALL`` or None (spectator) —
        saw them; the cursor ends at the last step read."""
        if not 0 <= first < self.total:
            raise IndexError(f"step {first} is outside 0..{self.total - 1}")
        last = min(self.total, first + max(1, count)) - 1
        point = self._start(first)
        engine = self.engine
        seat = viewer if isinstance(viewer, int) else None
        out: list[StepView] = []
        while point.step < last:
            events, actor = self._advance(point)
            entries = self._describe(events, point.lines, self.steps[point.step])
            point.lines += len(entries)
            if point.step < first:
                continue
            step = self.steps[point.step]
            state = point.state
            to_act = engine.to_act(state)
            hands = None
            if viewer == ALL:
                hands = {str(s): engine.seat_view(state, s) for s in range(len(self.names))}
            out.append(
                StepView(
                    point.step,
                    step.kind,
                    actor,
                    None if step.action is None else engine.format_action(step.action),
                    step.at,
                    [e.for_seat(seat) for e in events],
                    entries,
                    engine.view(state, seat),
                    to_act[0] if to_act and engine.outcome(state) is None else None,
                    hands,
                )
            )
        self._cursor = point
        return out


class Replays:
    """The replays being watched, most recently used last; the oldest goes when there are too many."""

    def __init__(self, size: int = 8) -> None:
        self.size = size
        self._replays: OrderedDict[str, Replay] = OrderedDict()

    def get(self, record: GameRecord) -> Replay:
        key = record.id
        replay = self._replays.get(key)
        if replay is None:
            replay = self._replays[key] = Replay(record)
            if len(self._replays) > self.size:
                self._replays.popitem(last=False)
        else:
            self._replays.move_to_end(key)
        return replay
