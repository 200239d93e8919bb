"""Translation defaults and extra events, checked in-process against a scripted native session."""

from __future__ import annotations

import json
from typing import Any

from parlour.games.cheat import card_dict
from parlour.games.uno import CARDS
from parlour.net.adapters.cheat_actions import CheatClient
from parlour.net.adapters.link import Bridge, Message, NativeLink, Sink
from parlour.net.adapters.plain_socket import Peer
from parlour.net.adapters.uno_document import DocClient
from parlour.net.adapters.uno_numbers import card_to_number
from parlour.net.adapters.uno_tutorial import Directory, TutorialClient


class ScriptedSession:
    """Stands in for the server: records native requests and answers each with ``ok`` (a fast-lane
    action, like the room's, gets no ``ok``)."""

    def __init__(self) -> None:
        self.sent: list[Message] = []
        self.sink: Sink | None = None

    async def connect(self, sink: Sink) -> NativeLink:
        self.sink = sink
        return self  # type: ignore[return-value]

    async def send(self, message: Message) -> None:
        self.sent.append(message)
        assert self.sink is not None
        self.sink({"type": "ok", "id": message["id"]})

    def act_now(self, action: Message, request_id: str) -> bool:
        self.sent.append({"type": "action", "id": request_id, "action": action})
        return True

    async def close(self, *, leave: bool) -> None:
        pass

    def actions(self) -> list[Message]:
        return [m["action"] for m in self.sent if m["type"] == "action"]


def peer(events: list[tuple[str, Any]]) -> Peer:
    def emit(event: str, data: Any) -> None:
        events.append((event, data))

    def hangup() -> None:
        events.append(("hangup", None))

    return Peer("sid-1", emit, hangup)


def uno_view(hand: list[int], **extra: Any) -> Message:
    """An engine-shaped UNO view for seat 0 of two (only the fields the adapters read)."""
    view = {
        "seat": 0,
        "turn": 0,
        "hand": [dict(CARDS[c]) for c in hand],
        "counts": [len(hand), 5],
        "active": [True, True],
        "top": dict(CARDS[0]),
        "color": "red",
        "settings": {"seven_swap": False},
        "legal": [],
        "pending": {"draw_stack": 0, "challenge": None, "drawn_card_playable": False},
    }
    view.update(extra)
    return view


def tutorial(view: Message) -> tuple[TutorialClient, ScriptedSession, list[tuple[str, Any]]]:
    session, events = ScriptedSession(), []
    client = TutorialClient(session.connect, peer(events), Directory())
    client.code, client.me, client.view = "ROOM1", "m1", view
    client.seats = {0: "m1", 1: "m2"}
    return client, session, events


async def test_tutorial_wild_names_the_most_held_colour_and_calls_uno_on_the_second_last_card() -> None:
    blue_5, blue_7, wild = 25 * 3 + 9, 25 * 3 + 13, 100
    colours = ("red", "yellow", "green", "blue")
    # The engine lists a Wild once per colour, with the UNO call when it leaves one card.
    listed = [{"type": "play", "card": wild, "color": c, "uno": True} for c in colours]
    client, session, _ = tutorial(uno_view([blue_5, wild], legal=listed))
    await client.play_card([card_to_number(wild), "ROOM1"])
    assert session.actions() == [{"type": "play", "card": wild, "color": "blue", "uno": True}]
    listed = [{"type": "play", "card": wild, "color": c} for c in colours]
    client.view = uno_view([blue_5, blue_7, 26, wild], legal=listed)  # blue ×2 beats yellow ×1
    await client.play_card([card_to_number(wild), "ROOM1"])
    assert session.actions()[-1] == {"type": "play", "card": wild, "color": "blue"}


