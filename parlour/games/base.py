"""The contract every rule engine fulfils.

Engines are pure: no I/O, no asyncio, no clock. All randomness comes from the
``random.Random`` passed to ``setup`` and kept on the state, so a game is exactly
reproducible from ``(settings, players, seed, actions)``.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
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


def check_int_setting(key: str, value: Any, low: int, high: int) -> None:
    """Refuse a non-integer or out-of-range setting; a turn timer is off (0) or at least 10 s."""
    if type(value) is not int:
        raise InvalidSettings(f"{key} must be an integer")
    if not low <= value <= high:
        raise InvalidSettings(f"{key} must be between {low} and {high}")
    if key == "turn_timer" and 0 < value < 10:
        raise InvalidSettings("turn_timer must be 0 (off) or between 10 and 300 seconds")


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
    """How a finished game ended. ``winners`` is empty only for an abandoned game."""

    winners: list[int]
    scores: dict[int, int]
    reason: str = "finished"
    tie: bool = False


class Game(Protocol):
    """What the room layer, bots and tests may rely on. One object per game."""

    name: str
    min_players: int
    max_players: int

    def settings(self, raw: dict[str, Any] | None) -> Any:
        """Validate raw settings into the engine's Settings; raise InvalidSettings."""

    def default_capacity(self, settings: Any) -> int:
        """Seats a room offers by default for these settings."""

    def setup(self, settings: Any, players: int, rng: random.Random) -> Any:
        """A new game for ``players`` seats (0..players-1, in join order)."""

    def start_events(self, state: Any) -> list[Event]:
        """What happened during setup (deal, first card...), as events."""

    def parse_action(self, raw: dict[str, Any]) -> Action:
        """Turn a wire action into an engine action; raise IllegalAction('bad_action')."""

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

    def describe(self, event: Event) -> dict[str, Any] | None:
        """The game-log entry for ``event`` from its public fields (``parlour.games.words``), or None
        for an event not worth a line (whose turn it is)."""
