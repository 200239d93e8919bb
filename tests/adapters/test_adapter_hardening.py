"""Hostile input on the seed protocols (issue 16): free text is bounded, rooms are capped, floods
are cut, refused input is answered without a traceback, and Dots spectators cost linear memory."""

from __future__ import annotations

import asyncio
import contextlib
import json
import urllib.request
from typing import Any

import aiohttp
import psutil
import pytest
import websockets
from sioclient import SioClient
from wsclient import Native, WsClient

LOW_ROOMS = {"PARLOUR_ROOMS_PER_IP": "2"}


def _log(proc: Any) -> str:
    return proc.log_path.read_text()


async def _ws(proc: Any, path: str) -> WsClient:
    return await WsClient.open(f"ws://127.0.0.1:{proc.port}{path}")


async def _connections(proc: Any) -> int:
    with urllib.request.urlopen(proc.http + "/healthz") as r:
        return json.loads(r.read())["connections"]


# --- item 2: free text keeps the native limits on every protocol ------------------------------------


async def test_room_names_are_bounded_on_every_protocol(server: Any) -> None:
    dots = await _ws(server, "/dots")
    await dots.send({"type": "CREATE", "roomname": "x" * 60_000, "width": 3, "height": 3})
    reply = await dots.expect_key("type", "CREATE")
    assert reply["ok"] is False and "32" in reply["message"]
    await dots.send({"type": "CREATE", "roomname": "bell\x07room", "width": 3, "height": 3})
    assert (await dots.expect_key("type", "CREATE"))["ok"] is False
    await dots.close()

    sio = await SioClient.open(server, name="Namer")
    await sio.expect("rooms-list")
    await sio.emit("create-room", {"name": "y" * 90_000})
    error = await sio.expect("error")
    assert error["code"] == "invalid_room_name"
    await sio.emit("create-room", {"name": "A fine table"})
    code = (await sio.expect("room-created"))["roomId"]
    listed = await sio.expect("rooms-list", lambda d: any(r["id"] == code for r in d["rooms"]))
    assert max(len(r["name"]) for r in listed["rooms"]) <= 32
    await sio.close()


# --- item 3: adapters cannot open rooms without end ----------------------------------------------------


async def test_dots_and_cheat_room_creation_is_capped_per_address(server_with: Any) -> None:
    proc = server_with(LOW_ROOMS)
    dots = await _ws(proc, "/dots")
    for i in range(2):
        await dots.send({"type": "CREATE", "roomname": f"cap-{i}", "width": 3, "height": 3})
        assert (await dots.expect_key("type", "CREATE"))["ok"] is True
    await dots.send({"type": "CREATE", "roomname": "cap-3", "width": 3, "height": 3})
    refused = await dots.expect_key("type", "CREATE")
    assert refused["ok"] is False and "rooms per address" in refused["message"]
    cheat = await _ws(proc, "/ws")
    await cheat.send({"action": "create_game", "name": "Cap"})
    error = await cheat.expect_key("action", "join_game_error")
    assert "rooms per address" in error["message"]
    await dots.close()
    await cheat.close()


# --- item 10: floods are cut on every protocol ---------------------------------------------------------


@pytest.mark.parametrize("path", ["/dots", "/ws"])
async def test_junk_floods_on_plain_adapters_are_cut(server_with: Any, path: str) -> None:
    proc = server_with({"PARLOUR_RATE_BURST": "5", "PARLOUR_RATE_PER_SECOND": "1"})
    flooder = await _ws(proc, path)
    for _ in range(500):
        if flooder.closed:
            break
        try:
            await flooder.send("not json")
        except websockets.ConnectionClosed:
            break
    for _ in range(200):
        if flooder.closed:
            break
        await asyncio.sleep(0.05)
    assert flooder.closed
    bystander = await Native.open(f"ws://127.0.0.1:{proc.port}/api/ws")
    await bystander.send({"type": "ping", "id": 1})
    assert (await bystander.expect_key("type", "pong"))["id"] == 1
    await bystander.close()


