"""Hostile input over real sockets (issue 16): each test is an attack that used to cost a connection,
a room or the server, and the limit or mechanism that now stops it (docs/reliability.md)."""

from __future__ import annotations

import asyncio
import base64
import json
import os
import socket
import sqlite3
import struct

import pytest
import websockets

from tests.server.client import Client, close_all, first_legal, open_table
from tests.server.conftest import GENEROUS_LIMITS


def _limits(**overrides: str) -> dict[str, str]:
    """The generous test limits with some set low (names as in ``Config``)."""
    return {**GENEROUS_LIMITS, **{f"PARLOUR_{k.upper()}": v for k, v in overrides.items()}}


async def _pong(client: Client) -> None:
    assert (await client.request("ping", timeout=5))["type"] == "pong"


# --- item 1: slow readers --------------------------------------------------------------------------


class RawSocket:
    """A websocket client on a raw TCP socket with a tiny receive buffer that never reads: the
    slowest reader there is. ``send_text`` writes masked frames; ``dropped`` tells if the server cut
    the connection."""

    def __init__(self, port: int, path: str) -> None:
        self.sock = socket.socket()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 2048)
        self.sock.connect(("127.0.0.1", port))
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall(
            f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n".encode()
        )
        head = b""
        while b"\r\n\r\n" not in head:
            head += self.sock.recv(1)
        assert b" 101 " in head.split(b"\r\n")[0], head

    def send_text(self, text: str) -> bool:
        """False once the server has dropped the connection."""
        payload = text.encode()
        mask = os.urandom(4)
        n = len(payload)
        header = struct.pack("!BB", 0x81, 0x80 | n) if n < 126 else struct.pack("!BBH", 0x81, 0x80 | 126, n)
        masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        try:
            self.sock.sendall(header + mask + masked)
        except OSError:
            return False
        return True

    def close(self) -> None:
        self.sock.close()


def _connections(srv) -> int:
    return json.loads(srv.get("/healthz"))["connections"]


async def _flood_without_reading(srv, path: str, frames: list[str], rounds: int, first: str = "") -> bool:
    """Send ``first`` (if any), then ``frames`` ``rounds`` times, without ever reading a byte; True once
    the server has dropped the connection (it counts one connection fewer; ours is still open on our
    side) before it would close an unidentified one for that (``identify_seconds``)."""
    before = _connections(srv)
    raw = await asyncio.to_thread(RawSocket, srv.port, path)
    try:
        if first:
            await asyncio.to_thread(raw.send_text, first)
        for _ in range(rounds):
            for frame in frames:
                if not await asyncio.to_thread(raw.send_text, frame):
                    break
            else:
                await asyncio.sleep(0)
                continue
            break
        for _ in range(100):  # the server works through what the kernel buffered for it
            if _connections(srv) <= before:
                return True
            await asyncio.sleep(0.1)
        return False
    finally:
        raw.close()


@pytest.mark.slow
async def test_a_native_reader_that_never_reads_is_cut_off(server_factory) -> None:
    srv = server_factory({"PARLOUR_OUTBOUND_QUEUE": "64"})
    bystander = await Client.open(srv.ws, "Calm")
    # Each lobby_subscribe answers with every public room: fill the lobby so the replies are big.
    hosts = [await Client.open(srv.ws, f"Host{i}") for i in range(30)]
    for host in hosts:
        await host.ok("create_room", game="dots", public=True)
    frame = '{"type":"lobby_subscribe"}'
    identify = '{"type":"identify","name":"Flood"}'  # unidentified, each frame got a small refusal
    assert await _flood_without_reading(srv, "/api/ws", [frame], 5_000, first=identify)
    await _pong(bystander)
    await close_all([bystander, *hosts])


