"""The Cheat write-up's action protocol at /ws, over real websockets against ``parlour serve``."""

from __future__ import annotations

import json
import urllib.request
from typing import Any

from wsclient import Native, WsClient

Message = dict[str, Any]
PLAYER_FIELDS = {"name", "isHost", "handSize", "myTurn", "isMe"}
START_TURN_FIELDS = {"action", "previous_rank", "current_rank", "can_accuse_cheater", "your_turn"}


async def cheat(server: Any) -> WsClient:
    return await WsClient.open(f"ws://127.0.0.1:{server.port}/ws")


async def create_game(server: Any, name: str) -> tuple[WsClient, str]:
    host = await cheat(server)
    await host.send({"action": "create_game", "name": name})
    code = (await host.expect_key("action", "join_game"))["room_code"]
    players = (await host.expect_key("action", "player_list_update"))["players"]
    assert players == [{"name": name, "isHost": True, "handSize": 0, "myTurn": False, "isMe": True}]
    assert await host.expect_key("action", "become_host") == {"action": "become_host"}
    return host, code


async def join_game(server: Any, code: str, name: str) -> WsClient:
    client = await cheat(server)
    await client.send({"action": "join_game", "name": name, "room_code": code})
    assert await client.expect_key("action", "join_game") == {"action": "join_game", "room_code": code}
    players = (await client.expect_key("action", "player_list_update"))["players"]
    assert players[-1] == {"name": name, "isHost": False, "handSize": 0, "myTurn": False, "isMe": True}
    return client


async def table(server: Any, names: list[str]) -> tuple[list[WsClient], str]:
    host, code = await create_game(server, names[0])
    return [host] + [await join_game(server, code, n) for n in names[1:]], code


def last(client: WsClient, action: str) -> Message:
    return next(m for m in reversed(client.messages) if m.get("action") == action)


async def next_turn(players: list[WsClient]) -> tuple[int, Message]:
    """Every player's next ``start_turn``; returns whose turn it is and that message."""
    mover, seen = -1, None
    for i, player in enumerate(players):
        message = await player.expect_key("action", "start_turn")
        assert set(message) == START_TURN_FIELDS
        if message["your_turn"]:
            mover, seen = i, message
    assert seen is not None
    return mover, seen


def hand(player: WsClient) -> list[Message]:
    return last(player, "update_cards")["cards"]


async def test_stage_one_create_join_errors_and_host_hand_over(server: Any) -> None:
    host, code = await create_game(server, "Player 1")
    stranger = await cheat(server)
    for request, text in [
        (
            {"name": "Some Player", "room_code": "invalid room code!!!!"},
            "The game with the provided code does not exist.",
        ),
        ({"name": "", "room_code": code}, "The provided username is too short."),
        ({"name": "x" * 17, "room_code": code}, "The provided username is too long."),
        ({"room_code": code}, "The provided username is too short."),
        ({"name": "Someone"}, "The game with the provided code does not exist."),
    ]:
        await stranger.send({"action": "join_game", **request})
        assert await stranger.expect_key("action", "join_game_error") == {
            "action": "join_game_error",
            "message": text,
        }
    second = await join_game(server, code, "Player 2")
    update = await host.expect_key("action", "player_list_update")
    assert [p["name"] for p in update["players"]] == ["Player 1", "Player 2"]
    assert all(set(p) == PLAYER_FIELDS for p in update["players"])
    assert [p["isMe"] for p in update["players"]] == [True, False]
    await second.send({"action": "start_game"})
    assert (await second.expect_key("action", "waiting_screen_error"))[
        "message"
    ] == "Only the host can start the game."
    await host.send({"action": "start_game"})
    assert await host.expect_key("action", "waiting_screen_error") == {
        "action": "waiting_screen_error",
        "message": "Three or more people required to start the game.",
    }
    await host.send({"action": "leave_game"})
    assert await host.expect_key("action", "leave_game") == {"action": "leave_game"}
    assert await second.expect_key("action", "become_host") == {"action": "become_host"}
    players = last(second, "player_list_update")["players"]
    assert players == [{"name": "Player 2", "isHost": True, "handSize": 0, "myTurn": False, "isMe": True}]
    await host.send({"action": "create_game", "name": "Player 1"})  # a fresh game after leaving
    assert (await host.expect_key("action", "join_game"))["room_code"] != code
    for client in (host, second, stranger):
        await client.close()


