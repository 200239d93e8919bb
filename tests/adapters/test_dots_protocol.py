"""The Dots & Boxes packet protocol at /dots, over real websockets against ``parlour serve``."""

from __future__ import annotations

import asyncio
import itertools
import json
import urllib.request
from typing import Any

from wsclient import Native, WsClient

Message = dict[str, Any]
_names = itertools.count()


def room_name() -> str:
    return f"dots-room-{next(_names)}-{id(object())}"


async def dots(server: Any) -> WsClient:
    return await WsClient.open(f"ws://127.0.0.1:{server.port}/dots")


async def create(client: WsClient, name: str, width: int = 3, height: int = 3, **extra: Any) -> Message:
    await client.send({"type": "CREATE", "roomname": name, "width": width, "height": height, **extra})
    return await client.expect_key("type", "CREATE")


async def join(client: WsClient, name: str, username: str, kind: str = "JOIN", **extra: Any) -> Message:
    await client.send({"type": kind, "roomname": name, "username": username, **extra})
    reply = await client.expect_key("type", kind)
    if reply["ok"]:
        board = await client.expect_key("type", "BOARD")
        assert board["roomname"] == name
    return reply


async def seated_pair(server: Any, name: str, **extra: Any) -> tuple[WsClient, WsClient, int, int, str]:
    """A room with two joined players (and the creator's admin token)."""
    a, b = await dots(server), await dots(server)
    token = (await create(a, name, **extra))["admin_token"]
    pa = (await join(a, name, "alice", password=extra.get("password")))["playerid"]
    pb = (await join(b, name, "bob", password=extra.get("password")))["playerid"]
    return a, b, pa, pb, token


async def start(*clients: WsClient) -> None:
    for client in clients:
        await client.send({"type": "READY", "ready": True})
    for client in clients:
        await client.expect(lambda m: m == {"type": "GAMESTATE", "state": "started"})


def all_lines(width: int, height: int) -> list[tuple[int, int, int]]:
    """Every line of a board, in reading order."""
    lines = []
    for y in range(height):
        for x in range(width):
            lines += [(x, y, 0)] * (x < width - 1) + [(x, y, 1)] * (y < height - 1)
    return lines


def completes(drawn: set[tuple[int, int, int]], line: tuple[int, int, int], width: int, height: int) -> list:
    """The boxes ``line`` completes given the lines already ``drawn`` (box (x, y) first)."""
    x, y, d = line
    near = [(x, y), (x, y - 1)] if d == 0 else [(x, y), (x - 1, y)]
    done = []
    for bx, by in near:
        if 0 <= bx < width - 1 and 0 <= by < height - 1:
            sides = {(bx, by, 0), (bx, by + 1, 0), (bx, by, 1), (bx + 1, by, 1)} - {line}
            if sides <= drawn:
                done.append([bx, by])
    return done


async def play_out(players: dict[int, WsClient], width: int, height: int, native: Any = None) -> Message:
    """Whoever has the turn draws the first free line until the game ends; ``players`` maps
    playerids to Dots clients, any other playerid moves through the ``native`` client. Checks
    each MOVE's CAPTUREs against a model of the board, and that no TURN follows a capture."""
    watcher = next(iter(players.values()))
    free, drawn = all_lines(width, height), set()
    turn = (await watcher.expect_key("type", "TURN"))["playerid"]
    start = watcher.cursor
    while True:
        line = free.pop(0)
        x, y, d = line
        if turn in players:
            await players[turn].send({"type": "MOVE", "x": x, "y": y, "d": d})
        else:
            reply = await native.request("action", action={"type": "line", "x": x, "y": y, "d": d})
            assert reply["type"] == "ok", reply
        assert await watcher.expect_key("type", "MOVE") == {
            "type": "MOVE",
            "x": x,
            "y": y,
            "d": d,
            "playerid": turn,
        }
        for bx, by in completes(drawn, line, width, height):
            capture = await watcher.expect(lambda m: m["type"] != "CHAT")
            assert capture == {"type": "CAPTURE", "x": bx, "y": by, "playerid": turn}
        drawn.add(line)
        if not free:
            end = await watcher.expect_key("type", "GAMESTATE")
            sequence = [m["type"] for m in watcher.messages[start : watcher.cursor]]
            for i, kind in enumerate(sequence[:-1]):
                if kind == "CAPTURE":
                    assert sequence[i + 1] in ("CAPTURE", "MOVE", "GAMESTATE"), sequence
            return end
        if not completes(drawn - {line}, line, width, height):
            turn = (await watcher.expect_key("type", "TURN"))["playerid"]


