"""The SQLite store's cost per log append, in process (not a test).

``python bench/store_appends.py [--appends N] [--per-tick K] [--root CHECKOUT] [--then]``

A fresh data directory, 20 rooms, then N appends of a Dots move record, K per event-loop tick (K
rooms' appends awaited together, as K rooms whose moves arrive in one pass of the loop): process
CPU time per append, the WAL checkpoint thread included. ``--root`` imports ``parlour`` from another
checkout, to compare two versions of the store with the same interpreter.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from pathlib import Path

RECORD = {
    "k": "action",
    "s": "s_0123456789abcdef",
    "p": {"action": {"type": "line", "x": 3, "y": 4, "d": 0}},
    "t": 1732412345.123,
}


async def run(appends: int, per_tick: int, then: bool) -> float:
    """CPU seconds per append (``then``: by ``append_then`` callbacks, as a room appends, instead of
    an awaited ``append`` each, whose coroutine ``gather`` runs as a task)."""
    from parlour.store import open_store

    with tempfile.TemporaryDirectory() as data:
        store = await open_store(data)
        rooms = [f"R{i:04d}" for i in range(20)]
        for room in rooms:
            await store.create_room(room, {"game": "dots"})
        done = 0
        started = time.process_time()
        loop = asyncio.get_running_loop()
        tick: list[asyncio.Future[None]] = []  # this tick's: resolved by its last callback
        left = [0]

        def committed(error: BaseException | None) -> None:
            left[0] -= 1
            if error is not None:
                tick[-1].set_exception(error)
            elif not left[0]:
                tick[-1].set_result(None)

        while done < appends:
            if then:
                tick.append(loop.create_future())
                left[0] = per_tick
                for j in range(per_tick):
                    store.append_then(rooms[(done + j) % 20], RECORD, None, committed)
                await tick[-1]
                tick.pop()
            else:
                await asyncio.gather(*(store.append(rooms[(done + j) % 20], RECORD) for j in range(per_tick)))
            done += per_tick
        elapsed = time.process_time() - started
        await store.close()
    return elapsed / done


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--appends", type=int, default=20000)
    parser.add_argument("--per-tick", type=int, default=1)
    parser.add_argument("--root", type=Path, default=Path(__file__).resolve().parent.parent)
    parser.add_argument("--then", action="store_true", help="append_then callbacks, as a room appends")
    args = parser.parse_args()
    sys.path.insert(0, str(args.root.resolve()))
    per_append = asyncio.run(run(args.appends, args.per_tick, args.then))
    how = " (append_then)" if args.then else ""
    print(f"{args.root}: {args.per_tick} per tick{how}: {per_append * 1e6:.1f} µs of CPU per append")


if __name__ == "__main__":
    main()
