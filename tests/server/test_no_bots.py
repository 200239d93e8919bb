"""A game with no bots at all works end to end (issue 12): the catalog says so, ``add_bot`` is
refused with ``no_bots``, humans play it to the end, and a player whose grace runs out is not
replaced by a bot (the game's leave rule applies instead), over a real server that registers the
bot-less game (``plain_game``)."""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.server.client import close_all, open_table, play_game
from tests.server.conftest import FAST_ENV, ServerProcess

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def plain_server(tmp_path: Path) -> Iterator[ServerProcess]:
    env = {**FAST_ENV, "PARLOUR_GRACE_SECONDS": "0.5", "PYTHONPATH": str(ROOT)}
    proc = ServerProcess(tmp_path, env, module="tests.server.plain_game")
    proc.start()
    yield proc
    assert proc.alive()
    proc.stop()


def _catalog(server: ServerProcess) -> dict[str, Any]:
    with urllib.request.urlopen(server.http + "/api/catalog") as r:
        return {g["name"]: g for g in json.loads(r.read())["games"]}


async def test_a_game_without_bots_is_offered_played_and_never_given_one(plain_server: ServerProcess) -> None:
    games = _catalog(plain_server)
    assert games["plain_four"]["bots"] == [] and games["connect_four"]["bots"] != []
    seated, _, _ = await open_table(plain_server.ws, "plain_four", 2, start=False, spectators=0)
    host, guest = seated
    for level in (None, "easy"):
        reply = await host.request("add_bot", **({"level": level} if level else {}))
        assert (reply["type"], reply["code"]) == ("error", "no_bots"), reply
        assert reply["message"] == "Plain Four has no bots"
    await host.ok("start")
    over = await play_game(seated)
    assert over["outcome"]["reason"] in ("four_in_a_row", "board_full")
    assert not any(m.get("bot") for m in host.room["members"])

    # A player who drops mid-game: nobody takes the seat over; the game's leave rule ends it.
    await guest.ok("rematch")
    await host.wait_for(lambda m: m.get("type") == "state_changed" and m.get("state") == "waiting")
    await host.ok("start")
    await host.wait_for(lambda m: m.get("type") == "game_started")
    await guest.close()
    ended = await host.wait_for(lambda m: m.get("type") == "game_over", timeout=20)
    assert ended["outcome"]["reason"] == "opponent_left" and ended["outcome"]["winners"] == [host.seat]
    assert not any(m.get("type") == "member_updated" and m["member"]["replaced"] for m in host.messages)
    await close_all([host])
