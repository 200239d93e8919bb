"""A /ws Cheat move's room and adapter work, in process (not a test): ``python bench/cheat_moves.py``.

Three-player Cheat rooms over the tests' in-memory store, as ``protocol_load.py --protocol cheat``
plays them: the seat on turn places its first card as the rank asked for, nobody calls, until the
game ends. Each member's sink is a ``CheatClient`` fed as the adapter's native session feeds it (its
frames JSON-encoded, as its socket does): what a move costs the server without the sockets, the
store and the websocket parsing (with the server's garbage-collector thresholds). Best of five
rounds (the machine may be shared). ``--root TREE`` runs another checkout's code (e.g. a ``git
worktree`` of an older commit). Exact on a shared machine: ``PYTHONHASHSEED=0 valgrind
--tool=callgrind`` with ``--rounds 1``, the difference of two ``--games`` counts per move.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import random
import secrets
import sys
import time
from pathlib import Path
from typing import Any

parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
parser.add_argument("--root", default=str(Path(__file__).resolve().parent.parent))
parser.add_argument("--games", type=int, default=60, help="games per round (default 60)")
parser.add_argument("--rounds", type=int, default=5, help="rounds, the best one counts (default 5)")
args = parser.parse_args()
sys.path.insert(0, args.root)

from parlour.dumps import json_bytes  # noqa: E402
from parlour.games.cheat import allowed_ranks  # noqa: E402
from parlour.net.adapters.cheat_actions import CheatClient  # noqa: E402
from parlour.rooms import Command  # noqa: E402
from tests.rooms.harness import Harness  # noqa: E402


class AdapterSink:
    """A member's sink as the /ws Cheat adapter's native session is (``FunctionSink``, ``legal`` off)."""

    games = True
    legal = False

    def __init__(self, client: CheatClient) -> None:
        self.client = client

    def send(self, message: dict[str, Any]) -> None:
        self.client._on_native(message)

    def close(self, code: int = 1000, reason: str = "") -> None:
        pass


async def round_(games: int) -> tuple[float, int]:
    """CPU seconds spent on the games' moves, and the moves made."""
    secrets.randbits = random.Random(3).getrandbits  # type: ignore[assignment]  # the same games every run
    harness = Harness()
    cpu, moves = 0.0, 0
    for _ in range(games):
        clients = await harness.table("cheat", 3)
        room = harness.manager.session_rooms[clients[0].session.id]
        by_seat = {}
        for member in room.members.values():
            written: list[bytes] = []
            encode = written.extend

            def send_all(batch: list[dict[str, Any]], encode: Any = encode) -> None:
                encode(map(json_bytes, batch))

            client = CheatClient(None, written.append, lambda: None, send_all)  # type: ignore[arg-type]
            client._snapshot(room.snapshot(member))
            member.sink = AdapterSink(client)
            by_seat[room.game_seat(member)] = member
        while room.state == "playing":
            seat = room.engine.to_act(room.game)[0]
            member = by_seat[seat]
            action = {
                "type": "play",
                "cards": [room.game.hands[seat][0]],
                "rank": allowed_ranks(room.game)[0],
            }
            started = time.process_time()
            error = await room.submit(Command("action", member.session, {"action": action}, member.sink))
            cpu += time.process_time() - started
            if error is not None:
                raise RuntimeError(f"action refused: {error}")
            moves += 1
    return cpu, moves


def main() -> None:
    gc.set_threshold(5_000, 200, 100)  # as ``parlour serve`` runs
    rounds = [asyncio.run(round_(args.games)) for _ in range(args.rounds)]
    cpu, moves = min(rounds)
    print(f"{moves} moves: {cpu / moves * 1e6:.1f} µs CPU per move (room and adapter)")


if __name__ == "__main__":
    main()
