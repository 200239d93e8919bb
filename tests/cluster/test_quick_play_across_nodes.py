"""Quick play across nodes: players who ask on different nodes meet in one room, whichever node
each is on and however close together they ask."""

from __future__ import annotations

import asyncio
from collections import Counter

from tests.server.client import Client, close_all


async def test_quick_players_one_after_another_on_two_nodes_meet(cluster) -> None:
    """Uma asks on node b the moment Tom has his seat on node a: before node b can have heard of
    Tom's room from the lobby's news. She still gets a seat at his table."""
    a, b = cluster.add(), cluster.add()
    pairs = []
    for round_ in range(5):
        tom = await Client.open(a.ws, f"Tom{round_}")
        room = await tom.ok("quick_play", game="uno")
        uma = await Client.open(b.ws, f"Uma{round_}")
        assert (await uma.ok("quick_play", game="uno"))["code"] == room["code"]
        pairs += [tom, uma]
        await tom.ok("leave")
        await uma.ok("leave")
    await close_all(pairs)


async def test_quick_players_asking_at_once_on_three_nodes_fill_one_room_before_the_next(cluster) -> None:
    nodes = [cluster.add(), cluster.add(), cluster.add()]
    uno = [await Client.open(nodes[i % 3].ws, f"U{i}") for i in range(6)]
    rooms = await asyncio.gather(*(c.ok("quick_play", game="uno") for c in uno))
    assert len({r["code"] for r in rooms}) == 1  # ten seats: one table for all six
    pairs = [await Client.open(nodes[i % 3].ws, f"C{i}") for i in range(6)]
    rooms = await asyncio.gather(*(c.ok("quick_play", game="connect_four") for c in pairs))
    # Two seats each: three full tables.
    assert sorted(Counter(r["code"] for r in rooms).values()) == [2, 2, 2]
    await close_all(uno + pairs)
