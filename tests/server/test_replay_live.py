"""A replay shows what the table showed: games between humans (scripted websocket clients) and bots on
a real ``parlour serve``, every frame each seat and a spectator received recorded, then the stored
record rebuilt with the replay core and compared step by step with those frames."""

from __future__ import annotations

import asyncio
from typing import Any

import orjson
import pytest

from parlour.rooms.replay import ALL, Replay
from parlour.store import GameRecord
from parlour.store.sqlite import SQLiteStore
from tests.server.client import Client, close_all, first_legal
from tests.server.conftest import ServerProcess


async def play_with_bots(
    server: ServerProcess,
    game: str,
    humans: int,
    bots: int,
    settings: dict[str, Any],
    leave_at: int | None = None,
) -> tuple[list[Client], Client, str]:
    """Humans (the first hosts) and bots play one game to its end while a spectator watches; with
    ``leave_at``, the last human leaves the room once the game reached that step. Returns the humans,
    the spectator and the game's id."""
    host = await Client.open(server.ws, "Ada")
    room = await host.ok("create_room", game=game, settings=settings, capacity=humans + bots)
    code = room["code"]
    seated = [host]
    for i in range(1, humans):
        client = await Client.open(server.ws, f"Human {i}")
        await client.ok("join", code=code)
        seated.append(client)
    for _ in range(bots):
        await host.ok("add_bot", level="easy")
    spectator = await Client.open(server.ws, "Watcher")
    await spectator.ok("spectate", code=code)
    await host.ok("start")
    for client in [*seated, spectator]:
        await client.wait_for(lambda m: m.get("type") == "game_started", from_start=True)
    playing = list(seated)
    for _ in range(20_000):
        if all(c.game_over is not None for c in playing):
            break
        if leave_at is not None and len(playing) == len(seated) and spectator.seq >= leave_at:
            await playing.pop().ok("leave")
        acted = False
        for client in playing:
            if client.game_over is None and client.turn is not None and client.turn["seat"] == client.seat:
                seq = client.seq
                reply = await client.request("action", action=first_legal(client.view or {}))
                if reply["type"] == "ok":
                    await client.wait_for(
                        lambda m, s=seq: m.get("type") != "game" or m["seq"] > s, from_start=True
                    )
                    acted = True
        if not acted:
            await asyncio.sleep(0.01)
    over = await spectator.wait_for(lambda m: m.get("type") == "game_over", timeout=30, from_start=True)
    return seated, spectator, over["game_id"]


def live_frames(client: Client) -> dict[int, dict[str, Any]]:
    """The game messages a client received, by ``seq``."""
    return {m["seq"]: m for m in client.messages if m.get("type") in ("game_started", "game")}


def json_round(value: Any) -> Any:
    return orjson.loads(orjson.dumps(value))


async def stored_record(server: ServerProcess, game_id: str) -> GameRecord:
    server.stop()  # the store is the server's until it exits
    store = SQLiteStore(server.data_dir)
    await store.open()
    try:
        record = await store.game(game_id)
    finally:
        await store.close()
    assert record is not None
    return record


@pytest.mark.parametrize(
    ("game", "humans", "bots", "settings", "leave_at"),
    [
        ("uno", 2, 1, {"target_score": 0}, None),
        ("uno", 2, 2, {"target_score": 0}, 4),
        ("cheat", 2, 1, {}, None),
        ("cheat", 2, 2, {}, 5),
        ("dots", 1, 1, {"width": 5, "height": 4}, None),
        ("dots", 2, 1, {"width": 5, "height": 4, "max_players": 3}, 3),
        ("connect_four", 1, 1, {}, None),
    ],
)
async def test_each_step_of_the_replay_is_what_each_seat_and_the_spectator_saw(
    server_factory: Any,
    game: str,
    humans: int,
    bots: int,
    settings: dict[str, Any],
    leave_at: int | None,
) -> None:
    """Also with a player leaving mid-game (the engine's leave rule is a step of its own), and "all
    hands" (each seat's part over the spectator's view) equal to every seat's own view."""
    server = server_factory(env={"PARLOUR_BOT_DELAY": "0"})
    seated, spectator, game_id = await play_with_bots(server, game, humans, bots, settings, leave_at)
    await close_all(seated, [spectator])
    record = await stored_record(server, game_id)
    replay = Replay(record)
    assert replay.outcome is not None
    assert json_round({"winners": replay.outcome.winners, "reason": replay.outcome.reason}) == {
        "winners": record.result["winners"],
        "reason": record.result["reason"],
    }
    if leave_at is not None:
        assert "leave" in [s.kind for s in replay.steps]
    viewers: list[tuple[int | None, Client]] = [(c.seat, c) for c in seated] + [(None, spectator)]
    everyone = {
        s.n: json_round(s.json()) for first in range(0, replay.total, 50) for s in replay.read(first, 50, ALL)
    }
    compared = 0
    for seat, client in viewers:
        frames = live_frames(client)
        if client is not seated[-1] or leave_at is None:
            assert sorted(frames) == list(range(replay.total)), "one game message per step, none missed"
        for first in range(0, replay.total, 50):
            for step in replay.read(first, 50, seat):
                live = frames.get(step.n)
                if live is None:  # the seat had left: no frame to compare
                    continue
                all_hands = everyone[step.n]
                assert {**all_hands["view"], **all_hands["hands"].get(str(seat), {})} == live["view"]
                got = json_round(step.json())
                assert got["view"] == live["view"], (seat, step.n)
                assert got["events"] == live["events"], (seat, step.n)
                assert got["log"] == live["log"], (seat, step.n)
                assert got["turn"] == (live["turn"] or {}).get("seat"), (seat, step.n)
                compared += 1
    assert compared >= (len(viewers) - 1) * replay.total
