"""The seed protocols across nodes: each adapter test's clients connect round the nodes in turn.

The adapter tests' own scripts (tests/adapters) are run unchanged against a "server" whose port
alternates between two cluster nodes at every connection, so the players of one room sit on
different nodes and every message between them crosses Redis.
"""

from __future__ import annotations

import asyncio
import itertools
import sys
from pathlib import Path
from typing import Any

import pytest

from parlour.rooms.cluster.bus import Item, _items
from parlour.store.resp import RespConnection

ADAPTER_TESTS = Path(__file__).resolve().parent.parent / "adapters"
sys.path.insert(0, str(ADAPTER_TESTS))

import test_cheat_protocol as cheat  # noqa: E402
import test_dots_protocol as dots  # noqa: E402
import test_socket_uno_protocol as socket_uno  # noqa: E402
import test_uno_events_protocol as uno_events  # noqa: E402

CLOCKS = {"PARLOUR_READY_COUNTDOWN": "0.3", "PARLOUR_QUICKPLAY_COUNTDOWN": "2", "PARLOUR_GRACE_SECONDS": "3"}


class RoundRobin:
    """Looks like one server to the adapter tests; each connection goes to the next node."""

    def __init__(self, nodes: list[Any]) -> None:
        self._ports = itertools.cycle([n.port for n in nodes])
        self.nodes = nodes

    @property
    def port(self) -> int:
        return next(self._ports)

    @property
    def ws(self) -> str:
        return f"ws://127.0.0.1:{self.port}/api/ws"

    @property
    def http(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def get(self, path: str) -> bytes:
        return self.nodes[0].get(path)

    def alive(self) -> bool:
        return all(n.alive() for n in self.nodes)


@pytest.fixture
def spread(cluster) -> RoundRobin:
    return RoundRobin([cluster.add(CLOCKS), cluster.add(CLOCKS)])


async def test_cheat_actions_full_game_across_nodes(spread) -> None:
    await cheat.test_a_full_game_with_calls_both_ways_then_play_again(spread)


async def test_uno_design_document_full_game_across_nodes(spread) -> None:
    await uno_events.test_a_full_single_round_game_with_spectator_chat_and_rematch(spread)


async def test_dots_packets_full_game_across_nodes(spread) -> None:
    await dots.test_create_join_board_and_a_full_game(spread)


async def test_socket_uno_tutorial_match_across_nodes(spread) -> None:
    await socket_uno.test_quick_play_countdown_a_whole_match_and_the_room_reopens(spread)


async def test_socket_uno_tutorial_seat_taken_back_by_cookie_on_another_node(cluster) -> None:
    """Tom plays on node 0 and drops; strangers typing his name on nodes 2 and 0 get seats of their
    own; Tom's browser comes back through node 1 and has his seat and his hand again."""
    clocks = {**CLOCKS, "PARLOUR_GRACE_SECONDS": "30"}  # the strangers must not outlast the grace
    nodes = [cluster.add(clocks) for _ in range(3)]
    await socket_uno.test_reconnect_from_the_same_browser_gets_the_same_seat(RoundRobin(nodes))


async def test_a_seed_protocol_move_on_another_node_crosses_redis_without_a_bare_ok(cluster) -> None:
    """The room is on node a, both /dots players on node b. An adapter's move asks for no ``ok``
    (``Command.quiet``) on the room's node too: while the game is played, node a sends node b the
    moves' game messages and never an ``ok``, which the adapter would only drop."""
    a, b = cluster.add(CLOCKS), cluster.add(CLOCKS)
    name = dots.room_name()
    creator = await dots.dots(a)
    await dots.create(creator, name, 3, 3)
    alice, bob = await dots.dots(b), await dots.dots(b)
    pa = (await dots.join(alice, name, "alice"))["playerid"]
    pb = (await dots.join(bob, name, "bob"))["playerid"]
    await dots.start(alice, bob)
    heard: list[Item] = []
    tap = RespConnection(cluster.redis.url)
    await tap.open()
    tap.send([("PSUBSCRIBE", "pl:node:*")])
    await tap.read()

    async def listen() -> None:
        while True:
            push = await tap.read()
            if isinstance(push, list) and len(push) == 4 and push[0] == b"pmessage":
                heard.extend(_items(push[3]))

    listener = asyncio.get_running_loop().create_task(listen())
    try:
        end = await dots.play_out({pa: alice, pb: bob}, 3, 3)
        await asyncio.sleep(0.3)  # what the last move sent has crossed
    finally:
        listener.cancel()
        tap.close()
    assert end["state"] in ("ended", "tied")
    messages = [item[2] for item in heard if item[0] == "m"]
    games = [item for item in heard if item[0] == "j"]
    assert len(games) >= 12  # the 12 moves' game messages reached node b: the tap heard the game
    assert [m for m in messages if m.get("type") == "ok"] == []
    for client in (creator, alice, bob):
        await client.close()
