"""The history API at 100,000 stored games: how fast every list endpoint answers (docs/benchmarks.md).

    .venv/bin/python bench/history.py [--games 100000] [--requests 300]

Fills a fresh SQLite data directory through the store's own write path (``SQLiteStore.append``, one
transaction per batch, so the history index and the totals are written exactly as a server writes
them): bots play a few hundred real games of every game with the engines alone (``tests/store/
simulated.py``), and those records are repeated with new rooms, end times and seats taken by 2,000
guest profiles and the bot levels, half of them in private rooms. Then it starts ``parlour serve``
on that directory and times each endpoint over one keep-alive connection: wall-clock p50/p99 per
request as the client sees it, and the server process's CPU time per request (psutil).
"""

from __future__ import annotations

import argparse
import asyncio
import http.client
import json
import random
import statistics
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from parlour.rooms.validate import hash_token  # noqa: E402
from parlour.store import GameRecord, ProfileRecord  # noqa: E402
from parlour.store.sqlite import SQLiteStore  # noqa: E402
from tests.server.conftest import ServerProcess  # noqa: E402
from tests.store.simulated import simulated_records  # noqa: E402

PROFILES = 2000
BATCH = 2000


def secret(i: int) -> str:
    return f"bench-secret-{i}"


def profile(i: int) -> str:
    return f"p_{i:016x}"


async def fill(data: Path, games: int, seed: int = 7) -> dict[str, str]:
    """Store ``games`` finished games; returns ids the timings use (a busy player, a room, a game)."""
    rng = random.Random(seed)
    samples, _ = simulated_records(400, seed=seed)
    samples = [s for s in samples if s.result["winners"] or s.result["tie"]]
    store = SQLiteStore(data)
    await store.open()
    for i in range(PROFILES):
        await store.save_profile(ProfileRecord(profile(i), f"Player {i}", hash_token(secret(i)), 0.0))
    # A few players play much more than the rest (as on any server): profile 0 most of all.
    weights = [1 / (i + 1) for i in range(PROFILES)]
    started = time.perf_counter()
    for start in range(0, games, BATCH):
        pending = []
        for n in range(start, min(start + BATCH, games)):
            sample = rng.choice(samples)
            players = []
            taken: set[int] = set()
            for p in sample.players:
                entry = {k: v for k, v in p.items() if k not in ("profile", "bot")}
                if rng.random() < 0.3:
                    entry["bot"], entry["name"] = rng.choice(["easy", "hard"]), f"Bot {p['seat'] + 1}"
                else:
                    while (who := rng.choices(range(PROFILES), weights)[0]) in taken:
                        pass
                    taken.add(who)
                    entry["profile"], entry["name"] = profile(who), f"Player {who}"
                players.append(entry)
            ended = 1_700_000_000.0 + n * 3.7
            record: GameRecord = replace(
                sample,
                room=f"R{n // 4:06d}",
                number=n % 4 + 1,
                seed=rng.getrandbits(63),
                players=players,
                started_at=ended - 300,
                ended_at=ended,
                private=n % 2 == 1,
            )
            pending.append(store.append(record.room, {"k": "action", "s": None, "p": {}, "t": ended}, record))
        await asyncio.gather(*pending)
    print(f"filled {games} games in {time.perf_counter() - started:.1f} s", file=sys.stderr)
    (row,) = store._query("SELECT room, gid FROM games WHERE private = 0 ORDER BY id DESC LIMIT 1", ())
    await store.close()
    return {"room": row[0], "game": row[1]}


def time_requests(
    server: ServerProcess, path: str, count: int, headers: dict[str, str]
) -> tuple[float, float, float, int]:
    """p50 and p99 milliseconds, server CPU ms per request, and the answer's size in bytes."""
    assert server.proc is not None
    proc = psutil.Process(server.proc.pid)
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    times = []
    size = 0
    for _ in range(5):  # first requests warm the caches
        conn.request("GET", path, headers=headers)
        conn.getresponse().read()
    cpu = proc.cpu_times()
    for _ in range(count):
        began = time.perf_counter()
        conn.request("GET", path, headers=headers)
        reply = conn.getresponse()
        body = reply.read()
        times.append((time.perf_counter() - began) * 1000)
        assert reply.status == 200, (path, reply.status, body[:200])
        size = len(body)
    after = proc.cpu_times()
    conn.close()
    cpu_ms = ((after.user + after.system) - (cpu.user + cpu.system)) * 1000 / count
    times.sort()
    return statistics.median(times), times[int(len(times) * 0.99) - 1], cpu_ms, size


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--requests", type=int, default=300)
    args = parser.parse_args()
    data = Path(tempfile.mkdtemp(prefix="parlour-history-"))
    ids = asyncio.run(fill(data, args.games))
    server = ServerProcess(data, {"PARLOUR_LOG_LEVEL": "warning"})
    server.start(timeout=60)
    me = {"X-Parlour-Profile": f"{profile(0)}:{secret(0)}"}
    other = {"X-Parlour-Profile": f"{profile(1)}:{secret(1)}"}
    try:
        conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
        path = "/api/games?limit=20"
        for _ in range(200):  # a cursor 200 pages (4,000 games) deep
            conn.request("GET", path)
            cursor = json.loads(conn.getresponse().read())["next"]
            path = f"/api/games?limit=20&before={cursor}"
        conn.close()
        cases = [
            ("/api/games", "newest public games", {}),
            ("/api/games", "newest games, as a player (public + their private)", me),
            (path, "page 201 of the public games (cursor)", {}),
            ("/api/games?game=uno", "one game's", {}),
            (f"/api/games?player={profile(0)}", "the busiest player's, as themself", me),
            (f"/api/games?player={profile(0)}", "the busiest player's, as another player", other),
            (f"/api/games?player={profile(0)}&game=cheat", "a player's games of one game", me),
            ("/api/games?player=bot-uno-hard", "a bot level's", {}),
            (f"/api/games?room={ids['room']}", "one room's", {}),
            (f"/api/players/{profile(0)}", "the busiest player's page", me),
            ("/api/players/bot-dots-easy", "a bot level's page", {}),
            ("/api/leaderboard/uno", "UNO leaderboard", {}),
            ("/api/leaderboard/cheat", "Cheat leaderboard", {}),
            (f"/api/games/{ids['game']}", "one game with its steps (not a list)", {}),
        ]
        print("| endpoint | what | p50 ms | p99 ms | server CPU ms/request | bytes |")
        print("|---|---|---|---|---|---|")
        for path, what, headers in cases:
            p50, p99, cpu, size = time_requests(server, path, args.requests, headers)
            shown = path if len(path) < 60 else path[:40] + "…"
            print(f"| `{shown}` | {what} | {p50:.2f} | {p99:.2f} | {cpu:.2f} | {size} |")
    finally:
        server.stop()


if __name__ == "__main__":
    main()
