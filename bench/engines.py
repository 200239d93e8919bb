"""Engine speed benchmark (not a test): ``python bench/engines.py [--seconds S] [--json]``.

Random-legal-action playouts through the generic ``Game`` protocol (setup; then repeatedly a random
seat of ``to_act`` that has legal actions plays a random legal action, until ``outcome``), against
the same loop on peer engines:

* UNO, 2 players, against RLCard's raw ``UnoGame`` (``get_legal_actions`` + random choice + ``step``
  until ``is_over``). Bar: ≥ 3× in games/s. RLCard's game is one hand, so ours is played as one hand
  too (``target_score: 0``), and RLCard offers ``draw`` only when nothing is playable, which is our
  house rule Forced Play: ``uno`` is that like-for-like game. Under our default rules a random
  player may draw while holding a playable card, and a hand then lasts about 1,000 actions instead
  of about 50, so games/s there measures the random player, not the engine: ``uno_default`` is
  reported against the same RLCard figures without a bar, and the 500-point match alone.
  ``uno_compiled`` (and ``dots_compiled``, ``cheat_compiled``) say whether the mypyc build of the
  engine ran (``scripts/compile_engines.py``).
* Dots & Boxes 3×3 and 5×5 boxes (4×4 and 6×6 dots), 2 players, against OpenSpiel's C++
  ``dots_and_boxes`` driven from Python (``legal_actions`` + random choice + ``apply_action``
  until terminal). Bar: ≥ 0.7×.
* Cheat, 4 players, alone (no peer); a game is capped at 1,000 actions.

Each engine runs for ``--seconds`` of wall time, a pair in alternating slices (ours, peer, ours,
...), and rates are per second of this process's CPU time (the same as wall time on an idle
machine): other load on a small shared machine then hits both sides alike instead of skewing the
ratio. Ratios are ours / peer.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import platform
import random
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from parlour.games.compiled import is_compiled

CHEAT_CAP = 1000
BUILT = ("uno", "dots", "cheat")  # the engines scripts/compile_engines.py compiles
SLICE = 0.25  # seconds per alternating slice


@dataclass
class Tally:
    """Games and actions played in ``seconds`` of this process's CPU time."""

    games: int = 0
    actions: int = 0
    seconds: float = 0.0
    capped: int = 0  # games stopped by the action cap rather than finished

    @property
    def games_per_s(self) -> float:
        return self.games / self.seconds if self.seconds else 0.0

    @property
    def actions_per_s(self) -> float:
        return self.actions / self.seconds if self.seconds else 0.0


Runner = Callable[[float, Tally, random.Random], None]
"""Plays whole games for about the given seconds, adding to the tally."""


def ours(name: str, raw_settings: dict[str, Any] | None, players: int, cap: int | None = None) -> Runner:
    """Random playouts of one of our engines through the generic protocol only."""
    game = importlib.import_module(f"parlour.games.{name}").GAME
    settings = game.settings(raw_settings)
    setup, to_act, legal, apply, outcome = (
        game.setup,
        game.to_act,
        game.legal_actions,
        game.apply,
        game.outcome,
    )
    limit = cap if cap is not None else sys.maxsize

    def run(seconds: float, tally: Tally, rng: random.Random) -> None:
        choice = rng.choice
        clock = time.perf_counter
        cpu = time.process_time()
        end = clock() + seconds
        games = actions = capped = 0
        while clock() < end:
            state = setup(settings, players, rng)
            n = 0
            while n < limit and outcome(state) is None:
                seats = to_act(state)
                if len(seats) == 1:
                    seat = seats[0]
                    moves = legal(state, seat)
                else:
                    options = [(s, m) for s in seats if (m := legal(state, s))]
                    seat, moves = choice(options)
                apply(state, seat, choice(moves))
                n += 1
            actions += n
            games += 1
            capped += n == limit
        tally.games += games
        tally.actions += actions
        tally.capped += capped
        tally.seconds += time.process_time() - cpu

    return run


def rlcard_uno() -> Runner:
    """RLCard's raw 2-player UNO game object, no environment wrapper."""
    import numpy as np
    from rlcard.games.uno.game import UnoGame

    def run(seconds: float, tally: Tally, rng: random.Random) -> None:
        game = UnoGame(num_players=2)
        game.np_random = np.random.RandomState(rng.randrange(2**32))
        choice = rng.choice
        clock = time.perf_counter
        cpu = time.process_time()
        end = clock() + seconds
        games = actions = 0
        while clock() < end:
            game.init_game()
            while not game.is_over():
                game.step(choice(game.get_legal_actions()))
                actions += 1
            games += 1
        tally.games += games
        tally.actions += actions
        tally.seconds += time.process_time() - cpu

    return run


def openspiel_dots(boxes: int) -> Runner:
    """OpenSpiel's C++ dots_and_boxes with ``boxes``×``boxes`` boxes, driven from Python."""
    import pyspiel

    game = pyspiel.load_game(f"dots_and_boxes(num_rows={boxes},num_cols={boxes})")

    def run(seconds: float, tally: Tally, rng: random.Random) -> None:
        choice = rng.choice
        clock = time.perf_counter
        cpu = time.process_time()
        end = clock() + seconds
        games = actions = 0
        while clock() < end:
            state = game.new_initial_state()
            while not state.is_terminal():
                state.apply_action(choice(state.legal_actions()))
                actions += 1
            games += 1
        tally.games += games
        tally.actions += actions
        tally.seconds += time.process_time() - cpu

    return run


