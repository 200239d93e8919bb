"""Engine.IO sessions across nodes without sticky routing (parlour/net/adapters/eio_forward.py).

Raw long-polling clients make their handshake on node A and send every later request to the
other node in turn; real clients (python-socketio, and the official socket.io 2.x client under
Node) go through a round-robin proxy that sends every request to the next node. Games are played
to their end; a websocket upgrade that lands on the wrong node is relayed to the holder. Also: what
a forwarded request carries through Redis.
"""

from __future__ import annotations

import asyncio
from typing import Any

import aiohttp
import orjson
import pytest
import websockets
from eio_raw import RawPolling, RoundRobinProxy
from pageclient import PageClient
from sioclient import SioClient
from test_socket_uno_protocol import DEALT, no_other_socket_ids, play_match, request_room, whose_turn
from test_uno_events_protocol import Player

from tests.cluster.conftest import LEASE

CLOCKS = {
    "PARLOUR_READY_COUNTDOWN": "0.3",
    "PARLOUR_QUICKPLAY_COUNTDOWN": "2",
    "PARLOUR_GRACE_SECONDS": "3",
    "PARLOUR_EIO3_PING_INTERVAL": "1",
    "PARLOUR_EIO3_PING_TIMEOUT": "10",
    # No node dies here: a lease as short as the fail-over tests' (2 s) lapses when a loaded machine
    # stalls a node that long, and its peers then answer its sids "unknown" (the client is dropped).
    "PARLOUR_LEASE_SECONDS": "10",
}


@pytest.fixture
def nodes(cluster: Any) -> list[Any]:
    return [cluster.add(CLOCKS), cluster.add(CLOCKS)]


async def deal(client: Any) -> None:
    ticks: list[int] = []
    while not ticks or ticks[-1] != 0:
        ticks.append(await client.expect("countDown", timeout=10))
    assert len(await client.expect("haveCard")) in (7, 9)
    whose_turn(client, await client.expect("turnPlayer"))
    assert await client.expect("sendCard") in DEALT


@pytest.mark.parametrize("eio", [3, 4])
async def test_raw_polling_alternating_nodes_plays_a_tutorial_match(nodes: list[Any], eio: int) -> None:
    ports = [n.port for n in nodes]
    tom = await RawPolling.open(ports, eio)
    uma = await RawPolling.open(ports, eio)
    assert tom.eio_sid[:8] == uma.eio_sid[:8]  # both held by node A: their tag
    code, people, _ = await request_room(tom, "Tom")
    assert people == 1
    assert await request_room(uma, "Uma") == [code, 2, 10]
    for client in (tom, uma):
        await deal(client)
    await play_match([tom, uma], code)  # type: ignore[list-item]
    no_other_socket_ids([tom, uma])  # type: ignore[list-item]
    for client in (tom, uma):
        assert await client.expect("countDown") > 0  # the room reopened for the next game
        assert set(client.nodes_used) == set(ports)
        assert client.nodes_used[1::2].count(ports[1]) == len(client.nodes_used[1::2])  # B every other time
    for client in (tom, uma):
        await client.close()


async def test_raw_polling_v4_design_document_game_alternating_nodes(nodes: list[Any]) -> None:
    ports = [n.port for n in nodes]
    ann = await RawPolling.open(ports, 4, {"name": "Ann"})
    ben = await RawPolling.open(ports[::-1], 4, {"name": "Ben"})  # held by node B, polled on A too
    assert ann.eio_sid[:8] != ben.eio_sid[:8]
    assert "rooms" in await ann.expect("rooms-list")
    await ann.emit("create-room", {"name": "Ann's table", "maxPlayers": 2, "settings": {"targetScore": 0}})
    code = (await ann.expect("room-created"))["roomId"]
    host = (await ann.expect("room-joined"))["room"]["host"]
    await ben.emit("join-room", {"roomId": code})
    assert (await ben.expect("room-joined"))["room"]["id"] == code
    added = await ann.expect("player-joined")
    players = [Player(ann, host, careful=False), Player(ben, added["user"]["id"], careful=True)]  # type: ignore[arg-type]
    await ann.emit("start-game", {})
    results = await asyncio.wait_for(asyncio.gather(*(p.run() for p in players)), 90)
    assert results[0] == results[1] and results[0]["winner"]["id"] in (host, added["user"]["id"])
    for client in (ann, ben):
        assert set(client.nodes_used) == set(ports)
        await client.close()


async def test_a_sid_no_live_node_tagged_is_unknown_everywhere(nodes: list[Any]) -> None:
    async with aiohttp.ClientSession() as http:
        for node in nodes:
            for eio in (3, 4):
                url = f"http://127.0.0.1:{node.port}/socket.io/?EIO={eio}&transport=polling&sid=nosuchsid0"
                async with http.get(url) as r:
                    assert r.status == 400


