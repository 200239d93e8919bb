"""The replay core: games played by bots (``parlour.bots.simulate``) and by the room, rebuilt from their
records step by step (the live-websocket comparison is in tests/server/test_replay_live.py)."""

from __future__ import annotations

import random
from typing import Any

import orjson
import pytest

from parlour.bots.catalog import CATALOG, REGISTERED, get_game, make_bot
from parlour.bots.simulate import run
from parlour.rooms.game_flow import outcome_json
from parlour.rooms.game_record import public_game
from parlour.rooms.replay import ALL, CLONE_EVERY, MAX_CLONES, Replay, ReplayError, Replays, StepKind
from parlour.store import GameRecord

SETTINGS: dict[str, dict[str, Any]] = {
    "uno": {"target_score": 0},
    "cheat": {},
    "dots": {"width": 6, "height": 5},
    "connect_four": {},
}
PLAYERS = {"uno": 3, "cheat": 3, "dots": 2, "connect_four": 2}


def simulated_record(
    game: str, seed: int, players: int, settings: dict[str, Any], opener: int | None = None
) -> GameRecord:
    """A bots-only game from ``simulate.run``, written as the room would store it (engine actions
    through JSON, as the store keeps them); ``opener`` None: logged as before the room passed the first
    move round the table (no opener in the start command)."""
    engine = get_game(game)
    state = engine.setup(engine.settings(settings), players, random.Random(seed), opener or 0)
    levels = list(CATALOG[game].bots)
    bots = [make_bot(game, levels[s % len(levels)], s, random.Random(seed + s)) for s in range(players)]
    moves: list[tuple[int, Any]] = []
    outcome, _ = run(engine, state, bots, random.Random(seed ^ 0xBEEF), moves=moves)
    assert outcome is not None
    seats = [
        {"seat": s, "member": f"m{s + 1}", "name": f"Bot {s}", "session": f"bot:m{s + 1}"}
        for s in range(players)
    ]
    start: dict[str, Any] = {"seed": seed} if opener is None else {"seed": seed, "opener": opener}
    log = [{"k": "start", "s": "host", "p": start, "t": 0.0}]
    log += [
        {"k": "action", "s": f"bot:m{seat + 1}", "p": {"engine_action": action}, "t": float(i)}
        for i, (seat, action) in enumerate(moves, 1)
    ]
    log = orjson.loads(orjson.dumps(log))
    return GameRecord(
        "ROOM", 1, game, settings, seed, seats, outcome_json(outcome), 0.0, float(len(log)), log
    )


@pytest.mark.parametrize("game", REGISTERED)
def test_a_simulated_game_replays_to_its_recorded_outcome(game: str) -> None:
    record = simulated_record(game, 11, PLAYERS[game], SETTINGS[game])
    replay = Replay(record)
    assert replay.total == len(record.log)  # the deal, then one step per move
    assert replay.outcome is not None and outcome_json(replay.outcome) == record.result
    last = replay.read(replay.total - 1, 1, 0)[0]
    assert last.turn is None and last.n == replay.total - 1
    # The replayed log has the outcome's line last, and numbers its lines without gaps.
    assert [e["n"] for e in replay.log] == list(range(len(replay.log)))
    assert replay.log[-1]["step"] == replay.total - 1


@pytest.mark.parametrize("game", ["dots", "connect_four"])
def test_a_game_another_seat_opened_replays_from_that_seat(game: str) -> None:
    """The room passes the first move round the table: the record's start command names the opener,
    the deal replays with that seat to move and the whole game replays from it."""
    record = simulated_record(game, 11, PLAYERS[game], SETTINGS[game], opener=1)
    assert public_game(record)["opener"] == 1
    assert public_game(record)["actions"][0]["seat"] == 1
    replay = Replay(record)
    assert replay.read(0, 1, None)[0].turn == 1
    assert replay.outcome is not None and outcome_json(replay.outcome) == record.result
    # A record from before there was an opener opened with seat 0, and still replays.
    old = simulated_record(game, 11, PLAYERS[game], SETTINGS[game])
    assert public_game(old)["opener"] == 0 and public_game(old)["actions"][0]["seat"] == 0
    assert Replay(old).read(0, 1, None)[0].turn == 0


@pytest.mark.parametrize("game", REGISTERED)
def test_every_way_of_reading_a_step_gives_the_same_view(game: str) -> None:
    """From the start in chunks, backwards one at a time, and by jumps: the same view each time."""
    record = simulated_record(game, 5, PLAYERS[game], SETTINGS[game])
    replay = Replay(record)
    forward = []
    for first in range(0, replay.total, 7):
        forward += [s.json() for s in replay.read(first, 7, 1)]
    assert [s["n"] for s in forward] == list(range(replay.total))
    backward = [replay.read(n, 1, 1)[0].json() for n in reversed(range(replay.total))]
    assert backward[::-1] == forward
    fresh = Replay(record)
    for n in random.Random(3).sample(range(replay.total), min(25, replay.total)):
        assert fresh.read(n, 1, 1)[0].json() == forward[n]
    # The steps' log lines, together, are the game's log.
    lines = [
        {**{k: v for k, v in e.items() if k != "event"}, "step": s["n"]} for s in forward for e in s["log"]
    ]
    assert lines == replay.log


