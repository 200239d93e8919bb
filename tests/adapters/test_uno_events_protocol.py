"""The UNO design document's Socket.IO events, over real Socket.IO connections to ``parlour serve``."""

from __future__ import annotations

import asyncio
from typing import Any

from sioclient import SioClient
from wsclient import Native

Message = dict[str, Any]
CARD_FIELDS = {"id", "color", "type", "value"}
ROOM_FIELDS = {"id", "name", "host", "players", "spectators", "gameState", "settings", "chatHistory"}
GAME_FIELDS = {
    "deckCount",
    "discardPile",
    "hands",
    "currentPlayer",
    "turnDirection",
    "currentColor",
    "drawStack",
}


def check_card(card: Message) -> None:
    assert set(card) == CARD_FIELDS and card["id"].startswith("card-")
    assert card["color"] in ("red", "yellow", "green", "blue", "wild")
    assert card["type"] in ("number", "skip", "reverse", "draw2", "wild", "wild-draw4")
    assert (card["value"] is None) == (card["type"] != "number")


def playable(card: Message, top: Message, color: str) -> bool:
    if card["color"] == "wild":
        return True
    if card["color"] == color:
        return True
    return card["type"] == top["type"] and (card["type"] != "number" or card["value"] == top["value"])


class Player:
    """A scripted design-document client: tracks its hand and the table from events only."""

    def __init__(self, client: SioClient, me: str, careful: bool, uno_with_play: bool = False) -> None:
        """A ``careful`` player calls UNO right after going down to one card (or, ``uno_with_play``,
        with that play) and catches others."""
        self.client = client
        self.me = me
        self.careful = careful
        self.uno_with_play = uno_with_play
        self.hand: list[Message] = []
        self.top: Message | None = None
        self.color = ""
        self.wild4_pending = False
        self.drawn: Message | None = None
        self.seen: dict[str, int] = {}
        self.challenges = 0
        self.counted: list[str] = []
        """The hand as a document client counts it: set by game-started, plus cards-drawn, minus
        its own card-played; every hand-updated must agree (each card reaches the hand once)."""
        self.moved = False  # hands swapped or rotated: only hand-updated says what we hold now
        self.catches = 0
        """Catches sent and not yet answered by a refusal. The target's own UNO call can reach the room
        first (from another node, say): the room then refuses the catch, ``cannot_catch``, as the rules
        say. That refusal, and no other error, is a race this player may lose."""

    async def run(self, rounds: int | None = None) -> Message:
        """React to events until ``game-won`` and return its data; or, with ``rounds``, return the
        ``game-started`` that opens round ``rounds + 1``."""
        while True:
            event, data = await self.client.next_event(timeout=10)
            self.seen[event] = self.seen.get(event, 0) + 1
            if event == "game-won":
                return data
            if event == "error" and data.get("code") == "cannot_catch" and self.catches:
                self.catches -= 1
                continue
            assert event != "error", (self.me, data)
            if event == "game-started":
                room = data["room"]
                assert set(room) >= ROOM_FIELDS | GAME_FIELDS
                assert list(room["hands"]) == [self.me]  # hands only to their owner
                self.hand = list(room["hands"][self.me])
                assert room["handCounts"][self.me] == len(self.hand)
                self.counted, self.moved = [c["id"] for c in self.hand], False
                self.top, self.color = room["discardPile"][-1], room["currentColor"]
                if rounds is not None and self.seen[event] > rounds:
                    return data
            elif event == "hand-updated":
                self.hand = list(data["hand"])
                ids = [c["id"] for c in self.hand]
                assert self.moved or sorted(self.counted) == sorted(ids), (self.counted, ids)
                self.counted, self.moved = ids, False
            elif event == "cards-drawn":
                for card in data["cards"]:
                    check_card(card)
                self.drawn = data["cards"][-1] if data["cards"] else None
                self.counted += [c["id"] for c in data["cards"]]
            elif event in ("hands-swapped", "hands-rotated"):
                self.moved = True
            elif event == "card-played":
                check_card(data["card"])
                if data["user"]["id"] == self.me and data["card"]["id"] in self.counted:
                    self.counted.remove(data["card"]["id"])
                self.top, self.color = data["card"], data["currentColor"]
                self.wild4_pending = data["card"]["type"] == "wild-draw4"
                if (
                    data["cardCount"] == 1
                    and not data["uno"]
                    and self.careful
                    and data["user"]["id"] != self.me
                ):
                    self.catches += 1
                    await self.client.emit("catch-uno", {"targetUserId": data["user"]["id"]})
            elif event == "drawn-card-playable" and data["seatId"] == self.me:
                await self.play(self.drawn)  # type: ignore[arg-type]
            elif event == "turn-changed" and data["currentPlayer"] == self.me:
                await self.turn()
            elif event in ("wild-accepted", "wild-challenged", "turn-changed"):
                self.wild4_pending = False

    async def turn(self) -> None:
        if not self.careful:
            await asyncio.sleep(0.02)  # a human pause, so the other player's UNO call lands first
        if self.wild4_pending:
            self.wild4_pending = False
            self.challenges += 1
            await self.client.emit("challenge-wild" if self.challenges % 2 else "accept-wild", {})
            return
        assert self.top is not None
        options = [c for c in self.hand if playable(c, self.top, self.color)]
        if options:
            await self.play(options[0])
        else:
            self.drawn = None
            await self.client.emit("draw-card", {})

    async def play(self, card: Message) -> None:
        data: Message = {"cardId": card["id"]}
        if card["color"] == "wild":
            data["chosenColor"] = "blue"
        if self.uno_with_play and len(self.hand) == 2:
            data["uno"] = True
        await self.client.emit("play-card", data)
        if self.careful and not self.uno_with_play and len(self.hand) == 2:
            await self.client.emit("call-uno", {})  # right after the play, before the next player acts


