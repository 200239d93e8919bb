"""Bots in rooms through the server's hook: a human and bots play whole games in-process."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any

import pytest

from parlour.rooms import Command, Room
from parlour.rooms import bot_seats as driver
from tests.rooms.conftest import Harness
from tests.server.client import MOVES


@pytest.fixture(autouse=True)
def no_delay(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(driver, "DELAY", (0.0, 0.0))


async def _play_with_bots(game: str, settings: dict[str, Any], levels: list[str]) -> Room:
    harness = Harness()
    harness.manager.bot_factory = driver.bot_factory
    human = await harness.client("Human")
    await harness.manager.create_room(
        human.session, human.sink, "r", game=game, settings=settings, capacity=len(levels) + 1
    )
    (room,) = harness.manager.rooms.values()
    for level in levels:
        assert (await human.do("add_bot", level=level))["type"] == "ok"
    assert (await human.do("ready", ready=True))["type"] == "ok"
    for _ in range(20_000):
        if room.state == "finished":
            break
        seat = room.game_seat(room.member_by_session(human.session.id)) if room.game is not None else None
        if room.state == "playing" and room.turn and room.turn[0] == seat and seat is not None:
            view = room.engine.view(room.game, seat)
            await human.do("action", action=MOVES[game](view, seat))
        await asyncio.sleep(0.001)
    state = room.state
    await harness.manager.close()
    assert state == "finished", f"{game} did not finish"
    return room


@pytest.mark.parametrize(
    ("game", "settings", "levels"),
    [
        ("dots", {"width": 4, "height": 4}, ["hard"]),
        ("uno", {"target_score": 0, "jump_in": True}, ["hard", "easy"]),
        ("cheat", {}, ["hard", "easy"]),
    ],
)
async def test_a_human_and_bots_play_to_the_end(
    game: str, settings: dict[str, Any], levels: list[str]
) -> None:
    room = await _play_with_bots(game, settings, levels)
    assert room.outcome is not None and room.outcome["reason"] == "finished"
    assert sum(1 for r in room.game_log if r["k"] == "action" and str(r["s"]).startswith("bot:")) > 0


def test_unknown_levels_fall_back_to_easy() -> None:
    member = SimpleNamespace(bot_options={"level": "grandmaster"})
    d = driver.BotDriver(SimpleNamespace(game_name="dots"), member, command=None)
    assert d._ensure_bot(0).level == "easy"


async def test_a_driver_can_play_a_humans_seat_mid_game() -> None:
    """The takeover mechanism: a driver attached to a human member mid-game plays it to the end."""
    harness = Harness()
    clients = await harness.table("uno", 2, {"target_score": 0})
    (room,) = harness.manager.rooms.values()
    away = room.member_by_session(clients[1].session.id)
    away.sink = driver.BotDriver(room, away, Command)
    away.sink.send(room.snapshot(away))
    me = room.member_by_session(clients[0].session.id)
    for _ in range(5000):
        if room.state != "playing":
            break
        seat = room.game_seat(me)
        if room.turn and room.turn[0] == seat:
            await clients[0].do("action", action=MOVES["uno"](room.engine.view(room.game, seat), seat))
        await asyncio.sleep(0.001)
    assert room.state == "finished"
    takeover = [r for r in room.game_log if r["k"] == "action" and r["s"] == clients[1].session.id]
    assert takeover and all("action" in r["p"] for r in takeover)
    await harness.manager.close()
