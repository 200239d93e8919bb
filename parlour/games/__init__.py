"""Pure rule engines. ``GAMES`` maps a game's wire name to its engine object."""

from __future__ import annotations

from parlour.games import cheat, dots, uno
from parlour.games.base import Action, Event, Game, IllegalAction, InvalidSettings, Outcome

__all__ = ["GAMES", "Action", "Event", "Game", "IllegalAction", "InvalidSettings", "Outcome", "get_game"]

GAMES: dict[str, Game] = {"uno": uno.GAME, "cheat": cheat.GAME, "dots": dots.GAME}


def get_game(name: str) -> Game:
    """The engine for ``name``; KeyError if there is none."""
    return GAMES[name]