async def uno_room(
    server: Any, settings: Message | None = None
) -> tuple[SioClient, SioClient, str, dict[str, str]]:
    """Ann creates a room (design-document events only), Ben joins; returns their user ids too."""
    a, b = await SioClient.open(server, "Ann"), await SioClient.open(server, "Ben")
    assert "rooms" in await a.expect("rooms-list")
    await a.emit("create-room", {"name": "Ann's table", "maxPlayers": 4, "settings": settings or {}})
    code = (await a.expect("room-created"))["roomId"]
    joined = await a.expect("room-joined")
    assert set(joined) == {"room", "role", "chatHistory"} and joined["role"] == "player"
    assert set(joined["room"]) >= ROOM_FIELDS and joined["room"]["name"] == "Ann's table"
    assert joined["room"]["players"] == [{"id": joined["room"]["host"], "name": "Ann"}, None, None, None]
    listed = await a.expect("rooms-list", lambda d: any(r["id"] == code for r in d["rooms"]))
    assert next(r for r in listed["rooms"] if r["id"] == code)["name"] == "Ann's table"
    await b.emit("join-room", {"roomId": code})
    joined_b = await b.expect("room-joined")
    assert joined_b["role"] == "player" and joined_b["room"]["id"] == code
    added = await a.expect("player-joined")
    assert added["user"]["name"] == "Ben" and [p and p["name"] for p in added["players"]][:2] == [
        "Ann",
        "Ben",
    ]
    return a, b, code, {"Ann": joined["room"]["host"], "Ben": added["user"]["id"]}


async def test_a_full_single_round_game_with_spectator_chat_and_rematch(server: Any) -> None:
    a, b, code, ids = await uno_room(server, {"targetScore": 0})
    watcher = await SioClient.open(server, "Wes")
    await watcher.emit("spectate-room", {"roomId": code})
    assert (await watcher.expect("room-joined"))["role"] == "spectator"
    spectators = (await a.expect("spectator-joined"))["spectators"]
    assert [s["name"] for s in spectators] == ["Wes"]
    await b.emit("start-game", {})
    assert "host" in (await b.expect("error"))["message"]
    await b.emit("chat-message", {"message": "gl hf"})
    chat = await a.expect("chat-message")
    assert chat["message"] == "gl hf" and chat["user"]["name"] == "Ben" and isinstance(chat["timestamp"], int)
    players = [Player(a, ids["Ann"], careful=False), Player(b, ids["Ben"], careful=True)]
    await a.emit("start-game", {})
    results = await asyncio.wait_for(asyncio.gather(*(p.run() for p in players)), 60)
    assert results[0] == results[1]
    won = results[0]
    assert set(won) >= {"winner", "score"} and won["winner"]["id"] in ids.values()
    spectated = [name for name, _ in watcher.events]
    assert "game-started" in spectated and "cards-drawn" not in spectated
    assert watcher.last("game-started")["room"]["hands"] == {}
    for player in players:
        assert player.seen.get("turn-changed") and player.seen.get("card-played")
        events = player.client.events
        for i, (name, data) in enumerate(events):  # a drawn card's face goes to the drawer only
            if name == "cards-drawn":
                assert events[i - 1][0] == "card-drawn" and events[i - 1][1]["userId"] == player.me
            if name in ("game-started", "room-joined", "room-updated"):
                assert set(data["room"].get("hands", {})) <= {player.me}
    await b.emit("rematch", {})
    assert (await a.expect("room-updated"))["room"]["gameState"] == "waiting"
    await b.emit("leave-room", {})
    assert (await a.expect("player-left"))["userId"] == ids["Ben"]
    for client in (a, b, watcher):
        await client.close()


