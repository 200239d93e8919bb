"""What the views of one game action cost: ``public_view`` once plus ``seat_view`` for every seat and a
spectator, as ``rooms/outbound.py`` builds them per action, in CPU microseconds (not a test).

    .venv/bin/python bench/views.py [--root DIR]

``--root`` measures the engines of another checkout (e.g. ``git archive <rev>`` unpacked), so a change
is compared before/after in one run on a shared machine. Positions are mid-game: half the moves of a
random game (seeded) played.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

CASES = [
    ("dots", {"width": 4, "height": 4}, 2),
    ("dots", {"width": 13, "height": 13}, 2),
    ("dots", {"width": 50, "height": 50}, 2),
    ("connect_four", {}, 2),
    ("cheat", {}, 4),
    ("uno", {}, 4),
]


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    root = str(Path(__file__).resolve().parents[1])
    parser.add_argument("--root", default=root, help="checkout to measure (default: this one)")
    parser.add_argument("--seconds", type=float, default=1.0, help="CPU seconds per case (default 1)")
    args = parser.parse_args()
    sys.path.insert(0, args.root)
    import importlib

    for name, raw, players in CASES:
        game = importlib.import_module(f"parlour.games.{name}").GAME
        state = game.setup(game.settings(raw), players, random.Random(7))
        rng = random.Random(8)  # the moves' own generator: the game's stays the game's
        moves = []
        probe = game.clone(state)
        while game.outcome(probe) is None and len(moves) < 2000:
            seat = game.to_act(probe)[0]
            action = rng.choice(game.legal_actions(probe, seat))
            game.apply(probe, seat, action)
            moves.append((seat, action))
        for seat, action in moves[: len(moves) // 2]:
            game.apply(state, seat, action)
        recipients = [*range(players), None]
        n, start = 0, time.process_time()
        while time.process_time() - start < args.seconds:
            game.public_view(state)
            for seat in recipients:
                game.seat_view(state, seat)
            n += 1
        spent = (time.process_time() - start) / n * 1e6
        print(f"{name} {raw or ''} {players} players: {spent:.1f} µs per action")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