async def test_create_join_board_and_a_full_game(server: Any) -> None:
    name = room_name()
    a, b = await dots(server), await dots(server)
    created = await create(a, name, 3, 3)
    assert created["ok"] is True and created["admin_token"] == created["admintoken"]
    await a.send({"type": "JOIN", "roomname": name, "username": "alice"})
    joined = await a.expect_key("type", "JOIN")
    assert joined["ok"] is True and isinstance(joined["token"], str) and isinstance(joined["playerid"], int)
    board = await a.expect_key("type", "BOARD")
    assert set(board) == {
        "type",
        "roomname",
        "gamestate",
        "width",
        "height",
        "players",
        "spectators",
        "lines",
        "captures",
    }
    assert board["gamestate"] == "waiting for players" and (board["width"], board["height"]) == (3, 3)
    assert (
        board["players"] == {str(joined["playerid"]): "alice"} and board["lines"] == [] == board["captures"]
    )
    pb = (await join(b, name, "bob"))["playerid"]
    add = await a.expect_key("type", "ADD")
    assert add == {"type": "ADD", "playerid": pb, "username": "bob", "isplayer": True}
    await a.send({"type": "READY", "ready": True})
    ready = await b.expect_key("type", "READY")
    assert ready == {"type": "READY", "ready": True, "playerid": joined["playerid"]}
    await b.send({"type": "READY", "ready": True, "token": "not-bob's"})
    error = await b.expect_key("type", "ERROR")
    assert error["request"] == "READY"
    await b.send({"type": "READY", "ready": True})
    await a.expect(lambda m: m == {"type": "GAMESTATE", "state": "about to start"})
    await a.expect(lambda m: m == {"type": "GAMESTATE", "state": "started"})
    end = await play_out({joined["playerid"]: a, pb: b}, 3, 3)
    assert end["state"] in ("ended", "tied")
    if end["state"] == "ended":
        assert end["winnerid"] in (joined["playerid"], pb)
    await a.send({"type": "BOARD", "roomname": name})
    final = await a.expect_key("type", "BOARD")
    assert len(final["lines"]) == 12 and len(final["captures"]) == 4
    assert {c[2] for c in final["captures"]} <= {joined["playerid"], pb}
    await a.close()
    await b.close()