@pytest.mark.parametrize("eio", [3, 4])
async def test_an_upgrade_on_the_other_node_is_relayed_to_the_holder(nodes: list[Any], eio: int) -> None:
    """Handshake on A, polls alternating, the websocket upgrade on B: probe, upgrade and then the
    session's events all go through B to A and back; polling ends; the tutorial room is joined."""
    a, b = nodes
    client = await RawPolling.open([a.port, b.port], eio)
    url = f"ws://127.0.0.1:{b.port}/socket.io/?EIO={eio}&transport=websocket&sid={client.eio_sid}"
    async with websockets.connect(url) as ws:
        await ws.send("2probe")
        assert await asyncio.wait_for(ws.recv(), 10) == "3probe"
        await ws.send("5")
        await asyncio.wait_for(client.closed_poll.wait(), 10)  # the pending poll was released (a noop)
        await ws.send("42" + orjson.dumps(["requestRoom", "Val"]).decode())
        while True:
            packet = await asyncio.wait_for(ws.recv(), 10)
            assert isinstance(packet, str)
            if packet == "2":  # v4: the server's ping, answered through the relay
                await ws.send("3")
            if packet.startswith("42"):
                name, data = orjson.loads(packet[2:])
                if name == "responseRoom":
                    break
        assert data[1:] == [1, 10]
        await ws.send("41")
    await client.close()


async def test_a_holder_killed_mid_session_ends_its_forwarded_poll_and_relayed_websocket(
    cluster: Any,
) -> None:
    """kill -9 of the node holding two sessions: the long-poll forwarded for one is answered 502 and the
    websocket relayed for the other is closed (1011) once the other node's heartbeat finds the holder
    gone, well before a long-poll's own limit (50 s with these settings); the clients then reconnect. The
    dead node's sids are unknown from then on."""
    short = {**CLOCKS, "PARLOUR_LEASE_SECONDS": LEASE}  # found dead in seconds
    a, b = cluster.add(short), cluster.add(short)
    upgraded = await RawPolling.open([a.port, b.port], 4, {"name": "Wil"})
    url = f"ws://127.0.0.1:{b.port}/socket.io/?EIO=4&transport=websocket&sid={upgraded.eio_sid}"
    async with aiohttp.ClientSession() as http, websockets.connect(url) as ws:
        await ws.send("2probe")
        assert await asyncio.wait_for(ws.recv(), 10) == "3probe"
        await ws.send("5")
        await asyncio.wait_for(upgraded.closed_poll.wait(), 10)
        async with http.get(f"http://127.0.0.1:{a.port}/socket.io/?EIO=4&transport=polling") as r:
            sid = orjson.loads((await r.text())[1:])["sid"]  # handshake on A; from here on only B
        poll_url = f"http://127.0.0.1:{b.port}/socket.io/?EIO=4&transport=polling&sid={sid}"
        async with http.post(poll_url, data=b"40") as r:
            assert r.status == 200
        async with http.get(poll_url) as r:  # the connect answer and what came with it
            assert r.status == 200 and "40{" in await r.text()
        pending = asyncio.ensure_future(http.get(poll_url))
        await asyncio.sleep(0.5)  # the poll is parked on A: nothing is queued for it
        assert not pending.done()
        a.kill()
        response = await asyncio.wait_for(pending, 40)
        assert response.status == 502 and await response.text() == "the session's node is gone"
        async with http.get(poll_url) as r:  # from now on the dead node's sids are unknown on B
            assert r.status == 400
        with pytest.raises(websockets.ConnectionClosed) as closed:
            while True:
                await asyncio.wait_for(ws.recv(), 40)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 1011
    upgraded.closed.set()
    await upgraded.http.close()
    assert b.alive()


@pytest.mark.parametrize("page_transports", [["polling", "websocket"], ["polling"]])
async def test_real_clients_through_a_round_robin_proxy_play_a_match(
    nodes: list[Any], page_transports: list[str]
) -> None:
    """python-socketio (v4) and the official socket.io 2.x client (v3) start on polling, as they do by
    default, through a proxy sending each request to the next node; they play a whole match."""
    proxy = RoundRobinProxy([n.port for n in nodes])
    await proxy.start()
    try:
        page = await PageClient.open(proxy, "Tom", page_transports)
        code, people, _ = await page.expect("responseRoom")
        assert people == 1
        v4 = SioClient()
        await v4.sio.connect(f"http://127.0.0.1:{proxy.port}", transports=["polling", "websocket"])
        assert await request_room(v4, "Uma") == [code, 2, 10]
        for client in (page, v4):
            await deal(client)
        await play_match([page, v4], code)  # type: ignore[list-item]
        no_other_socket_ids([page, v4])  # type: ignore[list-item]
        for client in (page, v4):
            assert await client.expect("countDown") > 0
        polls = [port for method, port in proxy.sent if method in ("GET", "POST")]
        assert len(set(polls)) == 2
        if "websocket" in page_transports:  # both upgraded, whichever node each upgrade reached
            assert page.transport == "websocket" and v4.sio.transport() == "websocket"
            assert [method for method, _ in proxy.sent].count("ws") == 2
        else:  # the page polled all along, each request on the next node
            assert len(polls) > 20
        await page.close()
        await v4.close()
    finally:
        await proxy.stop()
    assert all(n.alive() for n in nodes)


