"""Room cost per game action, in process (not a test): ``python bench/room_actions.py [--actions N]``.

Four-player UNO rooms over the tests' in-memory store; every member is a sink that encodes each
message with orjson, as a websocket connection does. One seat after another plays a random legal
action through ``room.submit`` until N actions are done. Game seeds and choices come from fixed
seeds, so two runs of the same code play the same games: under ``valgrind --tool=callgrind`` (with
``PYTHONHASHSEED=0``) the instruction count is exact on a machine shared with other work, and the
difference between two ``--actions`` counts is the rooms' cost per action without the start-up.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import secrets
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from parlour.dumps import json_bytes
from parlour.rooms import Command
from tests.rooms.harness import Harness


class EncodingSink:
    """Encodes every message, like ``net.connection.Connection``, and keeps only the byte count."""

    json = True

    def __init__(self) -> None:
        self.bytes = 0

    def send(self, message: dict[str, Any]) -> None:
        self.bytes += len(json_bytes(message))

    def send_json(self, data: bytes) -> None:
        """A message the room encoded itself (a game message), as ``Connection.send_json`` takes it."""
        self.bytes += len(data)

    def close(self, code: int = 1000, reason: str = "") -> None:
        pass


async def run(actions: int, seed: int) -> float:
    """CPU seconds spent on ``actions`` game actions (room set-up excluded)."""
    seeds = random.Random(seed)
    secrets.randbits = seeds.getrandbits  # type: ignore[assignment]  # the same games in every run
    choices = random.Random(seed + 1)
    harness = Harness()
    done, cpu = 0, 0.0
    while done < actions:
        clients = await harness.table("uno", 4)
        room = harness.manager.session_rooms[clients[0].session.id]
        for member in room.members.values():
            member.sink = EncodingSink()
        by_seat = {room.game_seat(m): m for m in room.members.values()}
        started = time.process_time()
        while room.state == "playing" and done < actions:
            seat = room.engine.to_act(room.game)[0]
            member = by_seat[seat]
            action = choices.choice(room.engine.legal_actions(room.game, seat))
            error = await room.submit(Command("action", member.session, {"action": action}, member.sink))
            if error is not None:
                raise RuntimeError(f"action refused: {error}")
            done += 1
        cpu += time.process_time() - started
    return cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--actions", type=int, default=20000, help="game actions to play (default 20000)")
    parser.add_argument("--seed", type=int, default=11)
    args = parser.parse_args()
    cpu = asyncio.run(run(args.actions, args.seed))
    print(f"{args.actions} actions: {cpu / args.actions * 1e6:.1f} µs CPU per action")


if __name__ == "__main__":
    main()
