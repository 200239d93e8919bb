"""The /ws Cheat adapter's per-move work in process (not a test): ``python bench/cheat_adapter.py``.

A three-player Cheat game is played to its end in an in-process room (fixed seeds, random legal
moves) and one seat's native messages are recorded; a fresh ``CheatClient`` then translates them
(each write-up frame JSON-encoded, as its socket does): CPU µs per native message. Then the
engine's ``seat_view`` of the seat on turn (its hand, ``can_call`` and ``legal``): µs per call.
Each is the best of five rounds (the machine may be shared). ``--root TREE`` runs another
checkout's code (e.g. a ``git worktree`` of an older commit).
"""

from __future__ import annotations

import argparse
import asyncio
import random
import secrets
import sys
import time
import timeit
from pathlib import Path
from typing import Any

parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
parser.add_argument("--root", default=str(Path(__file__).resolve().parent.parent))
parser.add_argument("--repeat", type=int, default=100, help="translations of the game per round")
args = parser.parse_args()
sys.path.insert(0, args.root)

from parlour.bots.catalog import get_game  # noqa: E402
from parlour.dumps import json_bytes  # noqa: E402
from parlour.net.adapters.cheat_actions import CheatClient  # noqa: E402
from parlour.rooms import Command  # noqa: E402
from tests.rooms.harness import Harness  # noqa: E402


async def record() -> list[dict[str, Any]]:
    """The second seat's messages of one whole game."""
    secrets.randbits = random.Random(3).getrandbits  # type: ignore[assignment]  # the same game every run
    harness = Harness()
    clients = await harness.table("cheat", 3)
    room = harness.manager.session_rooms[clients[0].session.id]
    by_seat = {room.game_seat(m): m for m in room.members.values()}
    choices = random.Random(5)
    while room.state == "playing":
        seat = room.engine.to_act(room.game)[0]
        action = choices.choice(room.engine.legal_actions(room.game, seat))
        await room.submit(Command("action", by_seat[seat].session, {"action": action}))
    return clients[1].messages


def translation(messages: list[dict[str, Any]], repeat: int) -> float:
    """CPU µs per native message translated and encoded."""
    snapshot = next(m for m in messages if m["type"] == "room")
    rest = messages[messages.index(snapshot) + 1 :]
    written: list[bytes] = []

    def send_all(batch: list[dict[str, Any]]) -> None:
        written.extend(map(json_bytes, batch))

    rounds = []
    for _ in range(5):
        spent = 0.0
        for _ in range(repeat):
            client = CheatClient(None, written.append, lambda: None, send_all)  # type: ignore[arg-type]
            client._snapshot(snapshot)
            started = time.process_time()
            for message in rest:
                client._on_native(message)
            spent += time.process_time() - started
            written.clear()
        rounds.append(spent / (repeat * len(rest)) * 1e6)
    return min(rounds)


def seat_view() -> float:
    game = get_game("cheat")
    state = game.setup(game.settings({}), 3, random.Random(3))
    seat = game.to_act(state)[0]
    calls = 2000
    return min(timeit.repeat(lambda: game.seat_view(state, seat), number=calls, repeat=5)) / calls * 1e6


def main() -> None:
    messages = asyncio.run(record())
    print(f"translation: {translation(messages, args.repeat):.2f} µs per native message")
    print(f"seat_view of the seat on turn: {seat_view():.2f} µs")


if __name__ == "__main__":
    main()