def test_all_hands_shows_every_seats_view_and_a_spectator_sees_no_hand() -> None:
    record = simulated_record("uno", 2, 3, SETTINGS["uno"])
    replay = Replay(record)
    step = replay.read(5, 1, ALL)[0]
    assert step.hands is not None and sorted(step.hands) == ["0", "1", "2"]
    assert all("hand" in h for h in step.hands.values())
    assert "hand" not in step.view
    seat1 = replay.read(5, 1, 1)[0]
    assert seat1.view["hand"] == step.hands["1"]["hand"]
    assert "hand" not in replay.read(5, 1, None)[0].view


def test_steps_cover_leaves_timeouts_and_skip_what_does_not_change_the_game() -> None:
    """A kick, a turn timeout and a grace timer without takeover are steps; chat, disconnects and a
    grace timer a bot took over are not."""
    seed = 4
    seats = [{"seat": s, "member": f"m{s + 1}", "name": f"P{s}", "session": f"s{s}"} for s in range(3)]
    log = [
        {"k": "start", "s": "s0", "p": {"seed": seed}, "t": 0.0},
        {"k": "chat", "s": "s1", "p": {"text": "hi"}, "t": 1.0},
        {"k": "timer", "s": None, "p": {"name": "turn", "deadline": 2.0}, "t": 2.0},
        {"k": "disconnect", "s": "s2", "p": {}, "t": 3.0},
        {"k": "timer", "s": None, "p": {"name": "grace:m3", "deadline": 4.0, "takeover": True}, "t": 4.0},
        {"k": "kick", "s": "s0", "p": {"member": "m2"}, "t": 5.0},
        {"k": "leave", "s": "s2", "p": {}, "t": 6.0},
    ]
    record = GameRecord("ROOM", 1, "dots", {"max_players": 3}, seed, seats, {}, 0.0, 6.0, log)
    replay = Replay(record)
    assert [(s.kind, s.seat) for s in replay.steps] == [
        (StepKind.DEAL, None),
        (StepKind.TIMEOUT, 0),  # the seat that was on the clock
        (StepKind.LEAVE, 1),
        (StepKind.LEAVE, 2),
    ]
    steps = replay.read(0, 50, None)
    assert steps[1].actor == 0 and steps[1].view["lines"]  # the clock drew a line for seat 0
    assert steps[-1].view["over"] and steps[-1].view["winners"] == [0]
    assert replay.outcome is not None and replay.outcome.reason == "last_player"


def test_a_log_the_engine_refuses_is_a_replay_error() -> None:
    seats = [{"seat": s, "member": f"m{s + 1}", "name": f"P{s}", "session": f"s{s}"} for s in range(2)]
    log = [
        {"k": "start", "s": "s0", "p": {"seed": 1}, "t": 0.0},
        {"k": "action", "s": "s1", "p": {"engine_action": 0}, "t": 1.0},  # seat 1 is not on turn
    ]
    with pytest.raises(ReplayError, match="does not replay"):
        Replay(GameRecord("ROOM", 1, "dots", {}, 1, seats, {}, 0.0, 1.0, log))
    with pytest.raises(ReplayError, match="unknown game"):
        Replay(GameRecord("ROOM", 1, "chess", {}, 1, seats, {}, 0.0, 1.0, log))


class CountingEngine:
    """The real engine, counting the moves applied through it."""

    def __init__(self, engine: Any) -> None:
        self.engine, self.applied = engine, 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self.engine, name)

    def apply(self, state: Any, seat: int, action: Any) -> Any:
        self.applied += 1
        return self.engine.apply(state, seat, action)


def test_a_jump_replays_from_the_nearest_clone_not_from_the_start() -> None:
    """The cost of a jump is bounded by the clones' spacing: count the engine calls a jump makes."""
    record = simulated_record("dots", 9, 2, {"width": 12, "height": 12})
    replay = Replay(record)
    assert replay.total > 3 * CLONE_EVERY and replay.clone_every == CLONE_EVERY
    counting = CountingEngine(replay.engine)
    replay.engine = counting
    replay.read(replay.total - 1, 1, 0)
    assert counting.applied <= replay.clone_every
    counting.applied = 0
    replay.read(replay.total - 2, 1, 0)  # one back: from a clone again
    assert counting.applied <= replay.clone_every
    counting.applied = 0
    replay.read(replay.total - 1, 1, 0)  # one forward from the cursor: one move
    assert counting.applied == 1


def test_a_long_game_keeps_at_most_max_clones() -> None:
    record = simulated_record("dots", 3, 2, {"width": 34, "height": 34})
    replay = Replay(record)
    assert replay.total > CLONE_EVERY * MAX_CLONES
    assert len(replay._clones) <= MAX_CLONES + 1 and replay.clone_every > CLONE_EVERY
    assert replay.read(replay.total - 1, 1, 0)[0].view["over"]


def test_replays_keeps_the_most_recently_used() -> None:
    cache = Replays(size=2)
    records = [simulated_record("connect_four", seed, 2, {}) for seed in (1, 2, 3)]
    first = cache.get(records[0])
    assert cache.get(records[0]) is first
    cache.get(records[1])
    cache.get(records[0])
    cache.get(records[2])  # records[1] was the least recently used
    assert cache.get(records[0]) is first
    assert len(cache._replays) == 2 and records[1].id not in cache._replays
