"""Server CPU per replay step on a 50×50-dot Dots game (docs/benchmarks.md, "Replays").

    .venv/bin/python bench/replay.py [--size 50] [--jumps 200]

Two easy bots play a whole game with the engine alone (``parlour.bots.simulate.run``); its moves are
written as the room stores them (a ``GameRecord`` whose log went through JSON), and the replay core
(``parlour.rooms.replay``) serves it as ``GET /api/games/<id>/replay`` would: steps read and encoded
to JSON. Process CPU time (psutil), so other load on the machine does not count:

* build: the first request for the game (one pass over it: log lines and a clone every 64 steps);
* forward: every step in turn, one per request (the cursor moves on by one move);
* forward in chunks: every step in turn, 50 per request (the page's autoplay);
* jump: to a random step, one step per request (from the nearest clone);
* jump to the end, after the cursor was sent back to the deal;
* from the start (the reference): rebuilding the game from its seed up to a random step for each
  request, what serving a step costs without clones or a cursor.
"""

from __future__ import annotations

import argparse
import random
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import psutil

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from parlour.bots.catalog import get_game, make_bot  # noqa: E402
from parlour.bots.simulate import run  # noqa: E402
from parlour.dumps import json_bytes  # noqa: E402
from parlour.rooms.game_flow import outcome_json  # noqa: E402
from parlour.rooms.replay import Replay  # noqa: E402
from parlour.store import GameRecord  # noqa: E402


def dots_record(size: int, seed: int = 7) -> GameRecord:
    engine = get_game("dots")
    settings = {"width": size, "height": size}
    state = engine.setup(engine.settings(settings), 2, random.Random(seed))
    bots = [make_bot("dots", "easy", s, random.Random(seed + s)) for s in range(2)]
    moves: list[tuple[int, Any]] = []
    outcome, _ = run(engine, state, bots, random.Random(seed + 9), moves=moves)
    players = [
        {"seat": s, "member": f"m{s + 1}", "name": f"Bot {s}", "session": f"bot:m{s + 1}"} for s in range(2)
    ]
    log = [{"k": "start", "s": "h", "p": {"seed": seed}, "t": 0.0}]
    log += [
        {"k": "action", "s": f"bot:m{s + 1}", "p": {"engine_action": a}, "t": float(i)}
        for i, (s, a) in enumerate(moves, 1)
    ]
    result = outcome_json(outcome)
    return GameRecord(
        "BENCH", 1, "dots", settings, seed, players, result, 0.0, 1.0, orjson.loads(orjson.dumps(log))
    )


def cpu() -> float:
    times = psutil.Process().cpu_times()
    return times.user + times.system


def measure(label: str, requests: int, fn: Callable[[], int]) -> None:
    before = cpu()
    steps = fn()
    spent = cpu() - before
    per_request, per_step = 1000 * spent / requests, 1000 * spent / steps
    print(f"  {label:<34}{requests:>6} requests {per_request:>9.3f} ms/request {per_step:>8.3f} ms/step")


def serve(replay: Replay, first: int, count: int) -> int:
    """One request: the steps, encoded as the endpoint encodes them; returns the steps served."""
    steps = [s.json() for s in replay.read(first, count, 0)]
    json_bytes({"steps": steps})
    return len(steps)


def from_the_start(record: GameRecord, target: int) -> int:
    """The reference: set the game up from its seed and apply every step up to ``target``."""
    engine = get_game("dots")
    state = engine.setup(engine.settings(record.settings), 2, random.Random(record.seed))
    for entry in record.log[1 : target + 1]:
        engine.apply(state, 0 if entry["s"] == "bot:m1" else 1, entry["p"]["engine_action"])
    json_bytes({"steps": [{"view": engine.view(state, 0)}]})
    return 1


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--size", type=int, default=50)
    parser.add_argument("--jumps", type=int, default=200)
    args = parser.parse_args()
    record = dots_record(args.size)
    rng = random.Random(1)
    replay: Replay | None = None

    def build() -> int:
        nonlocal replay
        for _ in range(5):
            replay = Replay(record)
        return 5 * replay.total

    total = len(record.log)
    print(f"Dots {args.size}×{args.size}: {total} steps (the deal and {total - 1} moves)")
    measure("build (first request)", 5, build)
    assert replay is not None
    r = replay
    measure("forward, 1 step per request", total, lambda: sum(serve(r, n, 1) for n in range(total)))
    chunks = range(0, total, 50)
    measure("forward, 50 steps per request", len(chunks), lambda: sum(serve(r, n, 50) for n in chunks))
    targets = [rng.randrange(total) for _ in range(args.jumps)]
    measure("jump to a random step", args.jumps, lambda: sum(serve(r, n, 1) for n in targets))

    def to_end() -> int:
        for _ in range(args.jumps):
            serve(r, 0, 1)
        return 0

    before = cpu()
    to_end()
    back = cpu() - before
    before = cpu()
    served = 0
    for _ in range(args.jumps):
        serve(r, 0, 1)
        served += serve(r, total - 1, 1)
    spent = cpu() - before - back
    label = "jump from the deal to the end"
    print(f"  {label:<34}{args.jumps:>6} requests {1000 * spent / args.jumps:>9.3f} ms/request")
    some = targets[: max(10, args.jumps // 4)]
    measure("reference: from the start", len(some), lambda: sum(from_the_start(record, n) for n in some))


if __name__ == "__main__":
    main()
