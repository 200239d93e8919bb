"""The socket-uno tutorial's events, with python-socketio clients that send only those events."""

from __future__ import annotations

import asyncio
import json
import re
from typing import Any

import aiohttp
from sioclient import SioClient
from wsclient import Native

from parlour.net.adapters.uno_numbers import card_to_number

DEALT = {card_to_number(card) for card in range(108)}
MEMBER = re.compile(r"m\d+")


def whose_turn(client: SioClient, turn: Any) -> str:
    """``turnPlayer`` as the tutorial's client reads it: its own socket id on its turn; otherwise the
    member id of the player to move, never another socket's id."""
    assert turn == client.sid or MEMBER.fullmatch(turn), turn
    return "mine" if turn == client.sid else "theirs"


def no_other_socket_ids(clients: list[SioClient]) -> None:
    """No client was ever sent another's socket id (a 2.x client's is its Engine.IO session: whoever
    holds it can poll that client's hand and post moves as it)."""
    for client in clients:
        heard = json.dumps(client.events)
        assert not [other.sid for other in clients if other is not client and other.sid in heard]


async def tutorial(server: Any, jar: Any = None, transports: list[str] | None = None) -> SioClient:
    """A client as the tutorial's canvas page connects: no name until ``requestRoom``. A browser
    of its own unless given another client's cookie ``jar``."""
    client = SioClient(jar)
    await client.sio.connect(f"http://127.0.0.1:{server.port}", transports=transports or ["websocket"])
    return client


async def request_room(client: SioClient, name: str) -> list[Any]:
    await client.emit("requestRoom", name)
    return await client.expect("responseRoom")


async def pair(server: Any) -> tuple[SioClient, SioClient, str]:
    """Two tutorial clients auto-assigned to one room; the countdown runs down and the game starts."""
    tom, uma = await tutorial(server), await tutorial(server)
    code, people, most = await request_room(tom, "Tom")
    assert (people, most) == (1, 10) and isinstance(code, str)
    assert await request_room(uma, "Uma") == [code, 2, 10]
    assert await tom.expect("responseRoom") == [code, 2, 10]
    turns = []
    for client in (tom, uma):
        ticks = []
        while not ticks or ticks[-1] != 0:
            ticks.append(await client.expect("countDown", timeout=5))
        assert ticks == sorted(ticks, reverse=True) and ticks[-1] == 0
        hand = await client.expect("haveCard")
        assert len(hand) in (7, 9) and set(hand) <= DEALT  # 9: a first-card Draw Two hit this player
        turns.append(whose_turn(client, await client.expect("turnPlayer")))
        assert await client.expect("sendCard") in DEALT
    assert sorted(turns) == ["mine", "theirs"]
    return tom, uma, code


async def take_turn(client: SioClient, code: Any) -> None:
    """What a tutorial player does: click cards until one is accepted, else the deck (maybe twice).

    Each click waits for its own answer — the ``sendCard`` of that very card, or an ``error`` — never
    for any ``sendCard``: at a game's start the table's ``sendCard`` follows ``turnPlayer``, and taking
    it for the answer to a refused click left the player on turn waiting for a turn it already had.
    """
    held = list(client.last("haveCard"))
    for number in held:
        if await _click(client, number, code):
            return
    await client.emit("drawCard", [1, code])
    event, hand = await client.next_matching(lambda name, _: name in ("haveCard", "error"))
    if event == "error":
        return
    drawn = [n for n in hand if n not in held]
    await asyncio.sleep(0.02)  # a turnPlayer follows the new hand at once unless the draw is playable
    if drawn and not _moved_on(client) and not await _click(client, drawn[0], code):
        await client.emit("drawCard", [1, code])  # keep it: pass
        await client.next_matching(lambda name, _: name in ("turnPlayer", "error"))


async def _click(client: SioClient, number: int, code: Any) -> bool:
    """Play one card; True when the server put that card on the table."""
    await client.emit("playCard", [number, code])
    answer = await client.next_matching(
        lambda name, data: (name, data) == ("sendCard", number) or name == "error"
    )
    return answer[0] == "sendCard"


