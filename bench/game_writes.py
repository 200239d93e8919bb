"""What storing a finished game adds to the SQLite store's commit, in process (not a test).

``python bench/game_writes.py [--games N] [--rounds R]``

A fresh data directory; each round writes N log appends alone, then N appends that each carry a
finished game (``tests/store/simulated.py``'s bot-played records: the ``games`` row, and per player
its ``player_games`` row and ``player_totals`` update), one awaited append per event-loop tick, as a
room's last command of a game is. Reports process CPU time per commit of each kind, the WAL checkpoint
thread included. The difference is what a finished game costs the server beyond its moves.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from parlour.store import GameRecord, open_store  # noqa: E402
from tests.store.simulated import simulated_records  # noqa: E402

RECORD = {"k": "action", "s": "s_0123456789abcdef", "p": {"action": {"type": "pass"}}, "t": 1732412345.1}


async def run(games: list[GameRecord], rounds: int) -> tuple[list[float], list[float]]:
    """Per round: CPU µs per commit of an append alone, and of an append with a game."""
    plain: list[float] = []
    with_game: list[float] = []
    with tempfile.TemporaryDirectory() as data:
        store = await open_store(data)
        await store.create_room("R0000", {"game": "uno"})
        for number in range(rounds):
            started = time.process_time()
            for _ in games:
                await store.append("R0000", RECORD)
            plain.append(1e6 * (time.process_time() - started) / len(games))
            started = time.process_time()
            for game in games:  # each game stored once per round: a new number makes a new id
                await store.append("R0000", RECORD, replace(game, number=game.number + 1000 * number))
            with_game.append(1e6 * (time.process_time() - started) / len(games))
        await store.close()
    return plain, with_game


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=500, help="commits of each kind per round")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    games, _ = simulated_records(args.games)
    players = statistics.mean(len(g.players) for g in games)
    plain, with_game = asyncio.run(run(games, args.rounds))
    print(f"{args.games} commits of each kind × {args.rounds} rounds; {players:.1f} players per game")
    print("append alone, µs per commit:   " + ", ".join(f"{v:.0f}" for v in plain))
    print("append + game, µs per commit:  " + ", ".join(f"{v:.0f}" for v in with_game))
    extra = statistics.median(with_game) - statistics.median(plain)
    print(f"a finished game adds {extra:.0f} µs (medians)")


if __name__ == "__main__":
    main()
