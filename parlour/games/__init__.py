"""Pure rule engines. ``GAMES`` maps a game's wire name to its engine object."""

from __future__ import annotations

from pathlib import Path

from parlour.games.compiled import load_stale_from_source

load_stale_from_source(__name__, Path(__file__).parent)  # before the engines are imported

from parlour.games import cheat, dots, uno  # noqa: E402
from parlour.games.base import Action, Event, Game, IllegalAction, InvalidSettings, Outcome  # noqa: E402

__all__ = ["GAMES", "Action", "Event", "Game", "IllegalAction", "InvalidSettings", "Outcome", "get_game"]

GAMES: dict[str, Game] = {"uno": uno.GAME, "cheat": cheat.GAME, "dots": dots.GAME}


def get_game(name: str) -> Game:
    """The engine for ``name``; KeyError if there is none."""
    return GAMES[name]
