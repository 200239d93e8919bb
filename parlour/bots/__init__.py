"""AI players that see only what their seat sees (``make_bot`` builds one per seat)."""

from __future__ import annotations

from parlour.bots.base import LEVELS, Bot
from parlour.bots.catalog import make_bot

__all__ = ["LEVELS", "Bot", "make_bot"]