async def test_password_spectators_any_time_and_bad_moves(server: Any) -> None:
    name = room_name()
    a, b = await dots(server), await dots(server)
    created = await create(a, name, 4, 3, password="sesame")
    refused = await join(a, name, "alice")
    assert refused["ok"] is False and refused["message"]
    assert (await join(a, name, "alice", password="sesame"))["ok"] is True
    pb = (await join(b, name, "bob", password="sesame"))["playerid"]
    await start(a, b)
    turn = (await a.expect_key("type", "TURN"))["playerid"]
    mover, other = (b, a) if turn == pb else (a, b)
    bad_moves = [
        {"x": 3, "y": 0, "d": 0},  # off the board (x + 1 == width)
        {"x": 0, "y": 2, "d": 1},  # off the board (y + 1 == height)
        {"x": -1, "y": 0, "d": 0},
        {"x": 0, "y": 0, "d": 2},
        {"x": 0.5, "y": 0, "d": 0},
        {"x": "1", "y": 0, "d": 0},
        {"x": True, "y": 0, "d": 0},
        {"y": 0, "d": 0},
    ]
    for move in bad_moves:
        await mover.send({"type": "MOVE", **move})
        error = await mover.expect_key("type", "ERROR")
        assert error["ok"] is False and error["request"] == "MOVE", (move, error)
    await other.send({"type": "MOVE", "x": 0, "y": 0, "d": 0})
    assert (await other.expect_key("type", "ERROR"))["code"] == "not_your_turn"
    await mover.send({"type": "MOVE", "x": 0, "y": 0, "d": 0, "token": "wrong"})
    assert (await mover.expect_key("type", "ERROR"))["request"] == "MOVE"
    await mover.send({"type": "MOVE", "x": 0, "y": 0, "d": 0})
    assert (await a.expect_key("type", "MOVE"))["playerid"] == turn
    await other.send({"type": "MOVE", "x": 0, "y": 0, "d": 0})  # taken (and also not its turn yet)
    assert (await other.expect_key("type", "ERROR"))["request"] == "MOVE"
    assert not [m for m in await a.quiet(0.2) if m["type"] == "MOVE"]
    # A spectator joins mid-game and gets the board as it is; the seed asks no password of one.
    c = await dots(server)
    await c.send({"type": "SPECTATE", "roomname": name, "username": "carol"})
    spectated = await c.expect_key("type", "SPECTATE")
    assert spectated["ok"] is True and "token" not in spectated
    board = await c.expect_key("type", "BOARD")
    assert board["gamestate"] == "started" and board["lines"] == [[0, 0, 0]]
    assert board["spectators"] == {str(spectated["playerid"]): "carol"}
    assert await a.expect_key("type", "ADD") == {
        "type": "ADD",
        "playerid": spectated["playerid"],
        "username": "carol",
        "isplayer": False,
    }
    await c.send({"type": "MOVE", "x": 1, "y": 0, "d": 0})
    assert (await c.expect_key("type", "ERROR"))["code"] == "not_a_player"
    await c.send({"type": "CHAT", "msg": "Your move, Mr. Bond."})
    chat = await a.expect_key("type", "CHAT")
    assert chat == {"type": "CHAT", "msg": "Your move, Mr. Bond.", "fromid": spectated["playerid"]}
    # The rule is the room's (its owner keeps it), so a native spectator needs no password either;
    # a seat still takes it: joining as a player, never a spectator taking a seat.
    native = await Native.open(server.ws)
    await native.request("identify", name="Nat")
    snapshot = await native.request("spectate", code=created["code"], password="wrong")
    assert snapshot["type"] == "room"
    # The snapshot says so, so a client offers no seat that would only be refused (web/room.js).
    assert snapshot["has_password"] is True and snapshot["spectators_need_password"] is False
    assert (await native.request("take_seat"))["code"] == "wrong_password"
    for client in (a, b, c, native):
        await client.close()


async def test_ready_countdown_is_cancelled_by_unready(server: Any) -> None:
    a, b, _, pb, _ = await seated_pair(server, room_name())
    await a.send({"type": "READY", "ready": True})
    await b.send({"type": "READY", "ready": True})
    await b.send({"type": "READY", "ready": False})
    await a.expect(lambda m: m == {"type": "GAMESTATE", "state": "about to start"})
    assert await a.expect_key("type", "READY") == {"type": "READY", "ready": False, "playerid": pb}
    await a.expect(lambda m: m == {"type": "GAMESTATE", "state": "waiting for players"})
    assert not [m for m in await a.quiet(0.6) if m.get("state") == "started"]
    await a.close()
    await b.close()


