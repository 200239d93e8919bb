"""Dots & Boxes bots: ``easy`` takes what is offered and avoids third sides; ``hard`` plays the chains."""

from __future__ import annotations

import random
from typing import Any

from parlour.bots.base import Bot
from parlour.bots.dots_endgame import Position, Searcher, choose_line, grid
from parlour.games.dots import line_id


def _position(view: dict[str, Any]) -> Position:
    """The board as the view shows it (Dots & Boxes hides nothing)."""
    return Position(grid(view["width"], view["height"]), [line_id(*xyd) for xyd in view["lines"]])


class EasyDotsBot(Bot):
    """Takes any box offered, else draws a random safe line, else any line."""

    game = "dots"
    level = "easy"

    def choose(self, view: dict[str, Any], legal: list[Any]) -> Any:
        if not legal:
            return None
        pos = _position(view)
        cap = pos.capturable()
        if cap:
            return pos.last_free(cap[0])
        safe = pos.safe_lines()
        if safe:
            return self.rng.choice(safe)
        return self.rng.choice(legal)


class HardDotsBot(Bot):
    """Never gives a third side while a safe line exists, takes what is offered unless declining keeps
    control, and plays the chain endgame by search (``dots_endgame``) within ``budget_s`` per move."""

    game = "dots"
    level = "hard"

    def __init__(self, seat: int, rng: random.Random, budget_s: float = 0.035) -> None:
        super().__init__(seat, rng)
        self.budget_s = budget_s
        self.searcher = Searcher()
        self.pos: Position | None = None
        self.count = 0

    def choose(self, view: dict[str, Any], legal: list[Any]) -> Any:
        if not legal:
            return None
        return choose_line(self._sync(view), self.rng, self.searcher, self.budget_s)

    def _sync(self, view: dict[str, Any]) -> Position:
        """Bring the kept position up to the view, drawing only the new lines (a new game starts over)."""
        lines = view["lines"]
        g = grid(view["width"], view["height"])
        if self.pos is None or self.pos.grid is not g or len(lines) < self.count:
            self.pos = Position(g)
            self.searcher = Searcher()
        pos = self.pos
        if len(lines) != self.count:
            drawn = pos.drawn
            for x, y, d in lines:
                i = line_id(x, y, d)
                if not drawn[i]:
                    pos.draw(i)
            self.count = len(lines)
        return pos


BOTS: dict[str, type[Bot]] = {"easy": EasyDotsBot, "hard": HardDotsBot}