async def test_a_dots_spectator_that_never_reads_is_cut_off(server_factory) -> None:
    srv = server_factory({"PARLOUR_OUTBOUND_QUEUE": "64"})
    port = srv.port
    async with websockets.connect(f"ws://127.0.0.1:{port}/dots") as host:
        await host.send('{"type":"CREATE","roomname":"slow-reader","width":5,"height":5}')
        assert '"ok":true' in await host.recv()
        join = '{"type":"SPECTATE","roomname":"slow-reader","username":"slow"}'
        board = '{"type":"BOARD","roomname":"slow-reader"}'
        assert await _flood_without_reading(srv, "/dots", [join, *[board] * 50], 1_000)
    bystander = await Client.open(srv.ws, "Calm")
    await _pong(bystander)
    await bystander.close()


# --- items 3 and 10: per-address limits ---------------------------------------------------------------


async def test_rooms_are_capped_per_address_and_in_total(server_factory) -> None:
    srv = server_factory(_limits(rooms_per_ip="2", max_rooms="3"))
    clients = [await Client.open(srv.ws, f"P{i}") for i in range(3)]
    for client in clients[:2]:
        await client.ok("create_room", game="dots")
    refused = await clients[2].request("create_room", game="dots")
    assert refused["code"] == "too_many_rooms"
    quick = await clients[2].request("quick_play", game="uno")
    assert quick["code"] == "too_many_rooms"
    await close_all(clients)

    srv2 = server_factory(_limits(max_rooms="1"))
    first, second = await Client.open(srv2.ws, "A"), await Client.open(srv2.ws, "B")
    await first.ok("create_room", game="dots")
    assert (await second.request("create_room", game="cheat"))["code"] == "server_full"
    await close_all([first, second])


async def test_connections_and_new_sessions_are_limited_per_address(server_factory) -> None:
    srv = server_factory(_limits(connections_per_ip="3", sessions_per_ip_per_minute="2"))
    open_ = [await Client.open(srv.ws) for _ in range(3)]
    with pytest.raises(websockets.InvalidStatus):
        await websockets.connect(srv.ws)
    with pytest.raises(websockets.InvalidStatus):
        await websockets.connect(f"ws://127.0.0.1:{srv.port}/dots")
    await open_[0].identify("One")
    await open_[1].identify("Two")
    assert (await open_[2].request("identify", name="Three"))["code"] == "too_many_sessions"
    await close_all(open_[:2])
    await open_[2].close()
    again = await Client.open(srv.ws)  # a closed connection frees its place
    await _pong(again)
    await again.close()


async def test_an_idle_connection_that_never_identifies_is_closed(server_factory) -> None:
    srv = server_factory(_limits(identify_seconds="0.5"))
    idle = await Client.open(srv.ws)
    await _pong(idle)  # it may talk; it just never identifies
    await asyncio.wait_for(idle._reader, 10)
    assert idle.ws.close_code == 1008
    named = await Client.open(srv.ws, "Named")
    await asyncio.sleep(1.0)
    await _pong(named)
    await named.close()


async def test_chat_has_its_own_rate(server_factory) -> None:
    srv = server_factory(_limits(chat_per_10_seconds="3"))
    host = await Client.open(srv.ws, "Talker")
    await host.ok("create_room", game="dots")
    for i in range(3):
        await host.ok("chat", text=f"line {i}")
    assert (await host.request("chat", text="one too many"))["code"] == "chat_rate_limited"
    await host.ok("ready", ready=True)  # other requests are not held back
    await host.close()


# --- items 5 and 6: guessing --------------------------------------------------------------------------


async def test_a_room_locks_out_password_guessing(server_factory) -> None:
    srv = server_factory(_limits(password_failures_per_room="3"))
    host = await Client.open(srv.ws, "Host")
    code = (await host.ok("create_room", game="dots", password="hunter2"))["code"]
    guesser = await Client.open(srv.ws, "Guesser")
    for guess in ("a", "b", "c"):
        assert (await guesser.request("join", code=code, password=guess))["code"] == "wrong_password"
    # Locked: even the right password is refused now, without spending a hash on it.
    assert (await guesser.request("join", code=code, password="hunter2"))["code"] == "too_many_guesses"
    other = await Client.open(srv.ws, "Other")
    other_room = await Client.open(srv.ws, "Host2")
    code2 = (await other_room.ok("create_room", game="dots", password="pw"))["code"]
    await other.ok("join", code=code2, password="pw")  # another room is not affected
    await close_all([host, guesser, other, other_room])