async def test_forwarded_requests_carry_only_what_engine_io_reads(
    nodes: list[Any], redis_server: Any
) -> None:
    """MONITOR on Redis while a client whose every request carries a token in its query, a cookie and
    an authorization header plays through two nodes, polling and then on a relayed websocket: none of
    them crosses Redis; each forwarded request carries only Engine.IO's query keys and two headers; no
    Redis key holds a session token in the clear (what a forwarded poll answers — the client's own
    events — does cross pub/sub)."""
    secret_query, cookie, bearer = "q-secret-4711", "c-secret-0815", "b-secret-1234"
    monitor = await asyncio.open_connection("127.0.0.1", redis_server.port)
    monitor[1].write(b"MONITOR\r\n")
    await monitor[1].drain()
    assert (await monitor[0].readline()).startswith(b"+OK")
    seen = bytearray()

    async def record() -> None:
        while chunk := await monitor[0].read(65536):
            seen.extend(chunk)

    recorder = asyncio.create_task(record())
    ports = [n.port for n in nodes]
    headers = {"Cookie": f"parlour_browser={cookie}", "Authorization": f"Bearer {bearer}"}
    extra = {"query": f"&token={secret_query}", "headers": headers}
    ann = await RawPolling.open(ports, 4, {"name": "Ann"}, **extra)
    ben = await RawPolling.open(ports[::-1], 4, {"name": "Ben"}, **extra)
    await ann.emit("create-room", {"name": "locked", "maxPlayers": 2, "settings": {}})
    code = (await ann.expect("room-created"))["roomId"]
    await ben.emit("join-room", {"roomId": code})
    assert (await ben.expect("room-joined"))["room"]["id"] == code
    tokens = [c.last("session")["token"] for c in (ann, ben)]
    await ann.emit("chat-message", {"message": "hi"})
    await ben.expect("chat-message")
    held_by_a = f"sid={ann.eio_sid}&token={secret_query}"  # Ann upgrades on B: relayed to A
    url = f"ws://127.0.0.1:{ports[1]}/socket.io/?EIO=4&transport=websocket&{held_by_a}"
    async with websockets.connect(url, additional_headers=headers) as ws:
        await ws.send("2probe")
        assert await asyncio.wait_for(ws.recv(), 10) == "3probe"
        await ws.send("5")
        await ws.send("42" + orjson.dumps(["chat-message", {"message": "over the relay"}]).decode())
        assert (await ben.expect("chat-message"))["message"] == "over the relay"
    for client in (ann, ben):
        await client.close()
    await asyncio.sleep(0.3)
    recorder.cancel()
    monitor[1].close()
    log = bytes(seen)
    forwarded = [line for line in log.split(b"\n") if b'"PUBLISH"' in line and b'[\\"eio\\",' in line]
    assert forwarded  # requests were forwarded (MONITOR escapes the JSON's quotes)
    forwarded += [line for line in log.split(b"\n") if b'"PUBLISH"' in line and b'[\\"eio-ws\\",' in line]
    assert b"over the relay" in log  # the websocket was relayed
    for secret in (secret_query, cookie, bearer):
        assert secret.encode() not in log
    for line in forwarded:
        lowered = line.lower()
        assert b"token=" not in line and b"cookie" not in lowered and b"authorization" not in lowered
    keys = _redis_dump(redis_server.port)
    for secret in tokens:
        assert secret.encode() not in keys


def _redis_dump(port: int) -> bytes:
    """Every string, hash, list and stream value in Redis, raw (good enough to search for a secret)."""
    import redis

    client = redis.Redis(port=port)
    out = bytearray()
    for key in client.scan_iter(count=1000):
        kind = client.type(key)
        if kind == b"string":
            out += client.get(key) or b""
        elif kind == b"hash":
            out += orjson.dumps({k.decode(): v.decode("latin-1") for k, v in client.hgetall(key).items()})
        elif kind == b"list":
            out += b"".join(client.lrange(key, 0, -1))
        elif kind == b"stream":
            for _, fields in client.xrange(key):
                out += b"".join(fields.values())
        out += b"\n"
    return bytes(out)