async def test_malformed_events_get_error_events(server: Any) -> None:
    client = await SioClient.open(server, "A name far too long for Parlour")
    assert (await client.expect("error"))["code"] == "invalid_name"
    await client.expect("rooms-list")  # and it carries on as a guest
    codes = []
    for event, data in [
        ("play-card", {"cardId": "card-1"}),  # not in a room
        ("draw-card", None),
        ("leave-room", {}),
        ("join-room", {"roomId": "ZZZZZ"}),
        ("join-room", None),
        ("spectate-room", []),
        ("create-room", "uno please"),
        ("create-room", {"name": "x", "settings": {"stackingDraw": "yes"}}),
        ("create-room", {"name": "x", "maxPlayers": 99}),
        ("create-room", {"name": "x", "maxPlayers": "x"}),
        ("create-room", {"name": "x", "maxPlayers": 2**70}),
        ("chat-message", {"message": None}),
        ("chat-message", {"message": 5}),
    ]:
        await client.emit(event, data)
        error = await client.expect("error")
        # Said in the event's own words: no decoder's path into a native message ("at `$.capacity`").
        assert error["message"] and "$." not in error["message"], (event, data, error)
        codes.append(error["code"])
    assert codes[3] == "room_not_found"  # a refusal keeps the native code
    assert codes[-5:] == ["invalid_settings", "bad_request", "bad_request", "bad_request", "bad_request"]
    a, b, _, _ = await uno_room(server, {"targetScore": 0})
    await a.emit("start-game", {})
    await a.expect("game-started")
    for data in [
        None,
        {},
        {"cardId": "card-x"},
        {"cardId": 500},
        {"cardId": [1]},
        {"cardId": "card-1", "chosenColor": 7},
    ]:
        await a.emit("play-card", data)
        assert (await a.expect("error"))["message"], data
    await b.emit("challenge-wild", {})
    assert (await b.expect("error"))["message"]
    await b.emit("catch-uno", {"targetUserId": "nobody"})
    assert (await b.expect("error"))["message"]
    await b.emit("create-room", {"name": "another"})  # already in a room
    assert (await b.expect("error"))["message"]
    for c in (client, a, b):
        await c.close()


async def test_native_and_design_document_clients_share_rooms_both_ways(server: Any) -> None:
    native = await Native.open(server.ws)
    await native.request("identify", name="Nat")
    room = await native.request("create_room", game="uno", public=True, settings={"target_score": 0})
    guest = await SioClient.open(server, "Gus")
    listed = await guest.expect("rooms-list", lambda d: any(r["id"] == room["code"] for r in d["rooms"]))
    assert listed
    await guest.emit("join-room", {"roomId": room["code"]})
    joined = await guest.expect("room-joined")
    assert joined["room"]["host"] == room["you"]["member"] and joined["role"] == "player"
    await native.request("start")
    player = Player(guest, joined["room"]["players"][1]["id"], careful=True, uno_with_play=True)
    task = asyncio.create_task(player.run())
    over = None
    while over is None:
        message = await native.expect(lambda m: m.get("type") in ("game_started", "game", "game_over"), 15)
        if message["type"] == "game_over":
            over = message
        elif message["view"].get("turn") == message["view"].get("seat") and message["view"].get("legal"):
            legal = message["view"]["legal"]
            action = next((a for a in legal if a["type"] not in ("catch", "call_uno")), legal[0])
            assert (await native.request("action", action=action))["type"] == "ok"
    won = await asyncio.wait_for(task, 10)
    assert won["winner"]["id"] in {room["you"]["member"], player.me}
    await guest.close()
    await native.close()


async def test_the_last_opponent_leaving_mid_game_ends_it_cleanly(server: Any) -> None:
    a, b, _, ids = await uno_room(server)
    await a.emit("start-game", {})
    await b.expect("game-started")
    await b.emit("leave-room", {})
    assert (await a.expect("player-left"))["userId"] == ids["Ben"]
    won = await a.expect("game-won")
    assert won["winner"] == {"id": ids["Ann"], "name": "Ann"} and won["reason"] == "opponents_left"
    await a.emit("draw-card", {})
    assert (await a.expect("error"))["code"] == "invalid_state"
    await b.emit("draw-card", {})
    assert (await b.expect("error"))["code"] == "not_in_room"
    await a.close()
    await b.close()


