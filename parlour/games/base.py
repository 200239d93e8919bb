"""The contract every rule engine fulfils.

Engines are pure: no I/O, no asyncio, no clock. All randomness comes from the
``random.Random`` passed to ``setup`` and kept on the state, so a game is exactly
reproducible from ``(settings, players, seed, actions)``.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Protocol

Action = Any
"""A game-specific, JSON-compatible action value (see each engine's ``parse_action``)."""


class IllegalAction(Exception):
    """An action the rules refuse. ``code`` is stable and goes on the wire."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class InvalidSettings(ValueError):
    """Settings that cannot make a game; ``message`` says which and why."""

    code = "invalid_settings"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


@dataclass(slots=True)
class Event:
    """Something that happened, as recipients should learn it.

    Everyone (players and spectators) receives ``public``; seat ``s`` also
    receives the fields of ``private[s]`` merged over it. Hidden information
    (cards, deck order) may only ever appear in ``private``.
    """

    type: str
    public: dict[str, Any] = field(default_factory=dict)
    private: dict[int, dict[str, Any]] = field(default_factory=dict)

    def for_seat(self, seat: int | None) -> dict[str, Any]:
        """The event as ``seat`` (or a spectator, ``None``) may see it."""
        out = {"type": self.type, **self.public}
        if seat is not None and seat in self.private:
            out.update(self.private[seat])
        return out


class SettingKind(StrEnum):
    """How a setting's value is typed, validated and offered in a settings form."""

    INT = "int"
    BOOL = "bool"
    CHOICE = "choice"


@dataclass(frozen=True, slots=True)
class Setting:
    """One room setting: the engine validates by it and the web client builds its form from it
    (``GET /api/catalog``), so a range is written once, here.

    ``INT`` accepts integers in ``low..high`` (and 0, meaning off, when ``off`` is set) and offers
    ``options`` (value, label) as presets when there are any; ``CHOICE`` accepts exactly the values of
    ``options``; ``BOOL`` accepts true or false. A ``hidden`` setting is not offered in the form (the
    room's seat count stands for ``max_players``). ``help`` is one or two sentences a form shows under
    the control: what the setting does at the table, for a rule its label alone cannot explain.

    ``default`` is what the setting is when a room leaves it out: the API's, the seed adapters' and every
    stored game's. ``initial``, when set, is what a new room made by a person starts with instead (the web
    form, quick play): a rule the table wants that an older record or client knows nothing of. ``needs``
    names a setting that must be on (true, or not 0) for this one to change anything: a form hides this
    one while that one is off, and a summary leaves it out (UNO's pause between rounds, in one round).
    """

    key: str
    label: str
    kind: SettingKind
    default: bool | int | str
    low: int = 0
    high: int = 0
    step: int = 1
    options: tuple[tuple[int | str, str], ...] = ()
    off: bool = False
    hidden: bool = False
    help: str = ""
    initial: bool | int | str | None = None
    needs: str = ""

    def check(self, value: Any) -> None:
        """Refuse a value this setting does not accept, naming the setting."""
        key = self.key
        if self.kind is SettingKind.BOOL:
            if type(value) is not bool:
                raise InvalidSettings(f"{key} must be true or false")
        elif self.kind is SettingKind.CHOICE:
            if not any(type(value) is type(v) and value == v for v, _ in self.options):
                allowed = ", ".join(json.dumps(v) for v, _ in self.options)
                raise InvalidSettings(f"{key} must be one of {allowed}")
        else:
            if type(value) is not int:
                raise InvalidSettings(f"{key} must be an integer")
            low = 0 if self.off else self.low
            if not low <= value <= self.high:
                raise InvalidSettings(f"{key} must be between {low} and {self.high}")
            if self.off and 0 < value < self.low:
                raise InvalidSettings(f"{key} must be 0 (off) or between {self.low} and {self.high}")

    def describe(self) -> dict[str, Any]:
        """The setting as the catalog serves it to clients."""
        out: dict[str, Any] = {"key": self.key, "label": self.label, "type": self.kind.value}
        out["default"] = self.default
        if self.initial is not None:
            out["initial"] = self.initial
        if self.needs:
            out["needs"] = self.needs
        if self.kind is SettingKind.INT:
            out.update(min=self.low, max=self.high, step=self.step, off=self.off)
        if self.options:
            out["options"] = [[value, label] for value, label in self.options]
        if self.hidden:
            out["hidden"] = True
        if self.help:
            out["help"] = self.help
        return out


def number(
    key: str,
    label: str,
    default: int,
    low: int,
    high: int,
    *,
    step: int = 1,
    presets: tuple[tuple[int, str], ...] = (),
    off: bool = False,
    hidden: bool = False,
    help: str = "",
    initial: int | None = None,
    needs: str = "",
) -> Setting:
    """An integer setting in ``low..high`` (see ``Setting``)."""
    return Setting(
        key, label, SettingKind.INT, default, low, high, step, presets, off, hidden, help, initial, needs
    )


def flag(key: str, label: str, default: bool, help: str) -> Setting:
    """A true/false setting: a rule switched on or off, so it says what it does."""
    return Setting(key, label, SettingKind.BOOL, default, help=help)


def choice(
    key: str, label: str, default: int | str, options: tuple[tuple[int | str, str], ...], help: str
) -> Setting:
    """A setting that takes one of ``options`` (value, label), saying what the choice changes."""
    return Setting(key, label, SettingKind.CHOICE, default, options=options, help=help)


TURN_TIMER = number(
    "turn_timer",
    "Turn timer",
    0,
    10,
    300,
    presets=((0, "off"), (15, "15 s"), (30, "30 s"), (60, "1 min"), (120, "2 min")),
    off=True,
    help="Time for each turn; when it runs out, the game makes a move for that player.",
)
"""The turn clock every game offers: seconds per turn, 0 (off) or 10..300; the room runs it."""


def seats(low: int, high: int, default: int) -> Setting:
    """``max_players``: how many seats a room of this game offers by default (hidden: the form's seat
    count sets it)."""
    return number("max_players", "Seats", default, low, high, hidden=True)


def initial_settings(schema: tuple[Setting, ...]) -> dict[str, Any]:
    """The settings a room made by a person starts with where they differ from the defaults
    (``Setting.initial``): quick play's, and the web form's before anyone changes it."""
    return {s.key: s.initial for s in schema if s.initial is not None}


def read_settings(schema: tuple[Setting, ...], raw: Any, cls: Callable[..., Any]) -> Any:
    """Validate raw settings against ``schema`` and build ``cls(**raw)`` (defaults fill the rest).

    Unknown keys and refused values raise ``InvalidSettings`` naming them.
    """
    if raw is None:
        return cls()
    if not isinstance(raw, dict):
        raise InvalidSettings("settings must be an object")
    by_key = {s.key: s for s in schema}
    unknown = sorted(str(k) for k in raw if k not in by_key)
    if unknown:
        raise InvalidSettings(f"unknown setting(s): {', '.join(unknown)}")
    for key, value in raw.items():
        by_key[key].check(value)
    return cls(**raw)


class SchemaSettings:
    """The settings part of ``Game`` for an engine whose settings are a frozen dataclass
    (``settings_type``) with ``max_players`` and ``turn_timer`` fields, validated by its
    ``settings_schema``: one implementation instead of one per engine."""

    settings_schema: tuple[Setting, ...]
    settings_type: Callable[..., Any]

    def settings(self, raw: dict[str, Any] | None) -> Any:
        """Validate raw settings: only known keys, each value as its ``Setting`` allows."""
        return read_settings(self.settings_schema, raw, self.settings_type)

    def default_capacity(self, settings: Any) -> int:
        """The room offers ``max_players`` seats."""
        return int(settings.max_players)

    def turn_timer(self, settings: Any) -> int:
        return int(settings.turn_timer)


def clone_rng(rng: random.Random) -> random.Random:
    """An independent generator in the same state (for ``Game.clone``)."""
    copy = random.Random()
    copy.setstate(rng.getstate())
    return copy


class ReadOnlyDict(dict[str, Any]):
    """A dict that refuses changes, so an event shared by every game cannot be altered for the next."""

    __slots__ = ()

    def _refuse(self, *args: Any, **kwargs: Any) -> Any:
        raise TypeError("shared events are read-only; copy them to change them")

    __setitem__ = __delitem__ = __ior__ = clear = pop = popitem = setdefault = update = _refuse

    def __reduce__(self) -> tuple[Any, ...]:
        return (ReadOnlyDict, (dict(self),))


NO_PRIVATE: dict[int, dict[str, Any]] = ReadOnlyDict()  # type: ignore[assignment]


def shared_event(kind: str, **public: Any) -> Event:
    """A prebuilt public event that engines reuse across games (hot paths); read-only."""
    return Event(kind, ReadOnlyDict(public), NO_PRIVATE)


@dataclass(slots=True)
class Outcome:
    """How a finished game ended. ``winners`` is empty when nobody won (Cheat with too few players left);
    such a game counts in no player's totals."""

    winners: list[int]
    scores: dict[int, int]
    reason: str = "finished"
    tie: bool = False


class Game(Protocol):
    """What the room, bots, adapters, the web client and the tests may rely on. One object per game,
    registered by name in ``parlour.bots.catalog``; nothing outside its module knows its rules.

    Describing the game (served to clients by ``GET /api/catalog``):
    ``name`` (wire name, also the module names ``games/<name>.py``, ``bots/<name>.py`` and
    ``web/<name>.js``), ``title`` (display name), ``how_to_play`` (one paragraph), ``leave_rule`` (one
    sentence on what ``on_leave`` does with a leaver's seat in a running game, in the third person: the
    exit dialog and the host's kick dialog both show it), ``end_reasons``
    (``(reason, sentence)`` for every ``Outcome.reason`` but ``"finished"``: why a game ended, as the
    results, profiles and replays say it), ``min_players`` and
    ``max_players`` (the seat range), ``settings_schema`` (every setting with its range, default and
    label), ``score_label`` (what ``Outcome.scores`` count), ``scores_add_up`` (whether those are points a
    room's scoreboard sums over its games, as UNO's; otherwise the scoreboard counts games and wins only).

    Keeping secrets provable: ``secret_fields`` are the ``seat_view`` keys only that seat may see (each
    a list of items no other recipient's view or event may hold), ``revealing_events`` the event types
    whose public part the rules show to everyone even though it holds such items (a Cheat call).

    ``has_catches``: players may catch one another out (UNO's missed call, a ``catch`` action); the
    room then holds bots back for its ``bot_catch_delay`` and the host may set that delay.

    Optional: ``seat_view_without_legal(state, seat)``, ``seat_view`` without its ``legal`` key and
    otherwise equal to it (the same keys, values and secrets rules), for an engine whose legal actions
    are most of a view's cost (Cheat). The room uses it for a recipient that never reads them (a sink
    whose ``legal`` attribute is false, such as a ``/ws`` Cheat session); everyone else gets ``seat_view``.
    """

    name: str
    title: str
    how_to_play: str
    leave_rule: str
    end_reasons: tuple[tuple[str, str], ...]
    min_players: int
    max_players: int
    settings_schema: tuple[Setting, ...]
    score_label: str
    scores_add_up: bool
    secret_fields: tuple[str, ...]
    revealing_events: tuple[str, ...]
    has_catches: bool
    stat_labels: tuple[tuple[str, str], ...]
    """``(key, label)`` of each count ``player_stats`` returns, in the order a profile page shows them
    (games played and won are counted for every game, outside the engine)."""
    stat_rates: tuple[tuple[str, str, str, str], ...]
    """``(key, label, numerator, denominator)``: rates a profile page shows, each the ratio of two of
    the totals of ``stat_labels`` keys (Cheat's call accuracy)."""

    def settings(self, raw: dict[str, Any] | None) -> Any:
        """Validate raw settings into the engine's Settings; raise InvalidSettings."""

    def default_capacity(self, settings: Any) -> int:
        """Seats a room offers by default for these settings."""

    def turn_timer(self, settings: Any) -> int:
        """Seconds the seat on the clock has to act, 0 for no clock (the room runs the clock and calls
        ``on_timeout`` when it runs out)."""

    def pause(self, state: Any) -> int:
        """Seconds the table rests before the game goes on by itself, else 0: UNO's break between rounds,
        to see how one ended before the next is dealt. The room times it whatever the turn timer, as the
        clock of the first seat in ``to_act`` (who may end it sooner: UNO's next dealer deals), calls
        ``on_timeout`` when it runs out and tells no one it is their turn; bots let it run."""

    def setup(self, settings: Any, players: int, rng: random.Random, opener: int = 0) -> Any:
        """A new game for ``players`` seats (0..players-1, in join order). ``opener`` is the seat the
        table would have move first (the room passes the first move round the table from game to game);
        a game whose own rules pick who starts (UNO's dealer draw, Cheat's random first player) keeps
        to its rules."""

    def start_events(self, state: Any) -> list[Event]:
        """What happened during setup (deal, first card...), as events."""

    def parse_action(self, raw: dict[str, Any]) -> Action:
        """Turn a wire action into an engine action; raise IllegalAction('bad_action')."""

    def format_action(self, action: Action) -> dict[str, Any]:
        """The wire form of an engine action, the inverse of ``parse_action``:
        ``parse_action(format_action(a)) == a`` for every legal ``a``."""

    def legal_actions(self, state: Any, seat: int) -> list[Action]:
        """Every action ``seat`` may take now (empty when it may not act)."""

    def apply(self, state: Any, seat: int, action: Action) -> list[Event]:
        """Validate and perform; raise IllegalAction and leave state unchanged if refused."""

    def to_act(self, state: Any) -> list[int]:
        """Seats that are expected to act now; the first is the one on the clock."""

    def view(self, state: Any, seat: int | None) -> dict[str, Any]:
        """Everything ``seat`` (or a spectator, ``None``) may see, as JSON-compatible data:
        ``{**public_view(state), **seat_view(state, seat)}``."""

    def public_view(self, state: Any) -> dict[str, Any]:
        """The keys of ``view`` that are the same for every recipient (the server builds and encodes
        them once per action, not once per recipient)."""

    def seat_view(self, state: Any, seat: int | None) -> dict[str, Any]:
        """The keys of ``view`` that depend on ``seat``; none of them is in ``public_view``."""

    def on_leave(self, state: Any, seat: int) -> list[Event]:
        """Apply the rules for a player leaving mid-game."""

    def on_timeout(self, state: Any, seat: int) -> list[Event]:
        """Apply the rules for the seat on the clock running out of time."""

    def outcome(self, state: Any) -> Outcome | None:
        """The result once the game is over, else None."""

    def player_stats(self, state: Any, outcome: Outcome, seat: int) -> dict[str, int]:
        """What ``seat`` did in a finished game, one count per ``stat_labels`` key: counts that add up
        over games (a player's totals are their sums)."""

    def clone(self, state: Any) -> Any:
        """An independent copy of ``state`` (its random generator included): changing one never
        changes the other (search, what-if analysis, tests)."""

    def describe_event(self, event: dict[str, Any], names: Sequence[str]) -> str | None:
        """One line of a game log for ``event`` as a recipient received it (``Event.for_seat``), with
        seats named by ``names[seat]``; None for bookkeeping not worth a line (whose turn it is)."""

    def slip_target(self, action: Action) -> int | None:
        """The seat an optional action punishes for a slip it could still mend (UNO's ``catch`` of a
        missing UNO call), else None: a bot holds such an action back for the room's
        ``bot_catch_delay`` after that seat last acted, so a human has the time to mend it."""
