"""The tutorial's original page: socket.io 2.x (Engine.IO v3, Socket.IO v2) beside v4 at ``/socket.io/``.

Games are played by the official ``socket.io-client@2.5.0`` (``pageclient``) against a
python-socketio v5 client in the same quick-play room. The raw-HTTP tests speak Engine.IO v3 by
hand to check the handshake, CORS, pings, the idle timeout and what junk gets.
"""

from __future__ import annotations

import asyncio
from typing import Any

import aiohttp
import orjson
import pytest
import websockets
from pageclient import PageClient
from sioclient import Recorder, SioClient, v3_packets
from test_socket_uno_protocol import (
    DEALT,
    no_other_socket_ids,
    play_match,
    request_room,
    tutorial,
    whose_turn,
)

ORIGIN = "http://tutorial.example:3000"
PINGING = {"PARLOUR_EIO3_PING_INTERVAL": "0.5", "PARLOUR_EIO3_PING_TIMEOUT": "10"}
"""Games run with the page pinging twice a second, so pings and pongs cross every game."""


def js_length(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


async def countdown_and_deal(client: Recorder) -> None:
    """Ticks down to 0, then the tutorial's trio: haveCard, turnPlayer, sendCard."""
    ticks: list[int] = []
    while not ticks or ticks[-1] != 0:
        ticks.append(await client.expect("countDown", timeout=10))
    assert ticks == sorted(ticks, reverse=True)
    hand = await client.expect("haveCard")
    assert len(hand) in (7, 9) and set(hand) <= DEALT
    whose_turn(client, await client.expect("turnPlayer"))
    assert await client.expect("sendCard") in DEALT


@pytest.mark.parametrize(
    "transports",
    [["polling", "websocket"], ["websocket"], ["polling"]],
    ids=["polling-then-upgrade", "websocket-only", "polling-only"],
)
async def test_the_socketio2_page_plays_a_whole_game_with_a_v4_client(
    server_with: Any, transports: list[str]
) -> None:
    server = server_with(PINGING)
    page = await PageClient.open(server, "Tom", transports)
    code, people, most = await page.expect("responseRoom")
    assert (people, most) == (1, 10)
    v4 = await tutorial(server)
    assert await request_room(v4, "Uma") == [code, 2, 10]
    assert await page.expect("responseRoom") == [code, 2, 10]
    if transports[0] == "polling" and len(transports) > 1:
        await asyncio.wait_for(page.upgraded.wait(), 10)
    assert page.transport == transports[-1]
    for client in (page, v4):
        await countdown_and_deal(client)
    started = {id(client): len(client.events) for client in (page, v4)}
    await play_match([page, v4], code)
    no_other_socket_ids([page, v4])  # type: ignore[list-item]
    for client in (page, v4):  # the game ended and the room reopened for the next one
        client.cursor = started[id(client)]  # play_match's turn-taking may have read past it
        assert await client.expect("responseRoom", lambda d: d[0] == code) == [code, 2, 10]
        assert await client.expect("countDown") > 0
    await page.close()
    assert page.disconnect_reason == "io client disconnect"
    assert await v4.expect("playerDisconnect") == code
    await v4.close()


async def test_a_page_that_leaves_mid_game_is_seen_leaving(fresh_server: Any) -> None:
    page = await PageClient.open(fresh_server, "Tom", ["polling", "websocket"])
    code, _, _ = await page.expect("responseRoom")
    v4 = await tutorial(fresh_server)
    await request_room(v4, "Uma")
    await countdown_and_deal(v4)
    await page.close()
    assert await v4.expect("playerDisconnect") == code
    await v4.close()


async def test_eio3_handshake_is_answered_with_cors_and_the_v4_path_still_works(server: Any) -> None:
    async with aiohttp.ClientSession() as http:
        url = f"{server.http}/socket.io/?EIO=3&transport=polling&t=N1"
        async with http.get(url, headers={"Origin": ORIGIN}) as r:
            assert r.status == 200
            assert r.headers["Access-Control-Allow-Origin"] == ORIGIN
            assert r.headers["Access-Control-Allow-Credentials"] == "true"
            first = v3_packets(await r.text())
        assert first[0].startswith("0")
        info = orjson.loads(first[0][1:])
        assert info["upgrades"] == ["websocket"] and info["pingInterval"] > 0 and info["pingTimeout"] > 0
        assert "40" in first  # the default namespace is joined without asking, as v2 servers do
        sid = info["sid"]
        async with http.post(f"{url}&sid={sid}", data="1:2", headers={"Origin": ORIGIN}) as r:
            assert (r.status, await r.text()) == (200, "ok")
            assert r.headers["Access-Control-Allow-Origin"] == ORIGIN
        async with http.get(f"{url}&sid={sid}") as r:
            assert "3" in v3_packets(await r.text())  # the pong
        async with http.post(f"{url}&sid={sid}", data="2:41") as r:
            assert r.status == 200
        async with http.get(f"{url}&sid={sid}") as r:
            assert r.status == 400
            assert (await r.json())["message"] == "Session ID unknown"
        async with http.get(f"{server.http}/socket.io/?EIO=4&transport=polling") as r:
            assert r.status == 200 and (await r.text()).startswith("0{")  # v4 is python-socketio's


async def test_a_cors_preflight_from_another_origin_is_answered(server: Any) -> None:
    headers = {
        "Origin": ORIGIN,
        "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "content-type",
    }
    async with aiohttp.ClientSession() as http:
        url = f"{server.http}/socket.io/?EIO=3&transport=polling&t=N2"
        async with http.options(url, headers=headers) as r:
            assert r.status in (200, 204)
            assert r.headers["Access-Control-Allow-Origin"] == ORIGIN
            assert r.headers["Access-Control-Allow-Credentials"] == "true"
            assert "POST" in r.headers["Access-Control-Allow-Methods"]
            assert "content-type" in r.headers["Access-Control-Allow-Headers"].lower()


async def _session(http: aiohttp.ClientSession, base: str) -> str:
    async with http.get(f"{base}/socket.io/?EIO=3&transport=polling") as r:
        return str(orjson.loads(v3_packets(await r.text())[0][1:])["sid"])


async def _gone(http: aiohttp.ClientSession, base: str, sid: str) -> bool:
    """Whether polls on ``sid`` are refused as an unknown session."""
    async with http.get(f"{base}/socket.io/?EIO=3&transport=polling&sid={sid}") as r:
        return r.status == 400 and (await r.json())["code"] == 1


@pytest.mark.parametrize(
    "body",
    [
        b"abc",
        b"5:42",
        b"0:",
        b":",
        b"99999999999999:4",
        b"\xff\xfe",
        b"3:4",
    ],
    ids=["no-length", "short", "zero", "empty-length", "huge-length", "not-utf8", "length-past-end"],
)
async def test_a_badly_framed_post_is_400_and_closes_the_session(server: Any, body: bytes) -> None:
    async with aiohttp.ClientSession() as http:
        sid = await _session(http, server.http)
        url = f"{server.http}/socket.io/?EIO=3&transport=polling&sid={sid}"
        async with http.post(url, data=body, headers={"Content-Type": "text/plain;charset=UTF-8"}) as r:
            assert r.status == 400
        assert await _gone(http, server.http, sid)
    assert "Traceback" not in server.log_path.read_text()


@pytest.mark.parametrize(
    "packet",
    ["42{}", "42[]", '42["requestRoom"', "4x", "451-[]", "44", "7", "1"],
    ids=["object", "empty", "bad-json", "bad-type", "binary", "error", "unknown", "close"],
)
async def test_junk_packets_close_only_that_session(server: Any, packet: str) -> None:
    async with aiohttp.ClientSession() as http:
        sid = await _session(http, server.http)
        url = f"{server.http}/socket.io/?EIO=3&transport=polling&sid={sid}"
        async with http.post(url, data=f"{len(packet)}:{packet}") as r:
            assert r.status == 200
        assert await _gone(http, server.http, sid)
        assert await _session(http, server.http)  # the server still answers
    assert server.alive() and "Traceback" not in server.log_path.read_text()


async def test_bad_requests_get_400(server: Any) -> None:
    base = f"{server.http}/socket.io/?EIO=3"
    async with aiohttp.ClientSession() as http:
        sid = await _session(http, server.http)
        refused = [
            ("GET", f"{base}&transport=polling&sid=nope", b""),
            ("POST", f"{base}&transport=polling&sid=nope", b"1:2"),
            ("POST", f"{base}&transport=polling", b"1:2"),  # a handshake must be a GET
            ("GET", f"{base}&transport=flashsocket", b""),
            ("GET", f"{base}&transport=polling&j=0", b""),  # JSONP polling is not supported
            ("PUT", f"{base}&transport=polling&sid={sid}", b""),
        ]
        for method, url, body in refused:
            async with http.request(method, url, data=body) as r:
                assert r.status == 400, (method, url)
        async with http.post(f"{base}&transport=polling&sid={sid}", data="1:2" * 25_000) as r:
            assert r.status == 400  # larger than PARLOUR_MAX_FRAME (64 KiB)
        sid = await _session(http, server.http)
        binary = {"Content-Type": "application/octet-stream"}
        async with http.post(
            f"{base}&transport=polling&sid={sid}", data=b"\x00\x01\xff4", headers=binary
        ) as r:
            assert r.status == 400
        assert await _gone(http, server.http, sid)
    assert server.alive() and "Traceback" not in server.log_path.read_text()


async def test_two_polls_at_once_end_the_session(server: Any) -> None:
    async with aiohttp.ClientSession() as http:
        sid = await _session(http, server.http)
        url = f"{server.http}/socket.io/?EIO=3&transport=polling&sid={sid}"
        async with http.post(url, data="1:2") as r:  # a ping, so the next poll has a pong
            assert r.status == 200
        async with http.get(url) as r:  # the pong, and whatever the handshake left
            assert "3" in v3_packets(await r.text())

        async def poll() -> tuple[int, str]:
            async with http.get(url) as r:
                return r.status, await r.text()

        answers = sorted(await asyncio.gather(poll(), poll()))
        assert answers[0][0] == 200 and "1" in v3_packets(answers[0][1])  # released with the close packet
        assert answers[1][0] == 400
        assert await _gone(http, server.http, sid)


async def test_websocket_junk_closes_the_socket(server: Any) -> None:
    ws_base = f"ws://127.0.0.1:{server.port}/socket.io/?EIO=3&transport=websocket"
    async with websockets.connect(ws_base) as ws:
        assert str(await ws.recv()).startswith("0{")
        assert await ws.recv() == "40"
        await ws.send("2")
        while (reply := await ws.recv()) != "3":  # events may come before the pong
            assert str(reply).startswith("42")
        await ws.send(b"\x04binary")
        with pytest.raises(websockets.ConnectionClosed):
            while True:
                await ws.recv()
    async with websockets.connect(ws_base) as ws:  # a packet over PARLOUR_MAX_FRAME (64 KiB)
        await ws.send('42["requestRoom","' + "x" * 70_000 + '"]')
        with pytest.raises(websockets.ConnectionClosed):
            while True:
                await ws.recv()
    for bad in (f"{ws_base}&sid=nope", f"{ws_base.replace('websocket', 'carrier-pigeon')}"):
        with pytest.raises((websockets.InvalidStatus, websockets.ConnectionClosed)):
            async with websockets.connect(bad) as ws:
                await ws.recv()
    async with aiohttp.ClientSession() as http:  # a probe that is not one leaves polling working
        sid = await _session(http, server.http)
        async with websockets.connect(f"{ws_base}&sid={sid}") as ws:
            await ws.send("junk")
            with pytest.raises(websockets.ConnectionClosed):
                await ws.recv()
        async with http.post(f"{server.http}/socket.io/?EIO=3&transport=polling&sid={sid}", data="1:2") as r:
            assert r.status == 200
    assert server.alive() and "Traceback" not in server.log_path.read_text()


async def test_an_unknown_namespace_is_refused_as_v2_does(server: Any) -> None:
    async with aiohttp.ClientSession() as http:
        sid = await _session(http, server.http)
        url = f"{server.http}/socket.io/?EIO=3&transport=polling&sid={sid}"
        async with http.post(url, data="8:40/admin") as r:
            assert r.status == 200
        seen: list[str] = []
        while '44/admin,"Invalid namespace"' not in seen:
            async with http.get(url) as r:
                seen += v3_packets(await r.text())


async def test_a_silent_session_times_out(server_with: Any) -> None:
    server = server_with({"PARLOUR_EIO3_PING_INTERVAL": "0.2", "PARLOUR_EIO3_PING_TIMEOUT": "0.2"})
    async with aiohttp.ClientSession() as http:
        sid = await _session(http, server.http)
        url = f"{server.http}/socket.io/?EIO=3&transport=polling&sid={sid}"
        seen: list[str] = []
        while "1" not in seen:  # polls wait for packets; the close packet ends them
            async with http.get(url) as r:
                if r.status == 400:  # it timed out between two polls
                    break
                seen += v3_packets(await r.text())
        assert await _gone(http, server.http, sid)


async def test_a_v2_and_a_v4_tutorial_client_share_quick_play(fresh_server: Any) -> None:
    v4 = await SioClient.open(fresh_server)
    await v4.emit("requestRoom", "Uma")
    code, _, _ = await v4.expect("responseRoom")
    page = await PageClient.open(fresh_server, "Tom", ["websocket"])
    assert await page.expect("responseRoom") == [code, 2, 10]
    await page.close()
    await v4.close()


async def test_lengths_count_utf16_units_both_ways_and_acks_are_answered(server: Any) -> None:
    """An astral character is two units in a v3 length, as JavaScript counts; ``421[...]`` gets ``431[]``."""
    async with aiohttp.ClientSession() as http:
        name = "Zoë😀"
        url = f"{server.http}/socket.io/?EIO=3&transport=polling"
        async with http.get(url, params={"name": name}) as r:
            body = await r.text()
        sid = orjson.loads(v3_packets(body)[0][1:])["sid"]
        session = next(p for p in v3_packets(body) if p.startswith('42["session"'))
        assert orjson.loads(session[2:])[1]["name"] == name
        assert f"{js_length(session)}:{session}" in body
        event = '421["requestRoom","Zoë😀"]'
        async with http.post(f"{url}&sid={sid}", data=f"{js_length(event)}:{event}") as r:
            assert r.status == 200
        seen: list[str] = []
        while not any(p.startswith('42["responseRoom"') for p in seen):
            async with http.get(f"{url}&sid={sid}") as r:
                seen += v3_packets(await r.text())
        assert "431[]" in seen
        response = orjson.loads(next(p for p in seen if p.startswith('42["responseRoom"'))[2:])
        assert response[1][1:] == [1, 10]


async def test_the_v3_handshake_sets_the_browser_cookie_on_polling_and_websocket(server: Any) -> None:
    """The seat-reclaim cookie of the v4 handshake, on both v3 handshakes; kept by the same browser."""
    async with aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True)) as http:
        url = f"{server.http}/socket.io/?EIO=3&transport=polling"
        async with http.get(url, headers={"Origin": ORIGIN}) as first:
            (set_cookie,) = first.headers.getall("Set-Cookie")
        lowered = set_cookie.lower()
        assert lowered.startswith("parlour_browser=")
        assert "httponly" in lowered and "samesite=lax" in lowered and "path=/socket.io" in lowered
        async with http.get(url) as second:
            assert second.status == 200 and "Set-Cookie" not in second.headers
    ws_url = f"ws://127.0.0.1:{server.port}/socket.io/?EIO=3&transport=websocket"
    async with websockets.connect(ws_url) as ws:
        assert ws.response is not None
        assert ws.response.headers["Set-Cookie"].startswith("parlour_browser=")
        assert str(await ws.recv()).startswith("0{")
