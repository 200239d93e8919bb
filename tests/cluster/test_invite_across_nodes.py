"""An invite link opened on a node that does not own its room: the page asks ``/api/invite/CODE`` of
whichever node the load balancer picked, and a friend was told the room had closed."""

from __future__ import annotations

import asyncio
import json
import urllib.error

import pytest

from tests.server.client import Client


async def test_every_node_answers_for_a_room_another_node_owns(cluster) -> None:
    a, b = cluster.add(), cluster.add()
    host = await Client.open(a.ws, "Host")
    code = (await host.ok("create_room", game="dots"))["code"]
    for node, host_named in ((a, "Host"), (b, None)):
        invite = json.loads(node.get(f"/api/invite/{code}"))
        assert invite["code"] == code and invite["url"].endswith(f"/r/{code}")
        # The game on every node; the host's name where the room is (b knows the stored config only).
        assert (invite["game"], invite["host"]) == ("dots", host_named)
        assert (invite["password"], invite["playing"]) == ((False, False) if host_named else (None, None))
        assert node.get(f"/api/invite/{code}/qr.svg").startswith(b"<?xml")
    with pytest.raises(urllib.error.HTTPError) as missing:  # a code no node has is still unknown
        b.get("/api/invite/ZZZZZ")
    assert missing.value.code == 404
    await host.ok("terminate")  # and a room that closed is gone on every node
    for node in (a, b):
        assert await _gone(node, code)
    await host.close()


async def _gone(node, code: str) -> bool:
    """Whether ``node`` answers 404 for ``code`` within a few seconds (the ``ok`` to ``terminate`` can
    come before the room has left its node's table of rooms)."""
    for _ in range(100):
        try:
            node.get(f"/api/invite/{code}")
        except urllib.error.HTTPError as refused:
            return refused.code == 404
        await asyncio.sleep(0.05)
    return False