async def test_admin_kick_reset_and_terminate(server: Any) -> None:
    name = room_name()
    a, b, pa, pb, token = await seated_pair(server, name)
    await a.send({"type": "ADMIN", "admintoken": "nope", "cmd": "reset"})
    assert (await a.expect_key("type", "ADMIN"))["ok"] is False
    await start(a, b)
    await a.expect_key("type", "TURN")
    turn_client = a if (await a.quiet(0)) is not None else b
    del turn_client
    # reset: back to waiting, board cleared
    admin = await dots(server)  # the token works from any connection
    await admin.send({"type": "ADMIN", "admintoken": token, "cmd": "reset"})
    assert (await admin.expect_key("type", "ADMIN")) == {"type": "ADMIN", "ok": True}
    await a.expect(lambda m: m == {"type": "GAMESTATE", "state": "waiting for players"})
    board = await a.expect_key("type", "BOARD")
    assert board["lines"] == [] and board["gamestate"] == "waiting for players"
    # kick: everyone hears REMOVE; the kicked player is out of the room
    await admin.send({"type": "ADMIN", "admintoken": token, "cmd": "kick", "playerid": pb})
    assert (await admin.expect_key("type", "ADMIN"))["ok"] is True
    assert (await a.expect_key("type", "REMOVE"))["playerid"] == pb
    assert (await b.expect_key("type", "REMOVE"))["playerid"] == pb
    await b.send({"type": "READY", "ready": True})
    assert (await b.expect_key("type", "ERROR"))["request"] == "READY"
    await admin.send({"type": "ADMIN", "admintoken": token, "cmd": "kick", "playerid": 999})
    assert (await admin.expect_key("type", "ADMIN"))["ok"] is False
    # terminate: the room is gone and its name is free again
    await admin.send({"type": "ADMIN", "admin_token": token, "cmd": "terminate"})
    assert (await admin.expect_key("type", "ADMIN")) == {"type": "ADMIN", "ok": True}
    assert (await a.expect_key("type", "REMOVE"))["playerid"] == pa
    assert (await join(b, name, "bob"))["ok"] is False
    assert (await create(b, name))["ok"] is True
    for client in (a, b, admin):
        await client.close()


async def test_a_room_everyone_left_closes_at_once(server: Any) -> None:
    """Once every Dots client has left, its name is free and no one can find the room by it, so the
    room closes then, not after ``empty_room_seconds`` (it used to stay open, empty, for ten minutes:
    under load, every finished game's room stayed in memory that long)."""
    name = room_name()
    a, b = await dots(server), await dots(server)
    code = (await create(a, name, 2, 2))["code"]
    pa = (await join(a, name, "alice"))["playerid"]
    pb = (await join(b, name, "bob"))["playerid"]
    await start(a, b)
    assert (await play_out({pa: a, pb: b}, 2, 2))["state"] in ("ended", "tied")
    native = await Native.open(server.ws)
    await native.request("identify", name="late")
    await a.close()
    await b.close()
    deadline = asyncio.get_running_loop().time() + 5
    # Closing is async: a join may still find the room open, or reach it while it closes
    # (``room_closed``); then the room is gone.
    while True:
        reply = await native.request("join", code=code)
        if reply["type"] != "room" and reply["code"] != "room_closed":
            break
        assert asyncio.get_running_loop().time() < deadline, "the room stayed open"
        if reply["type"] == "room":
            await native.request("leave")
        await asyncio.sleep(0.05)
    assert reply["code"] == "room_not_found"
    await native.close()


async def test_last_player_standing_wins_when_the_other_disconnects(server: Any) -> None:
    a, b, pa, pb, _ = await seated_pair(server, room_name())
    await start(a, b)
    await b.close()  # no resume in this protocol: a closed socket leaves at once
    assert (await a.expect_key("type", "REMOVE"))["playerid"] == pb
    assert await a.expect_key("type", "GAMESTATE") == {"type": "GAMESTATE", "state": "ended", "winnerid": pa}
    await a.close()


async def test_every_connection_hears_every_move_when_the_first_one_leaves(server: Any) -> None:
    """The room sends its game frames to the first /dots connection of the room on this server, which
    hands them to the others (dots_packets.DotsRoom.listeners); when it goes, the next takes over."""
    name = room_name()
    carol, alice, bob, dave = [await dots(server) for _ in range(4)]
    await create(carol, name)
    assert (await join(carol, name, "carol", kind="SPECTATE"))["ok"] is True  # the first: it leads
    pa = (await join(alice, name, "alice"))["playerid"]
    pb = (await join(bob, name, "bob"))["playerid"]
    assert (await join(dave, name, "dave", kind="SPECTATE"))["ok"] is True
    await start(alice, bob)
    for client in (carol, dave):
        await client.expect(lambda m: m == {"type": "GAMESTATE", "state": "started"})
    players, drawn, hearing = {pa: alice, pb: bob}, [], [carol, alice, bob, dave]
    turn = (await dave.expect_key("type", "TURN"))["playerid"]
    for x, y, d in all_lines(3, 3)[:3]:  # no line among the first three completes a box
        await players[turn].send({"type": "MOVE", "x": x, "y": y, "d": d})
        for client in hearing:
            move = await client.expect_key("type", "MOVE")
            assert move == {"type": "MOVE", "x": x, "y": y, "d": d, "playerid": turn}
        drawn.append([x, y, d])
        turn = (await dave.expect_key("type", "TURN"))["playerid"]
        if carol in hearing:
            hearing.remove(carol)
            await carol.close()  # the leader goes after the first move
            for client in hearing:
                assert (await client.expect_key("type", "REMOVE"))["message"] == "Left the room."
    await dave.send({"type": "BOARD"})
    board = await dave.expect_key("type", "BOARD")
    assert sorted(board["lines"]) == sorted(drawn) and board["gamestate"] == "started"
    for client in (alice, bob, dave):
        await client.close()


