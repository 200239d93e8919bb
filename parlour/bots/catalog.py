"""The catalog: every game the platform offers, each with its players. Games are registered here, once.

A game is its name: ``parlour/games/<name>.py`` holds the rules (``GAME``, see ``games.base.Game``),
``parlour/bots/<name>.py`` its bots (``BOTS``: level → class; no module, no bots) and
``parlour/web/<name>.js`` its table. Adding a game is writing those and one name in ``REGISTERED``.

The catalog lives in ``bots/`` because that is the lowest layer allowed to import both an engine and
its players (games ← bots ← rooms ← net): a game module cannot name its bots, and ``parlour
simulate``, which lives here too, needs both. Rooms, adapters and the HTTP API look games up here.
"""

from __future__ import annotations

import importlib
import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from parlour.bots.base import LEVELS, Bot
from parlour.games.base import Game

REGISTERED = ("uno", "cheat", "dots", "connect_four")
"""The games, in the order the lobby offers them."""


@dataclass(frozen=True, slots=True)
class Listing:
    """One registered game and the bot class for each level it offers (empty: no bots)."""

    game: Game
    bots: Mapping[str, type[Bot]]

    def describe(self) -> dict[str, Any]:
        """What a client needs to offer the game (``GET /api/catalog``)."""
        game = self.game
        defaults = game.settings(None)
        return {
            "name": game.name,
            "title": game.title,
            "how_to_play": game.how_to_play,
            "leave_rule": game.leave_rule,  # what the exit dialog tells a player mid-game
            "end_reasons": dict(game.end_reasons),
            "min_players": game.min_players,
            "max_players": game.max_players,
            "default_capacity": game.default_capacity(defaults),
            "score_label": game.score_label,
            "scores_add_up": game.scores_add_up,  # a room's scoreboard sums the scores (UNO's points)
            "bots": [level for level in LEVELS if level in self.bots],  # offered to hosts
            "settings": [s.describe() for s in game.settings_schema],
            "has_catches": game.has_catches,  # the host may set how long bots wait to catch a human
        }


def _listing(name: str) -> Listing:
    game: Game = importlib.import_module(f"parlour.games.{name}").GAME
    module = f"parlour.bots.{name}"
    try:
        bots: Mapping[str, type[Bot]] = importlib.import_module(module).BOTS
    except ModuleNotFoundError as exc:
        if exc.name != module:
            raise
        bots = {}
    return Listing(game, bots)


CATALOG: dict[str, Listing] = {name: _listing(name) for name in REGISTERED}


class NoBots(KeyError):
    """The game has no bot at that level (or none at all)."""


def get_game(name: str) -> Game:
    """The engine for ``name``; KeyError if no game of that name is registered."""
    return CATALOG[name].game


def bot_levels(name: str) -> tuple[str, ...]:
    """The bot levels game ``name`` offers (none for an unknown game or one without bots)."""
    listing = CATALOG.get(name)
    return () if listing is None else tuple(listing.bots)


def has_bots(name: str) -> bool:
    """Whether ``name`` is a registered game with at least one bot."""
    return bool(bot_levels(name))


def make_bot(game: str, level: str, seat: int, rng: random.Random | None = None) -> Bot:
    """A bot for ``seat`` of ``game`` at ``level``; ``NoBots`` (a KeyError) if there is none."""
    listing = CATALOG.get(game)
    cls = None if listing is None else listing.bots.get(level)
    if cls is None:
        raise NoBots(f"no {level!r} bot for {game!r}")
    return cls(seat, rng or random.Random())


def describe() -> dict[str, Any]:
    """The whole catalog as ``GET /api/catalog`` serves it."""
    return {"games": [listing.describe() for listing in CATALOG.values()]}
