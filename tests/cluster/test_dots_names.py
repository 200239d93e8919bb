"""Dots room names, playerids and the admin token mean the same on every node (store/names.py).

A room is made by name through node B; clients of node A find it by that name, see its members
under the playerids node B's clients see, and obey its admin token; once everyone has left, the
name is free again on every node.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

ADAPTER_TESTS = Path(__file__).resolve().parent.parent / "adapters"
sys.path.insert(0, str(ADAPTER_TESTS))

from test_dots_protocol import create, dots, join, room_name  # noqa: E402


async def test_a_room_made_by_name_on_one_node_is_found_joined_and_run_from_another(cluster) -> None:
    node_a, node_b = cluster.add(), cluster.add()
    name = room_name()
    maker = await dots(node_b)
    made = await create(maker, name, 3, 3)
    assert made["ok"] is True

    rival = await dots(node_a)  # the name is taken on every node
    refused = await create(rival, name, 3, 3)
    assert refused["ok"] is False and "exists" in refused["message"]

    alice = await dots(node_a)
    await alice.send({"type": "JOIN", "roomname": name, "username": "alice"})
    joined = await alice.expect_key("type", "JOIN")
    assert joined["ok"] is True
    board = await alice.expect_key("type", "BOARD")
    # Node A never saw the CREATE, yet knows the room's name and hides its admin session.
    assert board["roomname"] == name and board["spectators"] == {}
    assert board["players"] == {str(joined["playerid"]): "alice"}

    bob = await dots(node_b)
    pb = (await join(bob, name, "bob"))["playerid"]
    assert await alice.expect_key("type", "ADD") == {
        "type": "ADD",
        "playerid": pb,
        "username": "bob",
        "isplayer": True,
    }
    await bob.send({"type": "BOARD", "roomname": name})
    seen_by_bob = await bob.expect_key("type", "BOARD")
    assert seen_by_bob["players"] == {str(joined["playerid"]): "alice", str(pb): "bob"}

    # The admin token CREATE gave on node B works on node A.
    await rival.send({"type": "ADMIN", "admintoken": made["admin_token"], "cmd": "kick", "playerid": pb})
    assert (await rival.expect_key("type", "ADMIN"))["ok"] is True
    removed = await bob.expect_key("type", "REMOVE")
    assert removed == {"type": "REMOVE", "playerid": pb, "message": "Kicked by the admin."}
    assert (await alice.expect_key("type", "REMOVE"))["playerid"] == pb
    await rival.send({"type": "ADMIN", "admintoken": "not-the-token", "cmd": "terminate"})
    assert (await rival.expect_key("type", "ADMIN"))["ok"] is False

    # Everyone leaves: the admin (on node B) gives the room up and the name is free on node A.
    await alice.close()
    await bob.close()
    for _ in range(100):  # the admin leaves once node B hears alice has gone
        again = await create(rival, name, 3, 3)
        if again["ok"]:
            break
        await asyncio.sleep(0.1)
    assert again["ok"] is True
    await rival.close()
    await maker.close()


async def test_a_password_room_is_spectated_without_it_on_every_node_and_joined_only_with_it(cluster) -> None:
    """The seed's rule (spectators need no password, players do) is the room's, kept by its owner:
    node A, which made the room, never hands the password to node B."""
    node_a, node_b = cluster.add(), cluster.add()
    name = room_name()
    maker = await dots(node_a)
    assert (await create(maker, name, 3, 3, password="sesame"))["ok"] is True

    carol = await dots(node_b)
    await carol.send({"type": "SPECTATE", "roomname": name, "username": "carol"})
    spectated = await carol.expect_key("type", "SPECTATE")
    assert spectated["ok"] is True and "token" not in spectated
    board = await carol.expect_key("type", "BOARD")
    assert board["spectators"] == {str(spectated["playerid"]): "carol"}

    bob = await dots(node_b)
    refused = await join(bob, name, "bob")
    assert refused == {"type": "JOIN", "ok": False, "message": "Wrong password."}
    assert (await join(bob, name, "bob", password="wrong"))["ok"] is False
    joined = await join(bob, name, "bob", password="sesame")
    assert joined["ok"] is True
    added = await carol.expect_key("type", "ADD")
    assert added == {"type": "ADD", "playerid": joined["playerid"], "username": "bob", "isplayer": True}
    for client in (carol, bob, maker):
        await client.close()