def _moved_on(client: SioClient) -> bool:
    """Whether a turnPlayer or a new game arrived since the player's last action."""
    return any(name in ("turnPlayer", "countDown") for name, _ in client.events[client.cursor :])


def my_new_turn(client: SioClient, handled: int) -> int | None:
    """Index of a ``turnPlayer`` naming this socket that arrived after event ``handled``."""
    for i in range(len(client.events) - 1, handled, -1):
        name, data = client.events[i]
        if name == "turnPlayer":
            return i if data == client.sid else None
    return None


async def play_match(players: list[SioClient], code: str, limit: float = 90) -> None:
    """Play until the room reopens (a ``countDown`` after the match), acting only on ``turnPlayer``."""
    handled = {id(p): len(p.events) - 2 for p in players}
    handled.update({id(p): -1 for p in players if p.last("turnPlayer") == p.sid})
    deadline = asyncio.get_running_loop().time() + limit
    while asyncio.get_running_loop().time() < deadline:
        if any(name == "countDown" for p in players for name, _ in p.events[p.cursor :]):
            return
        for player in players:
            turn = my_new_turn(player, handled[id(player)])
            if turn is not None:
                handled[id(player)] = turn
                player.cursor = len(player.events)
                await take_turn(player, code)
        await asyncio.sleep(0.002)
    raise AssertionError("the match did not end in time")


async def test_quick_play_countdown_a_whole_match_and_the_room_reopens(fresh_server: Any) -> None:
    server = fresh_server
    tom, uma, code = await pair(server)
    await play_match([tom, uma], code)
    for client in (tom, uma):
        assert await client.expect("responseRoom", lambda d: d[0] == code) == [code, 2, 10]
        assert await client.expect("countDown") > 0
        assert len(await client.expect("haveCard", timeout=10)) in (7, 9)  # the next game starts by itself
    no_other_socket_ids([tom, uma])
    await tom.close()
    await uma.close()


async def test_simultaneous_requests_fill_one_room(fresh_server: Any) -> None:
    """Quick play is atomic: tutorial clients asking at the same moment share one room (10 seats)."""
    clients = [await tutorial(fresh_server) for _ in range(6)]
    answers = await asyncio.gather(*(request_room(c, f"P{i}") for i, c in enumerate(clients)))
    assert len({code for code, _, _ in answers}) == 1 and "error" not in answers[0]
    for client in clients:
        await client.close()


async def test_reconnect_from_the_same_browser_gets_the_same_seat(fresh_server: Any) -> None:
    """The seat goes back to the browser that held it (its handshake cookie), never to a name."""
    server = fresh_server
    tom, uma, code = await pair(server)
    hand = tom.last("haveCard")
    await tom.close()
    assert await uma.expect("playerDisconnect") == code
    for transports in (["websocket"], ["polling", "websocket"]):  # a stranger types Tom's name
        stranger = await tutorial(server, transports=transports)
        taken = await request_room(stranger, "tom")
        assert taken[0] not in (code, "error")  # a seat of its own elsewhere
        assert not [n for n, _ in stranger.events if n == "haveCard"]
        assert not [n for n, d in uma.events if n == "responseRoom" and d[1] > 2]
        await stranger.close()
    again = await tutorial(server, jar=tom.jar)  # Tom's own browser, a new socket
    assert (await request_room(again, "Tom"))[0] == code
    assert await again.expect("haveCard") == hand
    turn = whose_turn(again, await again.expect("turnPlayer"))
    assert await again.expect("sendCard") == uma.last("sendCard")
    mover = again if turn == "mine" else uma
    mover.cursor = len(mover.events)
    await take_turn(mover, [code, 2, 10])  # a client may keep responseRoom's whole list as its room
    whose_turn(uma, await uma.expect("turnPlayer"))
    no_other_socket_ids([again, uma])
    await again.close()
    await uma.close()


