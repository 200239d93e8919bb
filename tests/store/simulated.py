"""Finished games played by bots with the engines alone, as the records a room would store for them.

Seats are taken by a small pool of guest profiles and by bots (counted under their level's
pseudo-profile); every fifth game is an abandoned one (no stats), every third is private.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from parlour.bots.catalog import CATALOG, make_bot
from parlour.bots.simulate import run
from parlour.store import GameRecord
from parlour.store.base import bot_profile

PROFILES = [f"p_{i:016x}" for i in range(6)]
SETTINGS: dict[str, dict[str, Any]] = {"dots": {"width": 3, "height": 3}, "uno": {"target_score": 0}}


@dataclass
class Expected:
    """Totals counted from the outcomes, per (profile, game), independently of any store."""

    played: dict[tuple[str, str], int] = field(default_factory=dict)
    won: dict[tuple[str, str], int] = field(default_factory=dict)
    stats: dict[tuple[str, str], dict[str, int]] = field(default_factory=dict)
    games_of: dict[str, set[str]] = field(default_factory=dict)
    """Profile → ids of every game it played (abandoned ones too)."""


def simulated_records(count: int, seed: int = 0) -> tuple[list[GameRecord], Expected]:
    rng = random.Random(seed)
    names = sorted(CATALOG)
    expected = Expected()
    records = []
    for number in range(count):
        name = names[number % len(names)]
        game = CATALOG[name].game
        players = 3 if name == "cheat" else 2
        game_seed = rng.getrandbits(63)
        seats: list[dict[str, Any]] = []
        for seat in range(players):
            if rng.random() < 0.4:
                seats.append(
                    {"seat": seat, "member": f"m{seat}", "name": "Bot", "bot": rng.choice(["easy", "hard"])}
                )
            else:
                profile = rng.choice([p for p in PROFILES if p not in {s.get("profile") for s in seats}])
                seats.append({"seat": seat, "member": f"m{seat}", "name": profile[-4:], "profile": profile})
            seats[-1]["session"] = f"s_{number}_{seat}"
        state = game.setup(game.settings(SETTINGS.get(name)), players, random.Random(game_seed))
        bots = [make_bot(name, "easy", s, random.Random(game_seed + s)) for s in range(players)]
        abandoned = number % 5 == 4
        if abandoned:
            result: dict[str, Any] = {"winners": [], "scores": {}, "reason": "terminated", "tie": False}
        else:
            outcome, _ = run(game, state, bots, random.Random(game_seed))
            assert outcome is not None
            result = {
                "winners": list(outcome.winners),
                "scores": {str(k): v for k, v in outcome.scores.items()},
                "reason": outcome.reason,
                "tie": outcome.tie,
            }
            for entry in seats:
                entry["stats"] = game.player_stats(state, outcome, entry["seat"])
        ended = 1_700_000_000.0 + number * 7.25
        record = GameRecord(
            f"R{number // 3:05d}",
            number % 3 + 1,
            name,
            SETTINGS.get(name, {}),
            game_seed,
            seats,
            result,
            ended - 60,
            ended,
            [],
            private=number % 3 == 0,
        )
        records.append(record)
        for entry in seats:
            profile = bot_profile(name, entry["bot"]) if "bot" in entry else entry["profile"]
            expected.games_of.setdefault(profile, set()).add(record.id)
            if abandoned:
                continue
            key = (profile, name)
            expected.played[key] = expected.played.get(key, 0) + 1
            won = entry["seat"] in result["winners"] and not result["tie"]  # a tie is nobody's win
            expected.won[key] = expected.won.get(key, 0) + won
            totals = expected.stats.setdefault(key, {})
            if name == "uno":
                totals["points"] = totals.get("points", 0) + outcome.scores[entry["seat"]]
            elif name == "dots":
                totals["boxes"] = totals.get("boxes", 0) + outcome.scores.get(entry["seat"], 0)
            else:  # Cheat's calls and Connect Four's discs are not in an outcome: the engine's own counts
                for key_, value in entry["stats"].items():
                    totals[key_] = totals.get(key_, 0) + value
    return records, expected