@pytest.mark.parametrize("event", ["no-such-event", "draw-card"])
async def test_a_socketio_flood_loses_the_whole_connection(server_with: Any, event: str) -> None:
    """An event the adapter refuses by itself is limited all the same; a game action (taken on the
    fast lane while the connection is idle) pays the same allowance."""
    proc = server_with({"PARLOUR_RATE_BURST": "5", "PARLOUR_RATE_PER_SECOND": "1"})
    flooder = await SioClient.open(proc, name="Flood")
    await flooder.expect("rooms-list")
    for _ in range(400):
        if not flooder.sio.connected:
            break
        await flooder.emit(event, {})
        await asyncio.sleep(0)
    for _ in range(200):
        if not flooder.sio.connected:
            break
        await asyncio.sleep(0.05)
    assert not flooder.sio.connected
    assert flooder.sio.eio.state != "connected"  # the Engine.IO socket too, not just the namespace
    assert "event=flood_closed path=/socket.io" in _log(proc)


async def test_a_raised_socketio_rate_holds_at_the_socketio_gate(server_with: Any) -> None:
    """PARLOUR_PROTOCOL_RATES=socketio=... raises the gate per Engine.IO connection too: 60 events
    at once (each answered by the gate itself) pass where the default 1/s, burst 5 would cut them."""
    slow = {"PARLOUR_RATE_BURST": "5", "PARLOUR_RATE_PER_SECOND": "1"}
    proc = server_with({**slow, "PARLOUR_PROTOCOL_RATES": "socketio=1000/1000"})
    client = await SioClient.open(proc, name="Quick")
    await client.expect("rooms-list")
    for _ in range(60):
        await client.sio.emit("create-room", ({}, {}))  # two arguments: refused by the gate, with a reply
    for i in range(60):
        assert "one argument" in (await client.expect("error"))["message"], i
    assert client.sio.connected
    await client.close()


def _eio3_packets(body: str) -> list[str]:
    """A v3 polling body's packets (``<length>:<packet>``; ASCII here, so lengths are characters)."""
    out = []
    while body:
        length, _, rest = body.partition(":")
        out.append(rest[: int(length)])
        body = rest[int(length) :]
    return out


def _frame(*packets: str) -> str:
    return "".join(f"{len(p)}:{p}" for p in packets)


async def _closed_by_server(ws: Any) -> bool:
    """Read until the server closes the socket or sends Engine.IO's close packet ``1`` (True), or stays
    silent for 5 s after the last frame (False)."""
    try:
        while await asyncio.wait_for(ws.recv(), 5) != "1":
            pass
    except websockets.ConnectionClosed:
        return True
    except TimeoutError:
        return False
    return True


async def test_a_socketio2_flood_is_cut_and_a_fresh_namespace_buys_nothing(server_with: Any) -> None:
    """Engine.IO v3 / Socket.IO v2 events pay the same allowance as v4's: a ``40`` between the events
    (connecting the namespace again) is one more packet, not a fresh allowance, and pings pay too."""
    proc = server_with({"PARLOUR_RATE_BURST": "5", "PARLOUR_RATE_PER_SECOND": "1"})
    url = f"ws://127.0.0.1:{proc.port}/socket.io/?EIO=3&transport=websocket"
    async with websockets.connect(url) as ws:
        assert str(await ws.recv()).startswith("0{") and await ws.recv() == "40"
        with contextlib.suppress(websockets.ConnectionClosed):
            for i in range(300):
                await ws.send(("40", '42["no-such-event",{}]', "2")[i % 3])
        assert await _closed_by_server(ws)
    assert "event=flood_closed path=/socket.io eio=3" in _log(proc)
    bystander = await Native.open(f"ws://127.0.0.1:{proc.port}/api/ws")
    await bystander.send({"type": "ping", "id": 1})
    assert (await bystander.expect_key("type", "pong"))["id"] == 1
    await bystander.close()