async def test_joining_the_game_you_are_in_answers_as_a_join(server: Any) -> None:
    """create_game seats its sender; a join_game with that code is idempotent (also mid-game)."""
    host, code = await create_game(server, "Ann")
    for room_code in (code, f" {code.lower()} "):
        await host.send({"action": "join_game", "name": "Ann", "room_code": room_code})
        assert await host.expect_key("action", "join_game") == {"action": "join_game", "room_code": code}
        players = (await host.expect_key("action", "player_list_update"))["players"]
        assert players == [{"name": "Ann", "isHost": True, "handSize": 0, "myTurn": False, "isMe": True}]
    others = [await join_game(server, code, name) for name in ("Ben", "Cat")]
    await host.send({"action": "start_game"})
    dealt = (await host.expect_key("action", "update_cards"))["cards"]
    await host.expect_key("action", "start_turn")
    await host.send({"action": "join_game", "name": "Ann", "room_code": code})
    assert (await host.expect_key("action", "update_cards"))["cards"] == dealt
    assert set(await host.expect_key("action", "start_turn")) == START_TURN_FIELDS
    players = (await host.expect_key("action", "player_list_update"))["players"]
    assert [p["name"] for p in players] == ["Ann", "Ben", "Cat"]
    assert not [m for m in host.messages[-3:] if m.get("action") in ("join_game_error", "join_game")]
    for client in (host, *others):
        await client.close()


async def test_a_full_game_with_calls_both_ways_then_play_again(server: Any) -> None:
    players, code = await table(server, ["Ann", "Ben", "Cat"])
    await players[1].send({"action": "join_game", "name": "Dan", "room_code": "nope!"})
    assert (await players[1].expect_key("action", "join_game_error"))[
        "message"
    ] == "You are already in a game."
    await players[0].send({"action": "start_game"})
    for player in players:
        await player.expect_key("action", "start_game")
        cards = (await player.expect_key("action", "update_cards"))["cards"]
        assert cards and all(set(c) == {"rank", "suit"} for c in cards)
    dealt = [(c["rank"], c["suit"]) for p in players for c in hand(p)]
    assert len(dealt) == 52 == len(set(dealt))
    mover, turn = await next_turn(players)
    assert turn["previous_rank"] is None and turn["current_rank"] == 0 and turn["can_accuse_cheater"] is False
    calls = {"lie": False, "truth": False}
    over = None
    while over is None:
        current, mine = turn["current_rank"], hand(players[mover])
        truthful = [c for c in mine if c["rank"] == current][:4]
        lie = [c for c in mine if c["rank"] != current][:1]
        call = None
        if not calls["lie"] and lie:
            placed, call = lie, "lie"
        elif not calls["truth"] and truthful:
            placed, call = truthful[:1], "truth"
        else:
            placed = truthful or mine[:4]
        await players[mover].send({"action": "place_cards", "cards": placed})
        counts = await players[0].expect_key("action", "place_cards")
        assert set(counts) == {"action", "cards_on_table", "cards_just_placed"}
        assert counts["cards_just_placed"] == len(placed)
        if call is not None and len(mine) > len(placed):
            caller = players[(mover + 1) % 3]
            _, turn_msg = await next_turn(players)
            assert turn_msg["previous_rank"] == current
            assert last(caller, "start_turn")["can_accuse_cheater"] is True
            assert last(players[mover], "start_turn")["can_accuse_cheater"] is False
            await caller.send({"action": "accuse_cheater"})
            text = (await players[2].expect_key("action", "info_text_update"))["message"]
            names = ["Ann", "Ben", "Cat"]
            if call == "lie":
                assert text == f"{names[mover]} was a cheater!"
            else:
                assert text == f"{names[(mover + 1) % 3]} wrongly accused {names[mover]} of being a cheater."
            calls[call] = True
            assert (await players[2].expect_key("action", "place_cards"))["cards_just_placed"] == 0
            mover, turn = await next_turn(players)
            assert turn["previous_rank"] is None and turn["can_accuse_cheater"] is False
            continue
        for player in players:
            message = await player.expect(lambda m: m.get("action") in ("start_turn", "end_game"))
            if message["action"] == "end_game":
                over = message
            elif message["your_turn"]:
                mover, turn = players.index(player), message
    assert calls == {"lie": True, "truth": True}
    assert over["game_over_text"].endswith(" won the game.")
    assert [last(p, "end_game")["can_play_again"] for p in players] == [True, False, False]
    await players[1].send({"action": "play_again"})  # any player may call the rematch
    await players[0].send({"action": "play_again"})
    for player in players:
        assert await player.expect_key("action", "join_game") == {"action": "join_game", "room_code": code}
        listed = await player.expect_key("action", "player_list_update")
        assert [p["handSize"] for p in listed["players"]] == [0, 0, 0]
    assert last(players[0], "become_host") == {"action": "become_host"}
    await players[0].send({"action": "start_game"})
    for player in players:
        await player.expect_key("action", "start_game")
    for player in players:
        await player.close()