async def test_malformed_packets_get_answers(server: Any) -> None:
    a = await dots(server)
    for frame in ["null", "[]", "42", "not json", '"CREATE"', "{}", '{"type": 7}', '{"type": "DANCE"}']:
        await a.send(frame)
        assert (await a.expect_key("type", "ERROR"))["ok"] is False, frame
    assert (await create(a, ""))["ok"] is False
    await a.send({"type": "CREATE", "roomname": room_name(), "width": "big", "height": 3})
    assert (await a.expect_key("type", "CREATE"))["ok"] is False
    await a.send({"type": "CREATE", "roomname": room_name(), "width": 51, "height": 3})
    assert (await a.expect_key("type", "CREATE"))["ok"] is False
    await a.send({"type": "JOIN", "roomname": room_name()})  # no username
    assert (await a.expect_key("type", "JOIN"))["ok"] is False
    await a.send({"type": "JOIN", "username": "x"})  # no roomname
    assert (await a.expect_key("type", "JOIN"))["ok"] is False
    assert (await join(a, "no-such-room", "x"))["message"] == "Room does not exist."
    assert (await join(a, room_name(), "a name far longer than sixteen"))["ok"] is False
    for packet in (
        {"type": "MOVE", "x": 0, "y": 0, "d": 0},
        {"type": "READY", "ready": True},
        {"type": "CHAT", "msg": "hi"},
    ):
        await a.send(packet)
        assert (await a.expect_key("type", "ERROR"))["request"] == packet["type"]
    await a.send({"type": "BOARD", "roomname": "elsewhere"})
    assert (await a.expect_key("type", "BOARD"))["ok"] is False
    name = room_name()
    assert (await create(a, name))["ok"] is True
    assert (await create(a, name))["ok"] is False  # the name is taken
    joined = await join(a, name, "alice")
    assert joined["ok"] is True
    assert await join(a, name, "alice") == joined  # the same room again: idempotent, same token
    assert (await join(a, name, "alice", kind="SPECTATE"))["ok"] is False  # already a player there
    other = room_name()
    assert (await create(a, other))["ok"] is True
    assert (await join(a, other, "alice"))["ok"] is False  # already in a room
    watcher = await dots(server)
    watched = await join(watcher, name, "wes", kind="SPECTATE")
    assert watched["ok"] is True and await join(watcher, name, "wes", kind="SPECTATE") == watched
    board = watcher.messages[-1]
    assert board["type"] == "BOARD" and board["players"] == {str(joined["playerid"]): "alice"}
    assert board["spectators"] == {str(watched["playerid"]): "wes"}  # still one of each
    await a.close()
    await watcher.close()


async def test_a_dots_room_is_in_the_lobby_and_plays_against_a_native_client(server: Any) -> None:
    name = room_name()
    a = await dots(server)
    code = (await create(a, name, 3, 3))["code"]
    pa = (await join(a, name, "alice"))["playerid"]
    with urllib.request.urlopen(f"{server.http}/api/rooms?game=dots", timeout=5) as response:
        listed = {r["code"]: r for r in json.loads(response.read())["rooms"]}
    assert listed[code]["players"] == 1 and listed[code]["state"] == "waiting"
    native = await Native.open(server.ws)
    await native.request("identify", name="nat")
    joined = await native.request("join", code=code)
    assert joined["type"] == "room"
    add = await a.expect_key("type", "ADD")
    assert add["username"] == "nat" and add["isplayer"] is True
    await a.send({"type": "READY", "ready": True})
    await native.request("ready", ready=True)
    await a.expect(lambda m: m == {"type": "GAMESTATE", "state": "started"})
    message = await play_out({pa: a}, 3, 3, native)
    assert message["state"] in ("ended", "tied")
    over = await native.expect_key("type", "game_over")
    assert over["outcome"]["reason"] == "finished"
    await a.close()
    await native.close()