async def test_an_address_guessing_room_codes_is_stopped(server_factory) -> None:
    srv = server_factory(_limits(code_misses_per_ip_per_minute="5"))
    host = await Client.open(srv.ws, "Host")
    code = (await host.ok("create_room", game="dots", public=False))["code"]
    guesser = await Client.open(srv.ws, "Guesser")
    misses = [c for c in ("22222", "33333", "44444", "55555", "66666", "77777") if c != code]
    for guess in misses[:5]:
        assert (await guesser.request("spectate", code=guess))["code"] == "room_not_found"
    # Out of misses: the right code is refused too, so guessing cannot tell a hit from a miss.
    assert (await guesser.request("spectate", code=code))["code"] == "too_many_guesses"
    await close_all([host, guesser])


# --- item 7: integers beyond 64 bits -------------------------------------------------------------------


async def test_integers_beyond_64_bits_are_refused_before_they_reach_the_log(server_factory) -> None:
    srv = server_factory()
    huge = 2**70
    player = await Client.open(srv.ws, "Huge")
    await player.send(f'{{"type":"ping","id":{huge}}}')
    reply = await player.expect("error")
    assert reply["code"] == "bad_message" and "id" not in reply
    await _pong(player)
    await player.ok("create_room", game="dots", settings={"width": 3, "height": 3})
    other = await Client.open(srv.ws, "Other")
    await other.ok("join", code=player.room["code"])
    await player.ok("ready", ready=True)
    await other.ok("ready", ready=True)
    await player.wait_for(lambda m: m.get("type") == "game_started", 10)
    mover = player if player.turn["seat"] == player.seat else other
    move = {"type": "line", "x": 0, "y": 0, "d": 0, "extra": huge}
    assert (await mover.request("action", action=move))["code"] == "bad_message"
    await mover.send(f'{{"type":"action","action":{{"type":"line","x":0,"y":0,"d":0,"n":{huge}}}}}')
    assert (await mover.expect("error"))["code"] == "bad_message"
    move.pop("extra")
    await mover.ok("action", action=move)  # the room never failed: the move still plays
    # A typed field too: a kick naming a real member with a seat past 64 bits was carried out, then
    # failed to be logged (internal_error).
    for fields in ({"member": other.member, "seat": huge}, {"seat": -huge}, {"capacity": huge}):
        kind = "update_settings" if "capacity" in fields else "kick"
        reply = await player.request(kind, **fields)
        assert reply["code"] == "bad_message" and "id" in reply, reply
    await player.ok("chat", text="still seated?")
    await other.wait_for(lambda m: m.get("type") == "chat" and m["message"]["text"] == "still seated?", 10)
    await _pong(player)
    await close_all([player, other])
    assert "internal_error" not in (srv.data_dir / "server.log").read_text()
    assert "Traceback" not in (srv.data_dir / "server.log").read_text()


# --- item 9: a corrupt row quarantines one room, not the server -----------------------------------------


async def test_a_corrupt_log_row_quarantines_its_room_only(server_factory) -> None:
    srv = server_factory({"PARLOUR_LOG_LEVEL": "info"})
    broken, healthy = await Client.open(srv.ws, "Broken"), await Client.open(srv.ws, "Healthy")
    bad_code = (await broken.ok("create_room", game="dots", public=True))["code"]
    good_code = (await healthy.ok("create_room", game="cheat", public=True))["code"]
    await broken.ok("chat", text="soon unreadable")
    token = healthy.token
    await close_all([broken, healthy])
    assert srv.stop() in (0, -15)
    with sqlite3.connect(srv.data_dir / "parlour.db") as db:
        db.execute("UPDATE room_log SET data = '{not json' WHERE room = ?", (bad_code,))
    srv.start()
    metrics = srv.get("/metrics").decode()
    assert "parlour_rooms_quarantined 1.0" in metrics
    assert f"event=room_quarantined room={bad_code}" in srv.log_path.read_text()
    back = await Client.open(srv.ws)
    await back.ok("resume", token=token)
    await back.wait_for(lambda m: m.get("type") == "room" and m["code"] == good_code)
    other = await Client.open(srv.ws, "Other")
    assert (await other.request("spectate", code=bad_code))["code"] == "room_not_found"
    await close_all([back, other])