async def test_a_client_reconnecting_with_its_token_gets_its_seat_and_hand_back(server: Any) -> None:
    a, b, code, ids = await uno_room(server, {"targetScore": 0})
    token = a.last("session")["token"]  # sent on connect, before anything else of the room
    assert b.last("session")["token"] != token
    await a.emit("start-game", {})
    hand = (await a.expect("game-started"))["room"]["hands"][ids["Ann"]]
    await b.expect("game-started")
    await a.close()
    gone = await b.expect("player-updated", lambda d: d["user"]["id"] == ids["Ann"])
    assert gone["players"][0]["id"] == ids["Ann"]  # the seat is kept through the grace period

    back = await SioClient.open(server, "Ann", token=token)
    assert (await back.expect("session"))["token"] == token  # first, then the room
    joined = await back.expect("room-joined")
    assert (
        joined["role"] == "player"
        and joined["room"]["id"] == code
        and joined["room"]["gameState"] == "playing"
    )
    assert joined["hand"] == hand and joined["room"]["hands"] == {ids["Ann"]: hand}
    await b.expect("player-updated", lambda d: d["user"]["id"] == ids["Ann"])
    # Play goes on, from the reconnected client as from anyone.
    on_turn = back if joined["room"]["currentPlayer"] == ids["Ann"] else b
    await on_turn.emit("draw-card", {})
    drawer = ids["Ann"] if on_turn is back else ids["Ben"]
    for client in (back, b):
        assert (await client.expect("card-drawn"))["userId"] == drawer
    assert all(token not in repr(data) for _, data in b.events), "a token only ever reaches its owner"

    again = await SioClient.open(server, "Ann", token=token)  # a second tab takes the session over
    rejoined = await again.expect("room-joined")
    assert list(rejoined["room"]["hands"]) == [ids["Ann"]] and rejoined["hand"]
    for _ in range(100):
        if not back.sio.connected:
            break
        await asyncio.sleep(0.05)
    assert not back.sio.connected

    stranger = await SioClient.open(server, "Stan", token="not-a-token")
    assert (await stranger.expect("error"))["code"] == "invalid_token"
    assert (await stranger.expect("session"))["name"] == "Stan"  # and it starts afresh
    assert not [name for name, _ in stranger.events if name == "room-joined"]
    for client in (again, b, stranger):
        await client.close()


async def test_clients_that_start_on_polling_upgrade_and_play_a_whole_game(server: Any) -> None:
    """Browsers connect over long-polling first; the websocket upgrade (probe, noop, ``5``) must
    carry every event queued meanwhile and the rest of the game."""
    a = await SioClient.open(server, "Ann", polling=True)
    b = await SioClient.open(server, "Ben", polling=True)
    assert "rooms" in await a.expect("rooms-list")
    await a.emit("create-room", {"name": "polling", "maxPlayers": 2, "settings": {"targetScore": 0}})
    code = (await a.expect("room-created"))["roomId"]
    ann = (await a.expect("room-joined"))["room"]["host"]
    await b.emit("join-room", {"roomId": code})
    ben = (await a.expect("player-joined"))["user"]["id"]
    for _ in range(200):  # python-socketio upgrades in the background once connected
        if a.sio.transport() == b.sio.transport() == "websocket":
            break
        await asyncio.sleep(0.05)
    assert a.sio.transport() == b.sio.transport() == "websocket"
    players = [Player(a, ann, careful=True), Player(b, ben, careful=False)]
    await a.emit("start-game", {})
    results = await asyncio.wait_for(asyncio.gather(*(p.run() for p in players)), 60)
    assert results[0] == results[1] and results[0]["reason"] == "finished"
    for client in (a, b):
        await client.close()


async def test_a_room_created_without_a_target_plays_one_round(server: Any) -> None:
    """The document's state machine: playing → [a hand empties] → finished."""
    a, b, _, ids = await uno_room(server)  # settings without targetScore
    assert a.last("room-joined")["room"]["settings"]["targetScore"] == 0
    players = [Player(a, ids["Ann"], careful=False), Player(b, ids["Ben"], careful=True)]
    await a.emit("start-game", {})
    results = await asyncio.wait_for(asyncio.gather(*(p.run() for p in players)), 60)
    assert results[0] == results[1] and results[0]["reason"] == "finished"
    for player in players:
        assert player.seen["round-over"] == 1 and player.seen["game-started"] == 1
    for client in (a, b):
        await client.close()