async def test_a_native_room_is_joined_by_code_from_dots(server: Any) -> None:
    native = await Native.open(server.ws)
    await native.request("identify", name="Nat")
    room = await native.request("create_room", game="dots", settings={"width": 2, "height": 2}, public=True)
    a = await dots(server)
    joined = await join(a, room["code"].lower(), "alice")
    assert joined["ok"] is True
    add = await native.expect(lambda m: m.get("type") == "member_joined")
    assert add["member"]["name"] == "alice"
    await native.request("ready", ready=True)
    await a.send({"type": "READY", "ready": True})
    await a.expect(lambda m: m == {"type": "GAMESTATE", "state": "started"})
    end = await play_out({joined["playerid"]: a}, 2, 2, native)
    assert end["state"] == "ended" and "winnerid" in end
    await a.close()
    await native.close()


async def test_a_flooding_client_is_refused_then_dropped(server_with: Any) -> None:
    proc = server_with({"PARLOUR_RATE_BURST": "5", "PARLOUR_RATE_PER_SECOND": "1"})
    flooder, bystander = await dots(proc), await dots(proc)
    name = room_name()
    await create(bystander, name)
    await join(flooder, name, "flood")
    for _ in range(120):
        await flooder.send({"type": "CHAT", "msg": "spam"})
        if flooder.closed:
            break
    refused = await flooder.expect(lambda m: m.get("code") == "rate_limited")
    assert refused["type"] == "ERROR" and refused["request"] == "CHAT"
    for _ in range(100):
        if flooder.closed:
            break
        await asyncio.sleep(0.02)
    assert flooder.closed  # dropped like a flooding native client; the server carries on
    assert (await join(bystander, name, "calm"))["ok"] is True


async def test_a_protocol_rate_raised_above_the_default_holds_for_every_frame(server_with: Any) -> None:
    """PARLOUR_PROTOCOL_RATES raises the adapter's own frame gate too, not only the native sessions'."""
    proc = server_with(
        {
            "PARLOUR_RATE_PER_SECOND": "1",
            "PARLOUR_RATE_BURST": "5",
            "PARLOUR_PROTOCOL_RATES": "dots=1000/1000",
        }
    )
    player = await dots(proc)
    name = room_name()
    await create(player, name)
    await join(player, name, "quick")
    for _ in range(40):  # answered by the adapter itself: only the frame gate counts them
        await player.send({"type": "BOARD", "roomname": name})
    for i in range(40):
        assert (await player.expect_key("type", "BOARD"))["roomname"] == name, i
    assert not player.closed


async def test_the_rate_limit_is_set_per_protocol(server_with: Any) -> None:
    proc = server_with({"PARLOUR_PROTOCOL_RATES": "dots=0.01/3"})
    player, bystander = await dots(proc), await dots(proc)
    name = room_name()
    await create(bystander, name)
    await join(player, name, "slow")  # identify + join: two of the three tokens
    await player.send({"type": "CHAT", "msg": "one"})
    await player.expect(lambda m: m.get("type") == "CHAT" and m["msg"] == "one")
    await player.send({"type": "CHAT", "msg": "two"})
    refused = await player.expect(lambda m: m.get("code") == "rate_limited")
    assert refused["type"] == "ERROR" and refused["request"] == "CHAT"
    native = await Native.open(f"ws://127.0.0.1:{proc.port}/api/ws")  # native keeps the default 20/s
    assert (await native.request("identify", name="n"))["type"] == "welcome"
    for i in range(5):
        assert (await native.request("ping"))["type"] == "pong", i