async def test_a_socketio2_polling_flood_is_cut(server_with: Any) -> None:
    """The same over long-polling, where one POST carries many packets: each packet pays."""
    proc = server_with({"PARLOUR_RATE_BURST": "5", "PARLOUR_RATE_PER_SECOND": "1"})
    async with aiohttp.ClientSession() as http:
        url = f"{proc.http}/socket.io/?EIO=3&transport=polling"
        async with http.get(url) as r:
            sid = json.loads(_eio3_packets(await r.text())[0][1:])["sid"]
        statuses = []
        for _ in range(20):
            async with http.post(f"{url}&sid={sid}", data=_frame(*["40", '42["chat-message",{}]'] * 10)) as r:
                statuses.append(r.status)
            if r.status != 200:
                break
        async with http.get(f"{url}&sid={sid}") as r:  # the session is gone: an unknown sid
            assert r.status == 400 and (await r.json())["code"] == 1, statuses
    assert "event=flood_closed path=/socket.io eio=3" in _log(proc)


async def test_a_socketio4_namespace_connect_flood_is_cut(server_with: Any) -> None:
    """v4: ``41``/``40`` over and over (each ``40`` used to attach a fresh adapter client, unlimited)."""
    proc = server_with({"PARLOUR_RATE_BURST": "5", "PARLOUR_RATE_PER_SECOND": "1"})
    url = f"ws://127.0.0.1:{proc.port}/socket.io/?EIO=4&transport=websocket"
    async with websockets.connect(url) as ws:
        assert str(await ws.recv()).startswith("0{")
        with contextlib.suppress(websockets.ConnectionClosed):
            for i in range(300):
                await ws.send(("40", "41")[i % 2])
        assert await _closed_by_server(ws)
    assert "event=flood_closed path=/socket.io" in _log(proc)
    for _ in range(200):  # every namespace client it attached is detached again
        if await _connections(proc) == 0:
            break
        await asyncio.sleep(0.05)
    assert await _connections(proc) == 0


async def test_socketio2_refuses_events_a_client_may_not_send_as_v4_does(server_with: Any) -> None:
    """A reserved name, a name that is not a string, two arguments: an ``error`` event each, as on v4,
    and the session stays."""
    proc = server_with({})
    url = f"ws://127.0.0.1:{proc.port}/socket.io/?EIO=3&transport=websocket"
    async with websockets.connect(url) as ws:
        assert str(await ws.recv()).startswith("0{") and await ws.recv() == "40"
        for packet, words in [
            ('42["connect",{}]', "that is not an event a client may send"),
            ("42[7,{}]", "that is not an event a client may send"),
            ('42["chat-message",{"message":"a"},{"message":"b"}]', "chat-message takes one argument"),
        ]:
            await ws.send(packet)
            while not (reply := str(await ws.recv())).startswith('42["error"'):
                pass
            assert json.loads(reply[2:])[1]["message"] == words, reply
        await ws.send("2")
        while await ws.recv() != "3":
            pass
    assert "Traceback" not in _log(proc)


async def test_a_socketio2_session_over_the_address_limit_is_refused(server_with: Any) -> None:
    """Past ``PARLOUR_CONNECTIONS_PER_IP`` a v3 session gets an error packet and is closed (it used to
    stay open, attached to nothing)."""
    proc = server_with({"PARLOUR_CONNECTIONS_PER_IP": "1"})
    first = await SioClient.open(proc, name="One")
    url = f"ws://127.0.0.1:{proc.port}/socket.io/?EIO=3&transport=websocket"
    async with websockets.connect(url) as ws:
        seen = [str(await ws.recv()), str(await ws.recv()), str(await ws.recv())]
        assert seen[1:] == ["40", '44"too many connections from your address"'], seen
        assert await _closed_by_server(ws)
    assert await _connections(proc) == 1
    await first.close()


async def test_connections_per_address_hold_on_adapters(server_with: Any) -> None:
    proc = server_with({"PARLOUR_CONNECTIONS_PER_IP": "2"})
    first, second = await _ws(proc, "/dots"), await SioClient.open(proc, name="Two")
    with pytest.raises(websockets.InvalidStatus):
        await websockets.connect(f"ws://127.0.0.1:{proc.port}/ws")
    third = SioClient()
    with pytest.raises(Exception):  # noqa: B017  the namespace connection is refused
        await third.sio.connect(f"http://127.0.0.1:{proc.port}", transports=["websocket"], wait_timeout=5)
    assert await _connections(proc) == 2
    await first.close()
    await second.close()