async def test_a_match_announces_every_round_with_game_started(server: Any) -> None:
    """``targetScore`` asks for a match; each next round opens with ``game-started {room}``."""
    a, b, _, ids = await uno_room(server, {"targetScore": 10_000})
    assert a.last("room-joined")["room"]["settings"]["targetScore"] == 10_000
    players = [Player(a, ids["Ann"], careful=False), Player(b, ids["Ben"], careful=True)]
    await a.emit("start-game", {})
    second = await asyncio.wait_for(asyncio.gather(*(p.run(rounds=1) for p in players)), 60)
    for player, started in zip(players, second, strict=True):
        events = [name for name, _ in player.client.events]
        opened = len(events) - 1 - events[::-1].index("game-started")
        assert "round-over" in events[:opened] and "game-won" not in events
        room = started["room"]
        assert room["gameState"] == "playing" and len(room["discardPile"]) == 1
        assert room["currentPlayer"] in ids.values() and room["currentColor"] in (
            "red",
            "yellow",
            "green",
            "blue",
        )
        hand = room["hands"][player.me]
        assert len(hand) in (7, 9) and sum(room["handCounts"].values()) in (14, 16)
        assert hand == player.hand  # the new round's hand, not the last round's leftovers
    for client in (a, b):
        await client.close()


async def test_a_first_draw_two_reaches_the_hand_once(server: Any) -> None:
    """Deal until the first discard is a Draw Two: the first player's two cards are in the
    ``game-started`` room and are not sent again, so a client adding ``cards-drawn`` holds 9."""
    host = await Native.open(server.ws)
    await host.request("identify", name="Host")
    room = await host.request("create_room", game="uno", public=True, settings={"target_score": 0})
    clients = [await SioClient.open(server, name) for name in ("Ann", "Ben")]
    for client in clients:
        await client.emit("join-room", {"roomId": room["code"]})
        await client.expect("room-joined")
    assert (await host.request("become_spectator"))["type"] != "error"
    for _ in range(400):  # P(no Draw Two first in 400 deals) < 1e-9
        assert (await host.request("start"))["type"] != "error"
        starts = [await c.expect("game-started") for c in clients]
        if starts[0]["room"]["discardPile"][0]["type"] == "draw2":
            break
        assert (await host.request("reset"))["type"] != "error"
        for client in clients:
            await client.expect("room-updated", lambda d: d["room"]["gameState"] == "waiting")
    else:
        raise AssertionError("no first Draw Two in 400 deals")
    for client, started in zip(clients, starts, strict=True):
        me = started["room"]["hands"] and next(iter(started["room"]["hands"]))
        counted = [c["id"] for c in started["room"]["hands"][me]]
        while True:  # the opening's events, up to the turn
            event, data = await client.next_event()
            if event == "cards-drawn":
                counted += [c["id"] for c in data["cards"]]
            elif event == "hand-updated":
                assert sorted(c["id"] for c in data["hand"]) == sorted(counted)
            elif event == "turn-changed":
                break
        assert len(counted) == started["room"]["handCounts"][me] and len(set(counted)) == len(counted)
        assert len(counted) in (7, 9)
    assert sorted(len(s["room"]["hands"][next(iter(s["room"]["hands"]))]) for s in starts) == [7, 9]
    for client in clients:
        await client.close()
    await host.close()


async def test_joining_the_room_you_are_in_answers_room_joined(server: Any) -> None:
    """create-room seats the creator; a join-room (or spectate-room) for that room is idempotent."""
    a = await SioClient.open(server, "Ann")
    await a.emit("create-room", {"name": "Ann's", "maxPlayers": 2})
    code = (await a.expect("room-created"))["roomId"]
    first = await a.expect("room-joined")
    for event, room_id in (("join-room", code), ("join-room", code.lower()), ("spectate-room", code)):
        await a.emit(event, {"roomId": room_id})
        again = await a.expect("room-joined")
        assert again["role"] == "player" and again["room"]["id"] == code
        assert again["room"]["players"] == first["room"]["players"]  # still one seat, the same
    other = await SioClient.open(server, "Ben")
    await other.emit("create-room", {"name": "Ben's"})
    elsewhere = (await other.expect("room-created"))["roomId"]
    await a.emit("join-room", {"roomId": elsewhere})
    assert "leave" in (await a.expect("error"))["message"]
    for client in (a, other):
        await client.close()
