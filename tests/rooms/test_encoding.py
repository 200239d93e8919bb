"""JSON sinks get each game message's view pre-encoded (public part once per action, joined to the
seat's part), and a sink that takes whole encoded messages (``send_json``, as a websocket does) the
whole message encoded by the room; decoded, it is exactly what a plain sink gets and what the
engine's view says."""

from __future__ import annotations

import asyncio
import random
import secrets
from typing import Any

import orjson
import pytest

from parlour.bots.catalog import REGISTERED, get_game
from parlour.rooms import Command
from parlour.rooms.encoding import GameFrames
from tests.rooms.harness import Harness


class PlainRecorder:
    """A plain sink (no ``json``): gets each message as a dict, here encoded as a whole by orjson."""

    def __init__(self) -> None:
        self.frames: list[bytes] = []

    def send(self, message: dict[str, Any]) -> None:
        self.frames.append(orjson.dumps(message))

    def close(self, code: int = 1000, reason: str = "") -> None:
        pass


class JsonSink(PlainRecorder):
    """A sink that, like a websocket connection, encodes every message with orjson."""

    json = True


class FrameSink(JsonSink):
    """A JSON sink that also takes messages the room encoded itself, like ``net.connection.Connection``."""

    def send_json(self, data: bytes) -> None:
        self.frames.append(data)


async def test_pre_encoded_views_decode_to_the_plain_ones() -> None:
    harness = Harness()
    players = await harness.table("uno", 3, {"target_score": 0, "seven_swap": True})
    wire = FrameSink()
    watcher = await harness.client("Watcher")
    code = players[0].last("room")["code"]
    await harness.manager.join(watcher.session, wire, "r", code, None, "spectator")
    (room,) = harness.manager.rooms.values()
    # The second player's messages go to a JSON sink from now on; the others stay plain.
    json_player = players[1]
    json_wire = JsonSink()
    room.member_by_session(json_player.session.id).sink = json_wire
    frame_player = players[2]
    frame_wire = FrameSink()
    room.member_by_session(frame_player.session.id).sink = frame_wire
    rng = random.Random(7)
    for _ in range(40):
        if room.state != "playing":
            break
        seat = room.engine.to_act(room.game)[0]
        actor = next(p for p in players if room.game_seat(room.member_by_session(p.session.id)) == seat)
        action = rng.choice(room.engine.legal_actions(room.game, seat))
        sink = {json_player: json_wire, frame_player: frame_wire}.get(actor, actor.sink)
        before = room.seq
        await harness.manager.command(actor.session, sink, None, "action", {"action": action})
        while room.seq == before:
            await asyncio.sleep(0)

    decoded = [orjson.loads(f) for f in json_wire.frames if b'"type":"game"' in f]
    assert len(decoded) >= 10
    spectator = [orjson.loads(f) for f in wire.frames if b'"type":"game"' in f]
    plain = [m for m in players[0].messages if m["type"] == "game"]
    by_seq = {m["seq"]: m for m in plain}
    for message in decoded:
        assert "hand" in message["view"] and message["view"]["seat"] == 1
        twin = by_seq[message["seq"]]
        public = {k: v for k, v in twin["view"].items() if k not in ("seat", "pending", "hand", "legal")}
        assert {k: message["view"][k] for k in public} == orjson.loads(orjson.dumps(public))
    for message in spectator:
        assert "hand" not in message["view"] and message["view"]["seat"] is None
        twin = by_seq[message["seq"]]
        assert message["log"] == orjson.loads(orjson.dumps(twin["log"]))
        assert message["turn"] == twin["turn"]
    whole = [orjson.loads(f) for f in frame_wire.frames if b'"type":"game"' in f]
    assert [m["seq"] for m in whole] == [m["seq"] for m in decoded]
    for message in whole:
        assert message["view"]["seat"] == 2 and "hand" in message["view"] and "legal" in message["view"]
    assert whole[-1]["view"] == orjson.loads(orjson.dumps(room.engine.view(room.game, 2)))
    assert room.engine.view(room.game, 1) == orjson.loads(orjson.dumps(room.engine.view(room.game, 1)))
    last = decoded[-1]["view"]
    assert last == orjson.loads(orjson.dumps(room.engine.view(room.game, 1)))