async def test_a_room_whose_replay_fails_leaves_its_members_in_no_room(server_factory) -> None:
    """A log the replay refuses (a move the rules reject) quarantines the room. Its members resume into
    no room, and a request of theirs is refused at once: it went to the room that never ran, and waited
    for ever (the page showed the table, and a click did nothing)."""
    import json

    srv = server_factory()
    seated, _, code = await open_table(srv.ws, "dots", 2, {"width": 3, "height": 3}, spectators=0)
    mover = next(c for c in seated if c.seat == c.turn["seat"])
    await mover.ok("action", action=first_legal(mover.view))
    tokens = [c.token for c in seated]
    await close_all(seated)
    assert srv.stop() in (0, -15)
    with sqlite3.connect(srv.data_dir / "parlour.db") as db:
        rows = db.execute("SELECT id, data FROM room_log WHERE room = ? ORDER BY id", (code,)).fetchall()
        row_id, record = next((i, json.loads(d)) for i, d in rows if json.loads(d)["k"] == "action")
        record["p"]["engine_action"] = 10_000  # no such line: the rules refuse it
        db.execute("UPDATE room_log SET data = ? WHERE id = ?", (json.dumps(record), row_id))
    srv.start()
    assert f"event=room_quarantined room={code} reason=replay_failed" in srv.log_path.read_text()
    back = await Client.open(srv.ws)
    await back.ok("resume", token=tokens[0])
    assert (await back.request("chat", text="anyone?", timeout=3))["code"] == "not_in_room"
    assert (await back.request("action", action={"type": "line", "x": 0, "y": 0, "d": 0}, timeout=3))[
        "code"
    ] == "not_in_room"
    await back.close()


async def test_a_room_that_cannot_be_made_again_leaves_the_other_rooms_members_alone(server_factory) -> None:
    """A room whose record names no game this server has is quarantined before its replay starts; the
    room recovered before it keeps its members (they were taken for the broken room's)."""
    import json

    srv = server_factory()
    kept, broken = await Client.open(srv.ws, "Kept"), await Client.open(srv.ws, "Broken")
    kept_code = (await kept.ok("create_room", game="dots"))["code"]
    broken_code = (await broken.ok("create_room", game="dots"))["code"]
    token = kept.token
    await close_all([kept, broken])
    assert srv.stop() in (0, -15)
    with sqlite3.connect(srv.data_dir / "parlour.db") as db:
        (config,) = db.execute("SELECT config FROM rooms WHERE code = ?", (broken_code,)).fetchone()
        config = {**json.loads(config), "game": "no_such_game"}
        db.execute("UPDATE rooms SET config = ? WHERE code = ?", (json.dumps(config), broken_code))
    srv.start()
    assert f"event=room_quarantined room={broken_code}" in srv.log_path.read_text()
    back = await Client.open(srv.ws)
    await back.ok("resume", token=token)
    assert (await back.expect("room"))["code"] == kept_code
    await back.ok("chat", text="still here")
    await back.close()


# --- item 14: headers and health ---------------------------------------------------------------------


async def test_pages_carry_security_headers_and_healthz_counts_every_protocol(server_factory) -> None:
    import urllib.request

    srv = server_factory()
    with urllib.request.urlopen(srv.http + "/") as page:
        headers = page.headers
    assert "frame-ancestors 'none'" in headers["Content-Security-Policy"]
    assert "default-src 'self'" in headers["Content-Security-Policy"]
    assert headers["X-Content-Type-Options"] == "nosniff"
    async with (
        websockets.connect(f"ws://127.0.0.1:{srv.port}/dots"),
        websockets.connect(f"ws://127.0.0.1:{srv.port}/ws"),
    ):
        health = json.loads(srv.get("/healthz"))
        assert health["connections"] == 2