# --- item 12: Dots spectators cost linear memory ---------------------------------------------------------


async def _spectators(proc: Any, name: str, count: int, start: int) -> list[WsClient]:
    clients = []
    for i in range(count):
        client = await _ws(proc, "/dots")
        await client.send({"type": "SPECTATE", "roomname": name, "username": f"s{start + i}"})
        await client.expect_key("type", "BOARD")
        clients.append(client)
    return clients


async def test_dots_spectators_cost_memory_linearly(server_with: Any) -> None:
    proc = server_with({})
    server = psutil.Process(proc.proc.pid)
    host = await _ws(proc, "/dots")
    await host.send({"type": "CREATE", "roomname": "crowd", "width": 3, "height": 3})
    await host.expect_key("type", "CREATE")
    warm = await _spectators(proc, "crowd", 20, 0)
    base = server.memory_info().rss
    first = await _spectators(proc, "crowd", 200, 20)
    middle = server.memory_info().rss
    second = await _spectators(proc, "crowd", 200, 220)
    end = server.memory_info().rss
    # A member table per spectator made the second 200 cost ~1.9x the first (n² growth); one
    # table per room, ~1.1x.
    assert end - middle < 1.4 * (middle - base), (base, middle, end)
    # And everyone still sees the same room.
    await second[-1].send({"type": "BOARD", "roomname": "crowd"})
    board = await second[-1].expect(lambda m: m.get("type") == "BOARD" and len(m["spectators"]) == 420)
    assert sorted(board["spectators"].values()) == sorted(f"s{i}" for i in range(420))
    for client in [host, *warm, *first, *second]:
        await client.close()


# --- item 13: refused input is answered, never a traceback ------------------------------------------------


async def test_odd_input_is_answered_without_tracebacks(server_with: Any) -> None:
    proc = server_with({})
    dots = await _ws(proc, "/dots")
    await dots.send({"type": "CREATE", "roomname": "not-uno", "width": 3, "height": 3})
    code = (await dots.expect_key("type", "CREATE"))["code"]
    # A player keeps the room open while the Socket.IO watcher comes and goes (a room everyone left closes).
    await dots.send({"type": "JOIN", "roomname": "not-uno", "username": "dora"})
    assert (await dots.expect_key("type", "JOIN"))["ok"] is True
    await dots.send({"type": "ADMIN", "admintoken": "jeton-été-ü", "cmd": "reset"})
    reply = await dots.expect_key("type", "ADMIN")
    assert reply["ok"] is False and reply["message"] == "Invalid admin token."

    sio = await SioClient.open(proc, name="Watcher")
    await sio.expect("rooms-list")
    await sio.emit("spectate-room", {"roomId": code})
    assert (await sio.expect("error"))["code"] == "wrong_game"
    await sio.emit("join-room", {"roomId": code})
    assert (await sio.expect("error"))["code"] == "wrong_game"
    await sio.emit("connect", {})
    await sio.expect("error")
    await sio.sio.emit("chat-message", ({"message": "a"}, {"message": "b"}))
    assert "one argument" in (await sio.expect("error"))["message"]
    await sio.emit("create-room", {"name": "Still fine"})
    await sio.expect("room-created")
    await sio.close()
    await dots.close()
    assert "Traceback" not in _log(proc)


async def test_integers_beyond_64_bits_through_an_adapter_are_refused_not_raised(server_with: Any) -> None:
    """A Socket.IO client's own field holding 2^80 reached the native session as a frame orjson could
    not encode: a traceback and ``internal error`` (found by the long fuzz run). It is refused now,
    as on the native endpoint, and the connection goes on."""
    proc = server_with({})
    sio = await SioClient.open(proc, name="Big")
    await sio.expect("rooms-list")
    await sio.emit("create-room", {"name": "Big", "maxPlayers": 2**80})
    error = await sio.expect("error")
    assert error == {"message": "maxPlayers must be a whole number", "code": "bad_request"}, error
    await sio.emit("create-room", {"name": "Fine"})
    await sio.expect("room-created")
    await sio.close()
    assert "Traceback" not in _log(proc)
