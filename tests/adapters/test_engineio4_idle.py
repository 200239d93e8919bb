"""Engine.IO 4 (socket.io 3/4 clients) over websocket: the server pings, and a client that stops
answering is dropped after ``PARLOUR_EIO4_PING_INTERVAL`` + ``PARLOUR_EIO4_PING_TIMEOUT`` seconds, while
one that answers stays (parlour/net/adapters/engineio_v4.py runs this transport itself)."""

from __future__ import annotations

import asyncio
import json
import time
import urllib.request
from typing import Any

import websockets

TIMING = {"PARLOUR_EIO4_PING_INTERVAL": "1", "PARLOUR_EIO4_PING_TIMEOUT": "1"}


def _connections(proc: Any) -> int:
    with urllib.request.urlopen(proc.http + "/healthz") as r:
        return int(json.loads(r.read())["connections"])


async def _open(proc: Any) -> Any:
    ws = await websockets.connect(f"ws://127.0.0.1:{proc.port}/socket.io/?EIO=4&transport=websocket")
    opened = str(await ws.recv())
    assert opened.startswith("0{")
    handshake = json.loads(opened[1:])
    assert (handshake["pingInterval"], handshake["pingTimeout"]) == (1000, 1000)  # as configured
    await ws.send("40")
    while not str(await asyncio.wait_for(ws.recv(), 5)).startswith("40{"):
        pass  # the namespace's own events may come first (a session event)
    return ws


async def test_a_client_that_stops_answering_pings_is_dropped(server_with: Any) -> None:
    proc = server_with(TIMING)
    ws = await _open(proc)
    pings = 0
    started = time.monotonic()
    try:
        while time.monotonic() - started < 15:
            if str(await asyncio.wait_for(ws.recv(), 15)) == "2":
                pings += 1  # never answered
    except websockets.ConnectionClosed:
        pass
    waited = time.monotonic() - started
    assert ws.close_code is not None, "the server kept a silent client for 15 s"
    assert pings >= 1 and waited < 10
    for _ in range(100):
        if _connections(proc) == 0:
            break
        await asyncio.sleep(0.05)
    assert _connections(proc) == 0


async def test_a_client_that_answers_pings_stays(server_with: Any) -> None:
    proc = server_with(TIMING)
    ws = await _open(proc)
    pings = 0
    started = time.monotonic()
    while time.monotonic() - started < 4.5:  # over twice interval + timeout
        try:
            packet = str(await asyncio.wait_for(ws.recv(), 0.5))
        except TimeoutError:
            continue
        if packet == "2":
            pings += 1
            await ws.send("3")
    assert pings >= 3
    assert ws.close_code is None and _connections(proc) == 1
    await ws.send('42["requestRoom","Ada"]')  # and it is still served
    while not str(reply := await asyncio.wait_for(ws.recv(), 5)).startswith('42["responseRoom"'):
        pass
    assert json.loads(str(reply)[2:])[1][1] == 1  # one player in the room: Ada
    await ws.close()