async def test_tutorial_seven_swap_targets_the_fewest_cards() -> None:
    red_7 = 13
    listed = [{"type": "play", "card": red_7, "target": t} for t in (1, 2)]
    view = uno_view([red_7, 1, 2], counts=[3, 6, 2], active=[True, True, True], legal=listed)
    client, session, _ = tutorial(view)
    client.seats = {0: "m1", 1: "m2", 2: "m3"}
    await client.play_card([card_to_number(red_7), "ROOM1"])
    assert session.actions() == [{"type": "play", "card": red_7, "target": 2}]


async def test_tutorial_draw_card_accepts_a_wild_draw_four_and_passes_after_a_playable_draw() -> None:
    challenge = {"draw_stack": 4, "challenge": {"offender": 1, "challenger": 0}, "drawn_card_playable": False}
    client, session, _ = tutorial(uno_view([1, 2], pending=challenge))
    await client.draw_card([1, "ROOM1"])
    client.view = uno_view([1, 2], pending={"draw_stack": 0, "challenge": None, "drawn_card_playable": True})
    await client.draw_card([1, "ROOM1"])
    client.view = uno_view([1, 2])
    await client.draw_card([1, "ROOM1"])
    assert session.actions() == [{"type": "accept"}, {"type": "pass"}, {"type": "draw"}]


async def test_tutorial_hangs_up_when_the_server_drops_the_session() -> None:
    client, session, events = tutorial(uno_view([1]))
    await client.draw_card([1, "ROOM1"])  # opens the session
    assert session.sink is not None
    session.sink({"type": "connection_closed", "code": 1008, "reason": "rate limit exceeded"})
    await client.draw_card([1, "ROOM1"])
    assert ("hangup", None) in events


async def test_design_document_extras_become_engine_actions() -> None:
    session, events = ScriptedSession(), []
    client = DocClient(session.connect, peer(events), "Ann", {})
    client.room, client.me, client.seats = {"code": "ROOM1"}, "m1", {0: "m1", 1: "m2"}
    await client.on_event("play-card", {"cardId": "card-13", "targetUserId": "m2", "uno": True})
    await client.on_event("play-card", {"cardId": 100, "chosenColor": "green"})
    await client.on_event("pass-turn", {})
    await client.on_event("accept-wild", None)
    await client.on_event("challenge-wild", {})
    await client.on_event("catch-uno", {"targetUserId": "m2"})
    await client.on_event("call-uno", {})
    await client.on_event("draw-card", {})
    assert session.actions() == [
        {"type": "play", "card": 13, "target": 1, "uno": True},
        {"type": "play", "card": 100, "color": "green"},
        {"type": "pass"},
        {"type": "accept"},
        {"type": "challenge"},
        {"type": "catch", "target": 1},
        {"type": "call_uno"},
        {"type": "draw"},
    ]
    await client.on_event("play-card", ["card-1"])
    assert events[-1] == ("error", {"message": "event data must be an object", "code": "bad_request"})


async def test_cheat_cards_match_distinct_ids_in_the_senders_hand() -> None:
    session, sent = ScriptedSession(), []

    def hangup() -> None:
        pass

    client = CheatClient(session.connect, sent.append, hangup)
    client.code, client.bridge = "ROOM1", Bridge(session.connect, client._on_native, immediate=True)
    two_aces_of_spades = [card_dict(0 * 4 + 2), card_dict(52 + 0 * 4 + 2), card_dict(5 * 4 + 1)]
    client.view = {"hand": two_aces_of_spades}
    ace_spades = {"rank": 0, "suit": 2}
    await client.on_frame(json.dumps({"action": "place_cards", "cards": [ace_spades, ace_spades]}))
    await client.on_frame(json.dumps({"action": "place_cards", "cards": [ace_spades], "rank": 5}))
    assert session.actions() == [
        {"type": "play", "cards": [2, 54]},
        {"type": "play", "cards": [2], "rank": 5},
    ]
    await client.on_frame(json.dumps({"action": "place_cards", "cards": [ace_spades] * 3}))
    assert sent[-1] == {"action": "info_text_update", "message": "You do not hold those cards."}
    assert len(session.actions()) == 2
