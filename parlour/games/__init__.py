"""Pure rule engines. ``GAMES`` maps a game's wire name to its engine object."""

from __future__ import annotations

from parlour.games.base import Action, Event, Game, IllegalAction, InvalidSettings, Outcome

__all__ = ["Action", "Event", "Game", "IllegalAction", "InvalidSettings", "Outcome", "GAMES", "get_game"]


def _registry() -> dict[str, Game]:
    from parlour.games import cheat, dots, uno

    return {"uno": uno.GAME, "cheat": cheat.GAME, "dots": dots.GAME}


GAMES: dict[str, Game] = {}


def get_game(name: str) -> Game:
    """The engine for ``name``; KeyError if there is none."""
    if not GAMES:
        GAMES.update(_registry())
    return GAMES[name]
