"""A closed connection leaves nothing behind: what the HTTP upgrade and the websocket made for it
(uvicorn's and ``websockets``' protocol objects, parsers, queues, the scope, the app's ``Connection`` and
adapter client) is freed by reference counting once the app lets go of it, so the cyclic collector
never has to find it, and nothing that outlives the connection (a room) keeps it. Before, ~115 objects
per connection were left in reference cycles for a collection to free, in pauses of 5-35 ms under
load (docs/benchmarks.md, "Issue 11, tenth round"), and a ``/dots`` room kept its creator's
connection for as long as the room lived.

A real server in this process (the app ``parlour serve`` runs, with its HTTP and websocket protocols, on
uvloop), real clients (native, ``/dots``, Engine.IO v4 and v3 websockets, HTTP), and the collector off
while they connect and close."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import json
import socket
import urllib.request
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import uvicorn
import uvloop
from websockets.asyncio.client import ClientConnection, connect

from parlour.config import Config
from parlour.net.adapters.dots_packets import DotsClient
from parlour.net.app import create_app
from parlour.net.connection import Connection
from parlour.net.http_protocol import ParlourHttpToolsProtocol
from parlour.net.websocket_protocol import ParlourWebSocketProtocol

KINDS = (ParlourHttpToolsProtocol, ParlourWebSocketProtocol, Connection, DotsClient)


def alive() -> int:
    """How many of the server's per-connection objects exist (the collector tracks every one)."""
    return sum(1 for o in gc.get_objects() if type(o) in KINDS)


@contextlib.asynccontextmanager
async def serving(data_dir: Path) -> AsyncIterator[int]:
    """``parlour serve``'s app on a free port of this process's loop; yields the port."""
    server = uvicorn.Server(
        uvicorn.Config(
            create_app(Config.from_env({}, data_dir=str(data_dir))),
            http=ParlourHttpToolsProtocol,
            ws=ParlourWebSocketProtocol,
            lifespan="on",
            log_config=None,
        )
    )
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    task = asyncio.create_task(server.serve(sockets=[sock]))
    try:
        while not server.started:
            await asyncio.sleep(0.01)
        yield sock.getsockname()[1]
    finally:
        gc.enable()
        gc.unfreeze()  # the app's start-up froze this process's heap
        server.should_exit = True
        await task
        sock.close()


async def until(condition: Callable[[], bool], what: str) -> None:
    """The server lets go of a connection just after the client's close: wait for it, at most 5 s."""
    deadline = asyncio.get_running_loop().time() + 5
    while not condition():
        assert asyncio.get_running_loop().time() < deadline, what
        await asyncio.sleep(0.02)


async def request(ws: ClientConnection, message: dict[str, object]) -> dict[str, object]:
    await ws.send(json.dumps(message))
    reply: dict[str, object] = json.loads(await ws.recv())
    return reply


async def native(port: int) -> None:
    async with connect(f"ws://127.0.0.1:{port}/api/ws") as ws:
        assert (await request(ws, {"type": "identify", "id": 1, "name": "Ann"}))["type"] == "welcome"
        await ws.send(json.dumps({"type": "create_room", "id": 2, "game": "dots"}))
        while json.loads(await ws.recv()).get("id") != 2:
            pass


async def dots(port: int, name: str) -> None:
    async with connect(f"ws://127.0.0.1:{port}/dots") as ws:
        assert (await request(ws, {"type": "CREATE", "roomname": name, "width": 3, "height": 3}))["ok"]
        assert (await request(ws, {"type": "JOIN", "roomname": name, "username": "bob"}))["ok"]


async def socketio(port: int) -> None:
    """An Engine.IO v4 websocket (python-engineio's layer, which keeps ``receive`` in a cycle), then
    a v3 one (Parlour's own layer)."""
    async with connect(f"ws://127.0.0.1:{port}/socket.io/?EIO=4&transport=websocket") as ws:
        assert str(await ws.recv()).startswith("0{")
        await ws.send("40")
        while not str(await ws.recv()).startswith("40"):  # the UNO events' session may come first
            pass
    async with connect(f"ws://127.0.0.1:{port}/socket.io/?EIO=3&transport=websocket") as ws:
        assert str(await ws.recv()).startswith("0{")
        assert str(await ws.recv()) == "40"


def health(port: int) -> None:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=5) as response:
        assert response.status == 200


async def closed_connections(data_dir: Path) -> None:
    async with serving(data_dir) as port:
        await native(port)  # once, so that whatever is made only once exists before counting
        await dots(port, "warm-up")
        await socketio(port)
        gc.collect()
        gc.disable()
        before = alive()
        for n in range(5):
            await native(port)
            await dots(port, f"room-{n}")
            await socketio(port)
            await asyncio.to_thread(health, port)
        await until(lambda: alive() == before, "objects of closed connections left")


async def a_creator_that_leaves(data_dir: Path) -> None:
    async with serving(data_dir) as port:
        creator = await connect(f"ws://127.0.0.1:{port}/dots")
        assert (await request(creator, {"type": "CREATE", "roomname": "kept", "width": 3, "height": 3}))["ok"]
        async with connect(f"ws://127.0.0.1:{port}/dots") as player:
            assert (await request(player, {"type": "JOIN", "roomname": "kept", "username": "ann"}))["ok"]
            gc.collect()
            gc.disable()
            before = alive()
            await creator.close()  # the room lives on with its player: the creator's objects go
            await until(lambda: alive() == before - 3, "the room kept its creator's connection")
            # its protocol, ``Connection`` and ``DotsClient`` (the HTTP protocol went at the upgrade)


def test_closed_connections_are_freed_without_the_cyclic_collector(tmp_path: Path) -> None:
    uvloop.run(closed_connections(tmp_path))


def test_a_dots_room_lets_go_of_the_connection_that_created_it(tmp_path: Path) -> None:
    uvloop.run(a_creator_that_leaves(tmp_path))
