"""``PARLOUR_MAX_ROOMS`` in a cluster is per node (docs/scaling.md, "Room caps").

A node refuses to create rooms beyond its own cap (``server_full``) while another node still
creates them; a node at its cap still claims the rooms of a node that died, since refusing them
would leave them ownerless.
"""

from __future__ import annotations

import asyncio
import json

from tests.server.client import Client, close_all


def rooms_of(node) -> int:
    return json.loads(node.get("/healthz"))["rooms"]


async def test_the_room_cap_is_per_node_and_never_refuses_a_claim(cluster) -> None:
    capped = {"PARLOUR_MAX_ROOMS": "1"}
    a, b = cluster.add(capped), cluster.add(capped)
    on_a = await Client.open(a.ws, "A")
    code_a = (await on_a.ok("create_room", game="dots"))["code"]
    refused = await Client.open(a.ws, "A2")
    reply = await refused.request("create_room", game="dots")
    assert reply["type"] == "error" and reply["code"] == "server_full"

    on_b = await Client.open(b.ws, "B")  # node b has its own cap: it still has room for one
    await on_b.ok("create_room", game="dots")
    assert rooms_of(a) == rooms_of(b) == 1

    a.kill()  # node b, at its cap, claims node a's room all the same
    for _ in range(200):  # bounded wait for the lease (2 s here) to run out and the claim loop
        if rooms_of(b) == 2:
            break
        await asyncio.sleep(0.05)
    assert rooms_of(b) == 2
    back = await Client.open(b.ws)
    await back.ok("resume", token=on_a.token)
    assert (await back.expect("room"))["code"] == code_a
    again = await Client.open(b.ws, "B2")  # beyond its cap, node b creates nothing new
    assert (await again.request("create_room", game="dots"))["code"] == "server_full"
    await close_all([back, on_b, again, refused])
