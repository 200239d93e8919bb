"""Server CPU per replay step on a 50×50-dot Dots game (docs/benchmarks.md, "Replays").

    .venv/bin/python bench/replay.py [--size 50] [--jumps 200] [--browser 100]

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

With ``--browser N`` the record is also stored in a fresh data directory, ``parlour serve`` serves it,
and headless Chromium opens ``/g/<id>`` at 1280×800 and presses → N times from the middle of the
game, then ← N times: per step, the wall time until the board shows it and how many DOM nodes the
page added (a MutationObserver over the table) — rebuilding the 50×50 board would add ~12,000.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sys
import tempfile
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
from parlour.store.sqlite import SQLiteStore  # noqa: E402


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
    log = orjson.loads(orjson.dumps(log))
    return GameRecord("BENCH", 1, "dots", settings, seed, players, result, 0.0, 1.0, log, private=False)


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
    parser.add_argument("--browser", type=int, default=0, help="also step N times in Chromium")
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
    if args.browser:
        browser(record, args.browser)


async def store(data_dir: str, record: GameRecord) -> None:
    """Keep ``record`` as a closed room's finished game, the way the room would have."""
    db = SQLiteStore(data_dir)
    await db.open()
    await db.create_room(record.room, {"code": record.room, "game": record.game, "capacity": 2})
    await db.append(record.room, {"k": "terminate", "s": None, "p": {}, "t": 1.0}, record)
    await db.close_room(record.room, "terminated")
    await db.close()


STEP = """async ([key, count]) => {
  const lines = () => document.querySelectorAll('#stage line.drawn').length;
  let added = 0;
  const tally = (records) => {
    for (const r of records) {
      for (const n of r.addedNodes) added += 1 + (n.querySelectorAll?.('*').length ?? 0);
    }
  };
  const observer = new MutationObserver(tally);
  observer.observe(document.querySelector('#stage'), { childList: true, subtree: true });
  const times = [];
  for (let i = 0; i < count; i++) {
    const before = lines(), start = performance.now();
    document.dispatchEvent(new KeyboardEvent('keydown', { key, bubbles: true }));
    while (lines() === before) await new Promise((done) => requestAnimationFrame(done));
    await new Promise((done) => requestAnimationFrame(done)); // drawn on screen
    times.push(performance.now() - start);
  }
  tally(observer.takeRecords());
  observer.disconnect();
  return { times, added };
}"""


def browser(record: GameRecord, steps: int) -> None:
    """Step through ``record``'s replay in Chromium and print what each step cost the page."""
    from playwright.sync_api import sync_playwright

    sys.path.insert(0, str(ROOT / "bench"))
    sys.path.insert(0, str(ROOT / "tests" / "browser"))
    from conftest import CHROMIUM, CHROMIUM_ARGS
    from web_dots import start_server

    with tempfile.TemporaryDirectory() as data_dir:
        asyncio.run(store(data_dir, record))
        proc, base = start_server(data_dir)
        try:
            with sync_playwright() as pw:
                chromium = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
                context = chromium.new_context(viewport={"width": 1280, "height": 800}, bypass_csp=True)
                page = context.new_page()
                page.goto(f"{base}/g/{record.id}")
                page.wait_for_function("document.body.dataset.ready")
                middle = len(record.log) // 2
                page.locator("#slider").fill(str(middle))
                page.wait_for_function(f"document.querySelectorAll('#stage line.drawn').length === {middle}")
                page.wait_for_timeout(500)
                for key, label in (("ArrowRight", "step forward"), ("ArrowLeft", "step back")):
                    result = page.evaluate(STEP, [key, steps])
                    times = sorted(result["times"])
                    median, worst, nodes = times[len(times) // 2], times[-1], result["added"] / steps
                    print(
                        f"  browser, {label:<13}{steps:>5} steps  median {median:6.1f} ms"
                        f"  max {worst:6.1f} ms  {nodes:7.1f} nodes added/step"
                    )
                chromium.close()
        finally:
            proc.terminate()
            proc.wait(timeout=10)


if __name__ == "__main__":
    main()
