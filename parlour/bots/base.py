"""The bot interface (each game's bots are registered with it in ``parlour.bots.catalog``).

A bot plays one seat and is given only what that seat may see: the engine's ``view(state, seat)``
and ``legal_actions(state, seat)``, plus that seat's share of every event (``Event.for_seat``).
It never holds the state, so it cannot peek at other hands or the deck by construction.
"""

from __future__ import annotations

import random
from typing import Any

from parlour.games import Action

LEVELS = ("easy", "hard")


class Bot:
    """One seat's player. Subclasses override ``choose`` and, if they track the game, ``observe``."""

    game = ""
    level = ""

    def __init__(self, seat: int, rng: random.Random) -> None:
        self.seat = seat
        self.rng = rng

    def choose(self, view: dict[str, Any], legal: list[Action]) -> Action | None:
        """One of ``legal``, or None to let an optional moment pass (never when on the clock, but in
        a pause of the game's, ``Game.pause``, which bots let run its time)."""
        raise NotImplementedError

    def observe(self, events: list[dict[str, Any]]) -> None:
        """Events as this seat received them; card-counting bots remember what they reveal."""
