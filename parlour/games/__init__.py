"""Pure rule engines, one module per game; ``parlour.bots.catalog`` registers them by name."""

from __future__ import annotations

from pathlib import Path

from parlour.games.compiled import load_stale_from_source

load_stale_from_source(__name__, Path(__file__).parent)  # before any engine is imported

from parlour.games.base import Action, Event, Game, IllegalAction, InvalidSettings, Outcome  # noqa: E402

__all__ = ["Action", "Event", "Game", "IllegalAction", "InvalidSettings", "Outcome"]