def test_a_whole_frame_is_byte_for_byte_the_encoded_message() -> None:
    """``GameFrames.frame`` joins each recipient's parts into the pieces of ``game_update``'s encoding:
    the bytes must be exactly those of encoding that recipient's whole message, whatever the parts hold
    (control characters, which orjson escapes, included), for every kind, seq and view."""
    note = "tab\there \x00\x01\x05 é ✓"
    turn = {"seat": 1, "deadline": 1.5, "remaining": 0.25}
    log = [{"n": 0, "text": "P0 played \x01 red 7", "event": {"seat": 0}}]
    for public in ({"top": {"color": "red", "value": "7"}, "note": note, "n": 2**63}, {}):
        for kind, seq, seats in (("game", 41, None), ("game_started", 0, [{"seat": 0, "name": "\x00P0"}])):
            frames = GameFrames(kind, seq, public, [{"type": "played"}], log, turn, seats)
            for events, part in (
                (frames.events, {"seat": 0, "hand": ["r7", "\x00"]}),
                (orjson.dumps([{"type": "drew", "card": "b\x011"}]), {}),
                (b"[]", {"seat": None}),
            ):
                encoded = orjson.dumps(part)
                whole = {"type": kind, "seq": seq, "events": orjson.loads(events), "log": log}
                whole |= {"view": {**public, **part}, "turn": turn}
                if seats is not None:
                    whole["seats"] = seats
                assert frames.frame(events, encoded) == orjson.dumps(whole)
                assert orjson.dumps(frames.message(events, encoded)) == orjson.dumps(whole)


SETTINGS: dict[str, dict[str, Any]] = {
    "uno": {"jump_in": True, "seven_swap": True, "target_score": 0},  # in and out of turn
}


async def _seat_frames(
    game: str, sink: type[FrameSink] | type[PlainRecorder], seed: int
) -> dict[int, list[bytes]]:
    """Each seat's game frames over a seeded 4-seat game (2 seats where the game takes no more), every
    member's sink a ``sink``; the same seed plays the same game, in and out of turn."""
    secrets.randbits = random.Random(seed).getrandbits  # type: ignore[assignment]
    harness = Harness()
    seats = min(4, get_game(game).max_players)
    await harness.table(game, seats, SETTINGS.get(game, {}))
    (room,) = harness.manager.rooms.values()
    sinks: dict[int, Any] = {}
    for member in room.members.values():
        member.sink = sinks.setdefault(room.game_seat(member), sink())
    by_seat = {room.game_seat(m): m for m in room.members.values()}
    rng = random.Random(seed)
    for _ in range(150):
        if room.state != "playing":
            break
        options = [(s, a) for s in range(seats) for a in room.engine.legal_actions(room.game, s)]
        seat, action = rng.choice(options)
        member = by_seat[seat]
        wire = {"action": room.engine.format_action(action)}
        assert await room.submit(Command("action", member.session, wire, member.sink)) is None
    return {seat: [f for f in s.frames if f.startswith(b'{"type":"game",')] for seat, s in sinks.items()}


@pytest.mark.parametrize("game", REGISTERED)
async def test_every_frame_is_the_plain_message_encoded(game: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Over whole seeded games, in and out of turn, every game frame a websocket gets (the room's joins
    of pre-encoded pieces) is exactly the orjson
    encoding of the message a plain sink gets."""
    monkeypatch.setattr(secrets, "randbits", secrets.randbits)  # restored after the test
    for seed in (3, 4):
        wire = await _seat_frames(game, FrameSink, seed)
        plain = await _seat_frames(game, PlainRecorder, seed)
        assert sum(len(frames) for frames in wire.values()) > (100 if game == "uno" else 40)  # whole games
        assert wire.keys() == plain.keys()
        for seat, frames in wire.items():
            assert len(frames) == len(plain[seat])
            for mine, twin in zip(frames, plain[seat], strict=True):
                assert mine == twin
