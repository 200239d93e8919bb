"""Bots against bots with the engines alone: ``parlour simulate`` and the in-process ``simulate``.

Each game gives seats their bots in a rotated order (game ``i`` starts the list at seat ``i mod n``),
so no bot keeps the first-move advantage. A bot may act whenever the engine lists an action for its
seat; seats off the clock are asked first, in a shuffled order, so calls, catches and jump-ins get
their chance before the seat on the clock moves on.
"""

from __future__ import annotations

import argparse
import json
import math
import random
from dataclasses import dataclass, field
from typing import Any

from parlour.bots.base import Bot
from parlour.bots.catalog import CATALOG, get_game, make_bot
from parlour.games import Game, Outcome

MAX_ACTIONS = 20_000
"""A game still running after this many actions is counted as unfinished (Cheat can cycle)."""


@dataclass
class SimResult:
    """Wins per entry of the bot list (ties share the point), with 95% Wilson intervals.

    Entries are not seats: seats rotate through the list from game to game.
    """

    game: str
    players: int
    bots: list[str]
    games: int
    wins: list[float] = field(default_factory=list)
    actions: int = 0
    unfinished: int = 0

    def rate(self, i: int) -> float:
        """Entry ``i``'s share of games won."""
        return self.wins[i] / self.games if self.games else 0.0

    def interval(self, i: int) -> tuple[float, float]:
        """95% Wilson score interval for entry ``i``'s win rate."""
        n = self.games
        if not n:
            return (0.0, 1.0)
        p, z = self.rate(i), 1.96
        centre = (p + z * z / (2 * n)) / (1 + z * z / n)
        half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
        return (max(0.0, centre - half), min(1.0, centre + half))

    @property
    def average_length(self) -> float:
        """Actions per game."""
        return self.actions / self.games if self.games else 0.0

    def report(self) -> str:
        """The table ``parlour simulate`` prints."""
        lines = [f"{self.game}: {self.players} players, {self.games} games"]
        lines.append(f"  {'#':<5}{'bot':<8}{'wins':>8}{'rate':>9}   95% CI")
        for i, level in enumerate(self.bots):
            lo, hi = self.interval(i)
            lines.append(f"  {i:<5}{level:<8}{self.wins[i]:>8.1f}{self.rate(i):>8.1%}   [{lo:.1%}, {hi:.1%}]")
        lines.append(f"  average game length: {self.average_length:.1f} actions")
        if self.unfinished:
            lines.append(f"  unfinished (over {MAX_ACTIONS} actions, no winner): {self.unfinished}")
        return "\n".join(lines)


def play(
    game: Game,
    settings: Any,
    bots: list[Bot],
    rng: random.Random,
    max_actions: int = MAX_ACTIONS,
    moves: list[tuple[int, Any]] | None = None,
) -> tuple[Outcome | None, int]:
    """One game between ``bots`` (one per seat, in seat order): the outcome and the number of actions."""
    state = game.setup(settings, len(bots), rng)
    return run(game, state, bots, rng, max_actions, moves)


def run(
    game: Game,
    state: Any,
    bots: list[Bot],
    rng: random.Random,
    max_actions: int = MAX_ACTIONS,
    moves: list[tuple[int, Any]] | None = None,
) -> tuple[Outcome | None, int]:
    """Play a set-up game to its end (or ``max_actions``), telling every bot what its seat sees.

    ``moves``, when given, gets every ``(seat, action)`` applied, in order (a replayable record); a
    pause of the game's (``Game.pause``), which the bots let run out, is ``(seat, None)``: the room
    would call ``on_timeout`` for that seat, and so does this."""
    n = len(bots)
    _deliver(bots, game.start_events(state))
    actions = 0
    while game.outcome(state) is None and actions < max_actions:
        clock = game.to_act(state)[:1]
        others = [s for s in range(n) if s not in clock]
        rng.shuffle(others)
        for seat in others + clock:
            legal = game.legal_actions(state, seat)
            if not legal:
                continue
            action = bots[seat].choose(game.view(state, seat), legal)
            if action is None:
                if seat in clock and not game.pause(state):
                    raise RuntimeError(f"{type(bots[seat]).__name__} passed while on the clock")
                continue
            _deliver(bots, game.apply(state, seat, action))
            if moves is not None:
                moves.append((seat, action))
            actions += 1
            break
        else:
            if not (clock and game.pause(state)):
                raise RuntimeError(f"nobody can act in an unfinished {game.name} game")
            _deliver(bots, game.on_timeout(state, clock[0]))  # the pause ran out
            if moves is not None:
                moves.append((clock[0], None))
    return game.outcome(state), actions


def _deliver(bots: list[Bot], events: list[Any]) -> None:
    for seat, bot in enumerate(bots):
        bot.observe([e.for_seat(seat) for e in events])


def simulate(
    game: str,
    players: int,
    bots: list[str],
    games: int,
    seed: int | None = None,
    settings: dict[str, Any] | None = None,
) -> SimResult:
    """Play ``games`` games; ``bots`` names one level per seat (padded with its last entry)."""
    if not bots:
        raise ValueError("name at least one bot level")
    levels = (bots + [bots[-1]] * players)[:players]
    engine = get_game(game)
    parsed = engine.settings(settings)
    master = random.Random(seed)
    result = SimResult(game, players, levels, games, wins=[0.0] * players)
    for g in range(games):
        order = [(g + s) % players for s in range(players)]  # seat s plays entry order[s]
        rng = random.Random(master.getrandbits(64))
        seat_bots = [
            make_bot(game, levels[e], s, random.Random(rng.getrandbits(64))) for s, e in enumerate(order)
        ]
        outcome, actions = play(engine, parsed, seat_bots, rng)
        result.actions += actions
        if outcome is None or not outcome.winners:
            result.unfinished += outcome is None
            continue
        for w in outcome.winners:
            result.wins[order[w]] += 1 / len(outcome.winners)
    return result


def add_simulate_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Register ``simulate`` on the CLI's subparsers."""
    p = subparsers.add_parser("simulate", help="play bots against each other with the engines alone")
    games_with_bots = [name for name, listing in CATALOG.items() if listing.bots]
    p.add_argument("--game", required=True, choices=games_with_bots)
    p.add_argument("--players", type=int, required=True)
    p.add_argument("--bots", required=True, help="comma-separated levels, one per seat, e.g. hard,easy")
    p.add_argument("--games", type=int, default=100)
    p.add_argument("--seed", type=int, default=None)
    p.add_argument("--settings", default=None, help="the game's settings as a JSON object")
    p.set_defaults(func=run_simulate)
    return p


def run_simulate(args: argparse.Namespace) -> int:
    """Run ``parlour simulate`` from parsed arguments and print the table."""
    settings = json.loads(args.settings) if args.settings else None
    result = simulate(args.game, args.players, args.bots.split(","), args.games, args.seed, settings)
    print(result.report())
    return 0
