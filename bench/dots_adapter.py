"""The /dots adapter's per-move path in process (not a test): ``python bench/dots_adapter.py``.

Two ``DotsClient``s (the real adapter, on the real in-process native sessions of ``native_link``)
play whole 8×8 games in a room over an in-memory store: CREATE, JOIN, READY, then each MOVE through
``frame_now`` (the fast lane a socket's idle connection takes), the room running every command
before the next move. CPU µs per move, over the moves only (no sockets, no SQLite: what is left
is the adapter, the native session and the room). The median of ``--rounds`` rounds, since the
machine may be shared. ``--root TREE`` runs another checkout's code (e.g. ``/tmp/s8-start``);
interleave runs of both to compare (the best round is the least disturbed by other processes).
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import pstats
import random
import statistics
import sys
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
parser.add_argument("--root", default=str(Path(__file__).resolve().parent.parent))
parser.add_argument("--games", type=int, default=40, help="games per round")
parser.add_argument("--rounds", type=int, default=5)
parser.add_argument("--calls", action="store_true", help="count function calls per move (cProfile) instead")
args = parser.parse_args()
sys.path.insert(0, args.root)

import orjson  # noqa: E402

from parlour.config import Config  # noqa: E402
from parlour.dumps import json_bytes  # noqa: E402
from parlour.net.adapters.dots_packets import DotsClient, Registry, playerid  # noqa: E402
from parlour.net.adapters.native_link import connector  # noqa: E402
from parlour.net.metrics import Metrics  # noqa: E402
from parlour.rooms import Manager, Timings  # noqa: E402
from parlour.rooms.manager import RoomLimits  # noqa: E402
from tests.rooms.harness import MemoryStore  # noqa: E402

DOTS = 8


def client(connect: Any, registry: Registry, written: list[bytes]) -> DotsClient:
    def send(packet: dict[str, Any]) -> None:
        written.append(json_bytes(packet))

    def send_all(packets: list[dict[str, Any]], frames: bytes | None) -> None:
        if frames is not None:
            written.append(frames)
        else:
            written.extend(map(json_bytes, packets))

    return DotsClient(connect, registry, send, lambda: None, send_all)


async def frame(dots: DotsClient, **packet: Any) -> None:
    await dots.on_frame(orjson.dumps(packet).decode())


async def game(
    manager: Manager,
    connect: Any,
    registry: Registry,
    n: int,
    choices: random.Random,
    profile: cProfile.Profile | None,
) -> tuple[int, float]:
    """(moves, CPU seconds spent on them) of one game; with ``profile``, the moves are profiled."""
    written: list[bytes] = []
    a, b = client(connect, registry, written), client(connect, registry, written)
    name = f"bench{n}"
    await frame(a, type="CREATE", roomname=name, width=DOTS, height=DOTS, maxplayers=2)
    await frame(a, type="JOIN", roomname=name, username="A")
    await frame(b, type="JOIN", roomname=name, username="B")
    await frame(a, type="READY", ready=True)
    await frame(b, type="READY", ready=True)
    assert a.room is not None and b.me is not None
    room = manager.rooms[a.room.code]
    while room.state != "playing":
        await asyncio.sleep(0.001)
    by_pid = {playerid(a.me or ""): a, playerid(b.me): b}
    moves, cpu = 0, 0.0
    while room.state == "playing":
        seat = room.engine.to_act(room.game)[0]
        x, y, d = room.game.board.xyd[choices.choice(room.engine.legal_actions(room.game, seat))]
        mover = by_pid[a.pids[seat]]
        raw = orjson.dumps({"type": "MOVE", "x": x, "y": y, "d": d, "token": mover.token})
        count = len(room.records)
        text = raw.decode()
        started = time.process_time()
        if profile is not None:
            profile.enable()
        assert mover.frame_now(text)
        while len(room.records) == count:  # the room runs the move and delivers its messages
            await asyncio.sleep(0)
        await asyncio.sleep(0)
        if profile is not None:
            profile.disable()
        cpu += time.process_time() - started
        moves += 1
    await a.close()
    await b.close()
    return moves, cpu


async def main() -> None:
    metrics = Metrics()
    manager = Manager(
        MemoryStore(),  # type: ignore[arg-type]
        Timings(ready_countdown=0.0, quick_play_countdown=0.0, grace=0.05, empty_room=0.05),
        on_processed=metrics.command,  # as ``parlour serve`` counts commands
        limits=RoomLimits(max_rooms=10**6, rooms_per_owner=10**6),
    )
    config = Config(rate_per_second=1e9, rate_burst=10**9)
    state = SimpleNamespace(manager=manager, config=config, metrics=metrics, limits=None)
    connect = connector(state, "dots")
    registry = Registry()
    choices = random.Random(7)
    n, results = 0, []
    if args.calls:
        profile = cProfile.Profile()
        moves = 0
        for n in range(args.games):
            moves += (await game(manager, connect, registry, n, choices, profile))[0]
        calls = pstats.Stats(profile).total_calls  # type: ignore[attr-defined]
        print(f"{args.root}: function calls per move {calls / moves:.1f} ({moves} moves)")
        return
    for _ in range(args.rounds):
        moves, cpu = 0, 0.0
        for _ in range(args.games):
            n += 1
            m, c = await game(manager, connect, registry, n, choices, None)
            moves, cpu = moves + m, cpu + c
        results.append(cpu / moves * 1e6)
    median, best = statistics.median(results), min(results)
    print(
        f"{args.root}: CPU µs per move: median {median:.1f}, best {best:.1f} {[round(r, 1) for r in results]}"
    )


asyncio.run(main())