async def test_the_clients_files_are_checked_for_changes_at_every_load(server_factory) -> None:
    """After an upgrade a browser must not run a module it cached before beside the new ones (the page
    stopped at "connecting…"): every file says ``no-cache`` and an unchanged one answers 304."""
    import urllib.error
    import urllib.request

    srv = server_factory()
    for name in ("/app.js", "/settings.js", "/styles.css"):
        with urllib.request.urlopen(srv.http + name) as first:
            assert first.headers["Cache-Control"] == "no-cache", name
            etag = first.headers["ETag"]
        again = urllib.request.Request(srv.http + name, headers={"If-None-Match": etag})
        with pytest.raises(urllib.error.HTTPError) as unchanged:
            urllib.request.urlopen(again)
        assert unchanged.value.code == 304 and unchanged.value.headers["Cache-Control"] == "no-cache"


def test_an_unknown_page_is_a_page_for_browsers_and_plain_words_for_others(server) -> None:
    import urllib.error
    import urllib.request

    browser = urllib.request.Request(server.http + "/nonsense", headers={"Accept": "text/html,*/*"})
    with pytest.raises(urllib.error.HTTPError) as page:
        urllib.request.urlopen(browser)
    assert page.value.code == 404 and b'href="/"' in page.value.read()
    with pytest.raises(urllib.error.HTTPError) as plain:
        urllib.request.urlopen(server.http + "/api/nonsense")
    assert plain.value.code == 404 and plain.value.read() == b"Not Found"


# --- item 8: terminate racing a queued bot move ----------------------------------------------------------


async def _terminate_while_bots_play(srv, tag: str) -> None:
    host, talker = await Client.open(srv.ws, f"H{tag}"), await Client.open(srv.ws, f"T{tag}")
    code = (await host.ok("create_room", game="uno", capacity=6, settings={"max_players": 6}))["code"]
    for _ in range(5):
        await host.ok("add_bot")
    await host.ok("become_spectator")
    await talker.ok("spectate", code=code)
    await host.ok("start")
    await host.wait_for(lambda m: m.get("type") == "game", 10)  # the bots are playing

    # Requests pile up in the room's queue (sent without waiting), so a bot's move lands behind
    # ``terminate``; every one of them must still be answered.
    ids = []
    for i in range(150):
        ids.append(f"c{i}")
        await talker.send({"type": "chat", "text": f"{i}", "id": ids[-1]})
        if i == 75:
            await host.send({"type": "terminate", "id": "end"})
    await host.wait_for(lambda m: m.get("id") == "end", 10, from_start=True)
    for rid in ids:  # with the room task dead, the request queued behind the bot move hung here
        await talker.wait_for(lambda m, rid=rid: m.get("id") == rid, 10, from_start=True)
    await _pong(talker)
    await _pong(host)
    await close_all([host, talker])


async def test_terminate_racing_queued_bot_moves_answers_everyone(server_factory) -> None:
    """A bot whose move was queued behind ``terminate`` is cancelled with the room; the room task
    used to die on that move's cancelled future, leaving every request behind it unanswered."""
    srv = server_factory({"PARLOUR_BOT_DELAY": "0"})
    for trial in range(8):
        await asyncio.gather(*(_terminate_while_bots_play(srv, f"{trial}.{i}") for i in range(4)))
    assert "InvalidStateError" not in srv.log_path.read_text()


# --- item 11: the log keeps the engine's action, not the client's object -------------------------------


async def test_junk_fields_in_legal_moves_are_not_stored(server_factory) -> None:
    srv = server_factory()
    a, b = await Client.open(srv.ws, "A"), await Client.open(srv.ws, "B")
    code = (await a.ok("create_room", game="dots", settings={"width": 4, "height": 4}))["code"]
    await b.ok("join", code=code)
    await a.ok("ready", ready=True)
    await b.ok("ready", ready=True)
    await a.wait_for(lambda m: m.get("type") == "game_started", 10)
    junk = "j" * 30_000
    for line in [(0, 0, 0), (1, 0, 0), (2, 0, 0), (0, 1, 0)]:
        mover = a if a.turn["seat"] == a.seat else b
        await mover.wait_seq(max(a.seq, b.seq))
        move = {"type": "line", "x": line[0], "y": line[1], "d": line[2], "junk": junk}
        await mover.ok("action", action=move)
        await a.wait_seq(mover.seq)
        await b.wait_seq(mover.seq)
    with sqlite3.connect(srv.data_dir / "parlour.db") as db:
        rows = [r[0] for r in db.execute("SELECT data FROM room_log WHERE room = ?", (code,))]
    assert rows and max(len(r) for r in rows) < 1000
    assert not any("jjjj" in r for r in rows)
    await close_all([a, b])