def measure(runners: list[Runner], seconds: float, seed: int) -> list[Tally]:
    """Each runner gets about ``seconds`` in total, in alternating slices, after a short warm-up."""
    tallies = [Tally() for _ in runners]
    rng = random.Random(seed)
    for run in runners:
        run(min(0.3, seconds / 10), Tally(), rng)
    slices = max(3, round(seconds / SLICE))
    for _ in range(slices):
        for run, tally in zip(runners, tallies, strict=True):
            run(seconds / slices, tally, rng)
    return tallies


CASES: list[tuple[str, str, Callable[[], Runner], str | None, Callable[[], Runner] | None, float | None]] = [
    # key, label, our runner, peer key, peer runner, bar (ours / peer)
    (
        "uno",
        "UNO, 2 players, one hand, Forced Play (RLCard's draw rule)",
        lambda: ours("uno", {"target_score": 0, "forced_play": True}, 2),
        "rlcard_uno",
        rlcard_uno,
        3.0,
    ),
    (
        "uno_default",
        "UNO, 2 players, one hand, default rules",
        lambda: ours("uno", {"target_score": 0}, 2),
        "rlcard_uno",
        rlcard_uno,
        None,
    ),
    ("uno_match", "UNO, 2 players, 500-point match", lambda: ours("uno", None, 2), None, None, None),
    (
        "dots3",
        "Dots 3×3 boxes, 2 players",
        lambda: ours("dots", {"width": 4, "height": 4}, 2),
        "openspiel_dots3",
        lambda: openspiel_dots(3),
        0.7,
    ),
    (
        "dots5",
        "Dots 5×5 boxes, 2 players",
        lambda: ours("dots", {"width": 6, "height": 6}, 2),
        "openspiel_dots5",
        lambda: openspiel_dots(5),
        0.7,
    ),
    (
        "cheat",
        f"Cheat, 4 players (cap {CHEAT_CAP})",
        lambda: ours("cheat", None, 4, CHEAT_CAP),
        None,
        None,
        None,
    ),
]

KEYS = [case[0] for case in CASES]
PEER_LABELS = {
    "rlcard_uno": "RLCard UnoGame",
    "openspiel_dots3": "OpenSpiel C++",
    "openspiel_dots5": "OpenSpiel C++",
}


HEAD = [
    "engine",
    "games/s",
    "actions/s",
    "actions/game",
    "peer",
    "peer games/s",
    "peer actions/s",
    "peer actions/game",
    "ours / peer (games)",
    "ours / peer (actions)",
]


def cells(tally: Tally) -> list[str]:
    """games/s, actions/s and mean actions per game, formatted for the table."""
    per_game = tally.actions / tally.games if tally.games else 0.0
    return [f"{tally.games_per_s:,.0f}", f"{tally.actions_per_s:,.0f}", f"{per_game:,.1f}"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="wall seconds per engine per measurement")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of the table")
    parser.add_argument("--only", nargs="+", choices=KEYS, help="measure only these")
    args = parser.parse_args(argv)

    out: dict[str, Any] = {
        "seconds": args.seconds,
        "python": platform.python_version(),
        "cpus": os.cpu_count(),
        **{
            f"{name}_compiled": is_compiled(importlib.import_module(f"parlour.games.{name}"))
            for name in BUILT
        },
    }
    rows: list[list[str]] = []
    missed: list[str] = []
    for key, label, make, peer_key, make_peer, bar in CASES:
        if args.only and key not in args.only:
            continue
        try:
            runners = [make()] + ([make_peer()] if make_peer else [])
        except ImportError as err:
            out[f"{key}_games_per_s"] = None
            rows.append([label, f"unavailable: {err}"] + [""] * (len(HEAD) - 2))
            missed.append(key)
            continue
        tallies = measure(runners, args.seconds, args.seed)
        mine = tallies[0]
        out[f"{key}_games_per_s"] = round(mine.games_per_s, 1)
        out[f"{key}_actions_per_s"] = round(mine.actions_per_s)
        if mine.capped:
            out[f"{key}_capped_share"] = round(mine.capped / mine.games, 3)
            label += f"; {mine.capped / mine.games:.0%} of games hit the cap"
        row = [label, *cells(mine)]
        if peer_key is not None:
            peer = tallies[1]
            ratio = mine.games_per_s / peer.games_per_s
            # A peer measured twice (RLCard, against two UNO variants) keeps its first figures.
            out.setdefault(f"{peer_key}_games_per_s", round(peer.games_per_s, 1))
            out.setdefault(f"{peer_key}_actions_per_s", round(peer.actions_per_s))
            out[f"{key}_ratio"] = round(ratio, 2)
            out[f"{key}_actions_ratio"] = round(mine.actions_per_s / peer.actions_per_s, 2)
            verdict = ""
            if bar is not None:
                ok = ratio >= bar
                out[f"{key}_bar_met"] = ok
                verdict = f" (bar {bar:g}×: {'met' if ok else 'MISSED'})"
                if not ok:
                    missed.append(key)
            row += [
                PEER_LABELS[peer_key],
                *cells(peer),
                f"{ratio:.2f}×{verdict}",
                f"{mine.actions_per_s / peer.actions_per_s:.2f}×",
            ]
        rows.append(row + [""] * (len(HEAD) - len(row)))

    if args.json:
        print(json.dumps(out))
    else:
        compiled = [name for name in BUILT if out[f"{name}_compiled"]]
        build = f"compiled with mypyc: {', '.join(compiled) or 'none'}"
        machine = f"Python {out['python']}, {out['cpus']} CPUs; engines {build}"
        print(f"{args.seconds:g} s per engine (rates per CPU second); {machine}")
        print("| " + " | ".join(HEAD) + " |")
        print("|" + "|".join("---" for _ in HEAD) + "|")
        for row in rows:
            print("| " + " | ".join(row) + " |")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