async def test_the_handshake_sets_an_httponly_lax_cookie_once_per_browser(fresh_server: Any) -> None:
    async with aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True)) as http:
        url = f"http://127.0.0.1:{fresh_server.port}/socket.io/?EIO=4&transport=polling"
        async with http.get(url) as first:
            assert first.status == 200
            (set_cookie,) = first.headers.getall("Set-Cookie")
        attributes = {a.strip().split("=")[0].lower() for a in set_cookie.split(";")}
        assert {"httponly", "samesite", "path"} <= attributes and "samesite=lax" in set_cookie.lower()
        assert "path=/socket.io" in set_cookie.lower()
        async with http.get(url) as second:  # the same browser again: its cookie stands
            assert second.status == 200 and "Set-Cookie" not in second.headers
        forged = {"Cookie": "parlour_browser=not-a-value-we-issued"}
        async with aiohttp.ClientSession() as other, other.get(url, headers=forged) as third:
            assert "parlour_browser=" in third.headers["Set-Cookie"]  # replaced by a real one


async def test_the_last_opponent_leaving_ends_the_game_cleanly(fresh_server: Any) -> None:
    server = fresh_server
    tom, uma, code = await pair(server)
    await tom.close()
    assert await uma.expect("playerDisconnect") == code
    assert await uma.expect("responseRoom", timeout=8) == [code, 1, 10]  # grace ran out; room reopened
    await uma.emit("playCard", [uma.last("haveCard")[0], code])
    assert (await uma.expect("error"))["message"]  # no game is running any more
    await uma.close()


async def test_malformed_events_get_answers(fresh_server: Any) -> None:
    server = fresh_server
    lone = await tutorial(server)
    await lone.emit("drawCard", [1, "Room_1"])
    assert "room" in (await lone.expect("error"))["message"]
    for bad in (None, 42, "", "   "):
        await lone.emit("requestRoom", bad)
        assert await lone.expect("responseRoom") == ["error", 0, 0]
    tom, uma, code = await pair(server)
    for bad in (None, [], "x", {"n": 1}, [200, code], [56, code], [3, "Room_1"], ["7", code], [True, code]):
        await tom.emit("playCard", bad)
        assert (await tom.expect("error"))["message"], bad
    for bad in (None, [], "x", {"n": 1}, [1, "Room_1"]):
        await tom.emit("drawCard", bad)
        assert (await tom.expect("error"))["message"], bad
    long_name = await tutorial(server)
    code2, people, _ = await request_room(long_name, "A name much longer than sixteen")
    assert code2 not in ("error", code) and people == 1  # shortened to the native limit, not refused
    for client in (lone, tom, uma, long_name):
        await client.close()


async def test_a_native_quick_player_and_a_tutorial_client_finish_a_match(fresh_server: Any) -> None:
    server = fresh_server
    tom = await tutorial(server)
    code = (await request_room(tom, "Tom"))[0]
    native = await Native.open(server.ws)
    await native.request("identify", name="Nat")
    assert (await native.request("quick_play", game="uno"))["code"] == code
    assert await tom.expect("responseRoom") == [code, 2, 10]
    handled, acted_seq, over = -1, -1, None
    deadline = asyncio.get_running_loop().time() + 150
    while over is None:
        assert asyncio.get_running_loop().time() < deadline, (
            "stalled",
            tom.events[-12:],
            native.messages[-4:],
        )
        over = next((m for m in native.messages if m.get("type") == "game_over"), None)
        games = [m for m in native.messages if m.get("type") in ("game_started", "game")]
        view = games[-1]["view"] if games else {}
        if (
            games
            and games[-1]["seq"] > acted_seq
            and view.get("turn") == view.get("seat")
            and view.get("legal")
        ):
            acted_seq = games[-1]["seq"]
            await native.request("action", action=view["legal"][0])
        turn = my_new_turn(tom, handled)
        if turn is not None:
            handled = turn
            tom.cursor = len(tom.events)
            await take_turn(tom, code)
        await asyncio.sleep(0.002)
    assert over["outcome"]["winners"]
    assert await tom.expect("countDown", timeout=10) > 0  # the tutorial client reopened the room
    await tom.close()
    await native.close()
