"""Bad input never hurts: every malformed frame gets an ``error`` and changes nothing; floods are
refused then cut off; a game in another room carries on throughout."""

from __future__ import annotations

import asyncio
import json

import pytest
import websockets

from tests.server.client import Client, close_all, open_table, play_game

BATTERY: list[tuple[str | bytes, str]] = [
    ("null", "bad_message"),
    ("[]", "bad_message"),
    ("42", "bad_message"),
    ('"identify"', "bad_message"),
    ("true", "bad_message"),
    ("{}", "bad_message"),
    ('{"type": 7}', "bad_message"),
    ('{"type": null}', "bad_message"),
    ("not json at all", "bad_json"),
    ('{"type": "chat", "text": "unterminated', "bad_json"),
    (b"\xff\xfe\x00garbage", "bad_json"),
    ("", "bad_json"),
    ('{"type": "launch_missiles"}', "unknown_type"),
    ('{"type": "identify"}', "bad_message"),
    ('{"type": "identify", "name": 5}', "bad_message"),
    ('{"type": "identify", "name": ["a"]}', "bad_message"),
    ('{"type": "ready", "ready": "yes"}', "bad_message"),
    ('{"type": "join", "code": 12345}', "bad_message"),
    ('{"type": "create_room", "game": "dots", "capacity": "many"}', "bad_message"),
    ('{"type": "action", "action": [1, 2]}', "bad_message"),
    ('{"type": "action"}', "bad_message"),
    ('{"type": "chat", "text": null}', "bad_message"),
    ("[" * 5000 + "]" * 5000, "bad_message"),
]


async def test_malformed_battery_changes_nothing(server) -> None:
    # A game in another room runs alongside the battery and must finish normally.
    seated, watchers, _ = await open_table(server.ws, "dots", 2, {"width": 4, "height": 4})
    game = asyncio.create_task(play_game(seated))

    victim = await Client.open(server.ws, "Victim")
    room = await victim.ok("create_room", game="dots")
    for frame, code in BATTERY:
        victim.skip()
        await victim.send(frame)
        reply = await victim.expect("error")
        assert reply["code"] == code, (frame[:40], reply)
    # Errors echo the request id when the frame had one.
    reply = await victim.request("ready", ready="yes")
    assert reply["type"] == "error" and reply["code"] == "bad_message"
    # Illegal and out-of-room requests.
    assert (await victim.request("action", action={"type": "line", "x": 0, "y": 0, "d": 0}))[
        "code"
    ] == "invalid_state"
    assert (await victim.request("create_room", game="chess"))["code"] == "already_in_room"
    assert (await victim.request("kick"))["code"] == "bad_message"
    # Requests for a room one is not in.
    outsider = await Client.open(server.ws, "Outsider")
    for kind, fields in [
        ("action", {"action": {"type": "draw"}}),
        ("leave", {}),
        ("start", {}),
        ("chat", {"text": "x"}),
    ]:
        assert (await outsider.request(kind, **fields))["code"] == "not_in_room"
    await outsider.close()
    # Oversize frames (> 64 KiB) are refused but the connection stays.
    victim.skip()
    await victim.send(json.dumps({"type": "chat", "text": "x" * 70_000}))
    assert (await victim.expect("error"))["code"] == "frame_too_large"
    # Nothing changed: the room is exactly as it was.
    await victim.ok("ping")
    other = await Client.open(server.ws, "Other")
    snap = await other.ok("spectate", code=room["code"])
    assert snap["chat"] == [] and snap["state"] == "waiting" and snap["settings"] == {}
    assert [(m["name"], m["seat"], m["ready"]) for m in snap["members"]] == [
        ("Victim", 0, False),
        ("Other", None, False),
    ]

    await game
    assert json.loads(server.get("/healthz"))["status"] == "ok"
    await close_all(seated, watchers, [victim, other])


async def test_illegal_moves_pass_engine_codes(server) -> None:
    seated, watchers, _ = await open_table(server.ws, "dots", 2, {"width": 3, "height": 3})
    by_seat = {c.seat: c for c in seated}
    first, second = by_seat[0], by_seat[1]
    assert (await second.request("action", action={"type": "line", "x": 0, "y": 0, "d": 0}))["code"] == (
        "not_your_turn"
    )
    assert (await first.request("action", action={"type": "line", "x": 9, "y": 9, "d": 0}))[
        "code"
    ] == "off_board"
    assert (await first.request("action", action={"type": "dance"}))["code"] == "bad_action"
    await first.ok("action", action={"type": "line", "x": 0, "y": 0, "d": 0})
    assert (await second.request("action", action={"type": "line", "x": 0, "y": 0, "d": 0}))["code"] == (
        "line_taken"
    )
    assert (await watchers[0].request("action", action={"type": "line", "x": 1, "y": 0, "d": 0}))["code"] == (
        "not_a_player"
    )
    await close_all(seated, watchers)


async def test_frame_over_one_mebibyte_drops_only_that_connection(server) -> None:
    client = await Client.open(server.ws, "Huge")
    with pytest.raises((websockets.ConnectionClosed, ConnectionError)):
        await client.send("x" * (2 << 20))
        await client.request("ping", timeout=5)
    healthy = await Client.open(server.ws, "Healthy")
    assert (await healthy.request("ping"))["type"] == "pong"
    await healthy.close()


async def flood(flooder: Client, frame: str) -> list[str | None]:
    """Send ``frame`` 400 times as fast as possible; the error codes that came back."""
    for _ in range(400):
        try:
            await flooder.send(frame)
        except websockets.ConnectionClosed:
            break
    await asyncio.wait_for(flooder._reader, 10)
    return [m.get("code") for m in flooder.messages if m["type"] == "error"]


async def test_flood_is_rate_limited_then_disconnected(server_factory) -> None:
    srv = server_factory(fast=False)  # the documented defaults: 40 burst, 20/s
    flooder = await Client.open(srv.ws, "Flood")
    bystander = await Client.open(srv.ws, "Calm")
    assert "rate_limited" in await flood(flooder, '{"type": "ping"}')
    assert sum(1 for m in flooder.messages if m["type"] == "pong") >= 35  # the burst, less identify
    assert flooder.ws.close_code == 1008
    assert (await bystander.request("ping"))["type"] == "pong"
    await bystander.close()


async def test_action_flood_is_rate_limited_then_disconnected(server_factory) -> None:
    """Game actions take the server's fast lane; its rate limit is the same as everyone's."""
    srv = server_factory(fast=False)
    (flooder, bystander), _, _ = await open_table(srv.ws, "dots", 2, {"width": 3, "height": 3}, spectators=0)
    codes = await flood(flooder, '{"type": "action", "action": {"type": "line", "x": 9, "y": 9, "d": 0}}')
    assert codes.count("rate_limited") >= 40, codes  # the patience runs out after 50 refusals
    assert flooder.ws.close_code == 1008
    assert (await bystander.request("ping"))["type"] == "pong"
    await bystander.close()


async def test_metrics_and_health(server) -> None:
    client = await Client.open(server.ws, "Metric")
    await client.ok("create_room", game="uno")
    await client.send("nope")
    await client.expect("error")
    text = server.get("/metrics").decode()
    assert 'parlour_rooms{game="uno",state="waiting"}' in text
    assert "parlour_connections" in text and "parlour_messages_in_total" in text
    assert 'parlour_errors_total{code="bad_json"}' in text
    assert 'parlour_command_seconds_bucket{kind="join"' in text
    health = json.loads(server.get("/healthz"))
    assert health["status"] == "ok" and health["connections"] >= 1
    await client.close()
