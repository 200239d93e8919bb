"""The engines' share of a room's work per move, compiled vs source (not a test).

    .venv/bin/python bench/engine_moves.py [--seconds S] [--only dots cheat uno]

Random games (seeded; a random seat of ``to_act`` with legal actions plays a random one), and per
move what a room asks of its engine (``rooms/outbound.py``, ``rooms/actor.py``): ``apply``, then
``public_view`` once and ``seat_view`` for every seat and one spectator, every event's ``for_seat``
for each of them and its ``describe_event`` line. Two child processes take turns in short slices,
one importing the mypyc extensions (``scripts/compile_engines.py``), one with
``PARLOUR_PURE_PYTHON=1``, so load from other work on a shared machine hits both alike; rates are per
second of each child's own CPU time. Reports CPU µs per move for each and the ratio.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
CASES: dict[str, tuple[dict[str, Any], int]] = {
    "dots": ({"width": 8, "height": 8}, 2),  # the /dots load's board
    "cheat": ({}, 3),  # the /ws Cheat load's table
    "uno": ({}, 4),
}
CAP = 1_000  # moves per game at most (a random Cheat game may go on)


def play(name: str, seconds: float, seed: int) -> dict[str, Any]:
    """Whole games for about ``seconds`` of CPU time; moves made and CPU seconds spent."""
    from parlour.games.compiled import is_compiled

    module = importlib.import_module(f"parlour.games.{name}")
    game = module.GAME
    raw, players = CASES[name]
    settings = game.settings(raw)
    names = [f"player {s}" for s in range(players)]
    recipients: list[int | None] = [*range(players), None]
    rng = random.Random(seed)
    moves = 0
    start = time.process_time()
    while time.process_time() - start < seconds:
        state = game.setup(settings, players, random.Random(rng.random()))
        for _ in range(CAP):
            if game.outcome(state) is not None:
                break
            options = [(s, legal) for s in game.to_act(state) if (legal := game.legal_actions(state, s))]
            seat, legal = rng.choice(options)
            events = game.apply(state, seat, rng.choice(legal))
            game.public_view(state)
            for who in recipients:
                game.seat_view(state, who)
                for event in events:
                    event.for_seat(who)
            for event in events:
                game.describe_event(event.for_seat(None), names)
            moves += 1
    return {"moves": moves, "cpu": time.process_time() - start, "compiled": is_compiled(module)}


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--seconds", type=float, default=6.0, help="CPU seconds per engine per build")
    parser.add_argument("--slices", type=int, default=6, help="turns each build takes")
    parser.add_argument("--only", nargs="+", choices=sorted(CASES), default=sorted(CASES))
    parser.add_argument("--child", nargs=3, metavar=("ENGINE", "SECONDS", "SEED"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        sys.path.insert(0, str(ROOT))
        name, seconds, seed = args.child
        print(json.dumps(play(name, float(seconds), int(seed))))
        return 0
    print("| engine (seats) | compiled µs/move | source µs/move | source / compiled |")
    print("|---|---|---|---|")
    for name in args.only:
        totals = {pure: {"moves": 0, "cpu": 0.0} for pure in ("0", "1")}
        for turn in range(args.slices):
            for pure in ("0", "1"):
                child = subprocess.run(
                    [sys.executable, __file__, "--child", name, str(args.seconds / args.slices), str(turn)],
                    env={**os.environ, "PARLOUR_PURE_PYTHON": pure},
                    capture_output=True,
                    text=True,
                    check=True,
                )
                result = json.loads(child.stdout)
                if result["compiled"] != (pure == "0"):
                    print(f"{name}: the {'source' if pure == '0' else 'extension'} ran; compile it first")
                    return 1
                totals[pure]["moves"] += result["moves"]
                totals[pure]["cpu"] += result["cpu"]
        compiled, source = (totals[p]["cpu"] / totals[p]["moves"] * 1e6 for p in ("0", "1"))
        seats = CASES[name][1]
        print(f"| {name} ({seats}) | {compiled:.1f} | {source:.1f} | {source / compiled:.2f}× |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