async def test_leaving_mid_game_then_too_few_players(server: Any) -> None:
    players, _ = await table(server, ["Ann", "Ben", "Cat", "Dan"])
    await players[0].send({"action": "start_game"})
    mover, _ = await next_turn(players)
    leaver = (mover + 1) % 4
    left_name = ["Ann", "Ben", "Cat", "Dan"][leaver]
    await players[mover].send({"action": "place_cards", "cards": hand(players[mover])[:2]})
    _, _ = await next_turn(players)
    await players[leaver].close()  # a closed socket is a leave: the Cheat leave rule applies at once
    rest = [p for i, p in enumerate(players) if i != leaver]
    for player in rest:
        info = await player.expect_key("action", "info_text_update")
        assert info == {"action": "info_text_update", "message": f"{left_name} left the game."}
        names = [p["name"] for p in (await player.expect_key("action", "player_list_update"))["players"]]
        assert left_name not in names
    counts = last(rest[0], "place_cards")
    assert counts["cards_just_placed"] == 2 and counts["cards_on_table"] == 13
    await rest[0].send({"action": "leave_game"})
    assert await rest[0].expect_key("action", "leave_game") == {"action": "leave_game"}
    for player in rest[1:]:
        end = await player.expect_key("action", "end_game")
        assert end["game_over_text"] == "Not enough players to continue."
    for player in rest[1:]:
        await player.close()


async def test_malformed_actions_get_answers(server: Any) -> None:
    client = await cheat(server)
    for frame in ["null", "[]", "42", "not json", "{}", '{"action": 5}', '{"action": "dance"}']:
        await client.send(frame)
        assert (await client.expect_key("action", "join_game_error"))["message"], frame
    for action in ("start_game", "place_cards", "accuse_cheater", "play_again"):
        await client.send({"action": action, "cards": []})
        assert await client.expect(lambda m: m.get("action") in ("join_game_error", "info_text_update"))
    await client.send({"action": "leave_game"})
    assert await client.expect_key("action", "leave_game") == {"action": "leave_game"}
    players, _ = await table(server, ["Ann", "Ben", "Cat"])
    await players[0].send({"action": "start_game"})
    mover, _ = await next_turn(players)
    idle = players[(mover + 1) % 3]
    bad = [
        (players[mover], {"action": "place_cards", "cards": []}),
        (players[mover], {"action": "place_cards", "cards": "all"}),
        (players[mover], {"action": "place_cards", "cards": [None, 3]}),
        (players[mover], {"action": "place_cards", "cards": hand(idle)[:1]}),
        (players[mover], {"action": "place_cards", "cards": hand(players[mover])[:5]}),
        (idle, {"action": "place_cards", "cards": hand(idle)[:1]}),
        (idle, {"action": "accuse_cheater"}),
        (players[mover], {"action": "play_again"}),
        (players[mover], "null"),
    ]
    for who, frame in bad:
        await who.send(frame)
        info = await who.expect_key("action", "info_text_update")
        assert info["message"], frame
    assert not [m for p in players for m in await p.quiet(0.1) if m.get("action") == "place_cards"]
    for player in [client, *players]:
        await player.close()


async def test_a_native_player_and_cheat_clients_play_to_the_end(server: Any) -> None:
    players, code = await table(server, ["Ann", "Ben"])
    native = await Native.open(server.ws)
    await native.request("identify", name="Nat")
    room = await native.request("join", code=code)
    assert room["type"] == "room" and room["game"] == "cheat"
    update = await players[0].expect(
        lambda m: m.get("action") == "player_list_update" and len(m["players"]) == 3
    )
    assert update["players"][2]["name"] == "Nat"
    await players[0].send({"action": "start_game"})
    over = None
    while over is None:
        for player in players:
            message = await player.expect(lambda m: m.get("action") in ("start_turn", "end_game"))
            if message["action"] == "end_game":
                over = message
            elif message["your_turn"]:
                mine = hand(player)
                truthful = [c for c in mine if c["rank"] == message["current_rank"]][:4]
                await player.send({"action": "place_cards", "cards": truthful or mine[:4]})
        if over is None:
            game = await native.expect(lambda m: m.get("type") in ("game", "game_started", "game_over"))
            view = game.get("view") or {}
            if game["type"] != "game_over" and view.get("turn") == view.get("seat") and view.get("ranks"):
                cards = [c for c in view["hand"] if c["rank"] == view["ranks"][0]][:4] or view["hand"][:4]
                reply = await native.request(
                    "action", action={"type": "play", "cards": [c["id"] for c in cards]}
                )
                assert reply["type"] == "ok", reply
    assert over["game_over_text"].endswith(" won the game.")
    for player in players:
        await player.close()
    await native.close()


async def test_a_native_room_is_joined_by_code_and_listed(server: Any) -> None:
    native = await Native.open(server.ws)
    await native.request("identify", name="Nat")
    room = await native.request("create_room", game="cheat", public=True)
    client = await join_game(server, room["code"], "Ann")
    host, code = await create_game(server, "Host")
    with urllib.request.urlopen(f"{server.http}/api/rooms?game=cheat", timeout=5) as response:
        codes = {r["code"] for r in json.loads(response.read())["rooms"]}
    assert {room["code"], code} <= codes
    for c in (client, host, native):
        await c.close()