# --- item 14: a kick holds against a new identity --------------------------------------------------------


async def test_a_kicked_guest_cannot_come_back_under_a_new_name(server_factory) -> None:
    """A kick bars the session, its guest profile and, for sessions new to the room, its address; those
    who share the address and were in the room before (a household, a NAT) may still come back. The
    guest's household is 198.51.100.5, as the proxy in front (this machine, trusted) names it."""
    srv = server_factory()
    home = {"X-Forwarded-For": "198.51.100.5"}
    host, guest = await Client.open(srv.ws, "Host"), await Client.open(srv.ws, headers=home)
    profile = (await guest.ok("identify", name="Guest"))["profile"]
    housemate = await Client.open(srv.ws, "Housemate", headers=home)
    code = (await host.ok("create_room", game="cheat", capacity=4))["code"]
    await guest.ok("join", code=code)
    await housemate.ok("join", code=code)
    await housemate.ok("leave")
    await host.ok("kick", member=guest.member)
    await guest.expect("kicked")
    assert (await guest.request("join", code=code))["message"] == "you were removed from this room"
    again = await Client.open(srv.ws, "Not Guest", headers=home)
    reply = await again.request("join", code=code)
    # Barred by the address alone: maybe another person on that network, who is not told they were removed.
    assert reply["code"] == "banned" and "someone on your network" in reply["message"]
    assert (await again.request("spectate", code=code))["code"] == "banned"
    assert (await housemate.ok("join", code=code))["type"] == "room"
    # From another network (a proxy in front names it), with the same browser's profile: still barred.
    away = await Client.open(srv.ws, headers={"X-Forwarded-For": "198.51.100.7"})
    await away.ok("identify", name="Guest", profile=profile)
    assert (await away.request("join", code=code))["code"] == "banned"
    stranger = await Client.open(srv.ws, "Stranger", headers={"X-Forwarded-For": "198.51.100.8"})
    assert (await stranger.ok("join", code=code))["type"] == "room"
    await close_all([host, guest, again, housemate, away, stranger])


async def test_a_kick_on_the_servers_own_machine_bars_only_the_kicked(server_factory) -> None:
    """Everyone on the server's machine shares its loopback address (a server bound to 127.0.0.1 serves
    nobody else): a kick there had barred every newcomer, told "someone on your network" was removed."""
    srv = server_factory()
    host, guest = await Client.open(srv.ws, "Host"), await Client.open(srv.ws, "Guest")
    code = (await host.ok("create_room", game="cheat", capacity=4))["code"]
    await guest.ok("join", code=code)
    await host.ok("kick", member=guest.member)
    assert (await guest.request("join", code=code))["code"] == "banned"
    newcomer = await Client.open(srv.ws, "Newcomer")
    assert (await newcomer.ok("join", code=code))["type"] == "room"
    await close_all([host, guest, newcomer])


async def test_only_a_trusted_proxy_names_the_client_address(server_factory) -> None:
    """``PARLOUR_TRUSTED_PROXIES``: X-Forwarded-For from another peer is ignored, so a forged header
    does not make a client someone else (past a kick's address ban, or a per-address limit): here each
    forged address would have had a budget of its own."""
    srv = server_factory({"PARLOUR_TRUSTED_PROXIES": "192.0.2.1", "PARLOUR_SESSIONS_PER_IP_PER_MINUTE": "2"})
    forged = [await Client.open(srv.ws, headers={"X-Forwarded-For": f"198.51.100.{n}"}) for n in (9, 10, 11)]
    for client in forged[:2]:
        await client.ok("identify", name="Forged")
    assert (await forged[2].request("identify", name="Forged"))["code"] == "too_many_sessions"
    await close_all(forged)
