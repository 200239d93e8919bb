"""Players that survive their node dying: they reconnect through any live node and resume.

``Player`` wraps a ``tests.server.client.Client`` and keeps its token; ``drive`` plays one game
among players whose nodes may be killed at any moment, re-sending a move whose reply was lost
(the server drops a stale or repeated one). Every move the server accepted (``ok``) is recorded
per session, so a test can check each of them is in the room's game logs.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
from collections.abc import Callable
from typing import Any

import websockets

from tests.server.client import Client, first_legal

Message = dict[str, Any]
LOST = (TimeoutError, ConnectionError, OSError, websockets.ConnectionClosed, websockets.InvalidHandshake)
"""What a client sees of a node killed under it; an ``InvalidHandshake`` is a node killed between accepting
the connection and answering the upgrade (its socket closes with no HTTP response)."""


class Player:
    def __init__(self, client: Client, session: str) -> None:
        self.client = client
        self.session = session
        self.token = client.token or ""
        self.accepted: list[Message] = []
        self.reconnects = 0

    @classmethod
    async def open(cls, url: str, name: str) -> Player:
        client = await Client.open(url)
        welcome = await client.ok("identify", name=name)
        client.token, client.name = welcome["token"], welcome["name"]
        return cls(client, welcome["session"])

    async def ensure(self, urls: Callable[[], list[str]]) -> None:
        """Reconnect through a live node if this player's connection is gone."""
        while self.client.closed is not None:
            url = random.choice(urls())
            try:
                fresh = await Client.open(url)
                fresh.token = self.token
                reply = await fresh.request("resume", timeout=5, token=self.token)
                if reply.get("type") != "welcome":
                    await fresh.close()
                    await asyncio.sleep(0.1)
                    continue
                await fresh.expect("room", timeout=10)
            except LOST:
                await asyncio.sleep(0.1)
                continue
            self.client = fresh
            self.reconnects += 1

    async def ask(self, kind: str, urls: Callable[[], list[str]], **fields: Any) -> Message:
        """A request that is re-sent through a live node until it gets an answer."""
        while True:
            await self.ensure(urls)
            try:
                return await self.client.request(kind, timeout=4.0, **fields)
            except LOST:
                await asyncio.sleep(0.05)


async def drive(players: list[Player], urls: Callable[[], list[str]]) -> Message:
    """Play (each its first legal move) until every player has seen ``game_over``."""
    deadline = asyncio.get_running_loop().time() + 200  # a bound for a hung cluster, not a timing
    while asyncio.get_running_loop().time() < deadline:
        for p in players:
            await p.ensure(urls)
        clients = [p.client for p in players]
        leader = max(clients, key=lambda c: c.seq)
        if leader.game_over is not None:
            if all(c.game_over is not None for c in clients):
                return leader.game_over
            await asyncio.sleep(0.02)
            continue
        if leader.turn is None or leader.view is None:
            await asyncio.sleep(0.02)
            continue
        actor = next((p for p in players if p.client.seat == leader.turn["seat"]), None)
        if actor is None:
            await asyncio.sleep(0.02)
            continue
        client = actor.client
        with contextlib.suppress(*LOST):
            await client.wait_seq(leader.seq, timeout=1.0)
        if client.seq < leader.seq or client.view is None:
            continue
        action = first_legal(client.view)
        try:
            reply = await client.request("action", timeout=4.0, action=action)
        except LOST:
            await asyncio.sleep(0.05)  # a dead socket can fail at once: let its reader notice
            continue
        if reply.get("type") == "ok":
            actor.accepted.append(action)
        else:
            await asyncio.sleep(0.05)  # moved, stale or internal error: look again
    raise AssertionError("game did not finish")


async def forwarded_dots(owner_ws: str, players_ws: str) -> tuple[Client, list[Client], str]:
    """A started 3×3 Dots game whose room lives on the node at ``owner_ws`` (its host watches from
    there) and whose two players are connected through the node at ``players_ws``, so each of their
    moves is forwarded to the owner. Returns the host, the players and the room's code."""
    host = await Client.open(owner_ws, "Host")
    room = await host.ok("create_room", game="dots", settings={"width": 3, "height": 3}, capacity=2)
    await host.ok("become_spectator")
    players = [await Client.open(players_ws, f"P{i}") for i in range(2)]
    for p in players:
        await p.ok("join", code=room["code"])
    await host.ok("start")
    for p in players:
        await p.wait_for(lambda m: m.get("type") == "game_started", from_start=True)
    return host, players, room["code"]
