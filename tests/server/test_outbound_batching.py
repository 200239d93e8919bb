"""What one connection is sent during one event-loop pass leaves in one write (net/connection.py):
in order, before any frame the server writes of its own (a close), and through the ASGI path, still
in order, when the socket cannot take it. In-process on a socket that records each write, and
against a real ``parlour serve``, whose write system calls are counted by the kernel."""

from __future__ import annotations

import asyncio
import struct
from pathlib import Path

import orjson
import pytest

from parlour.net.connection import Connection
from parlour.net.metrics import Metrics
from parlour.net.websocket_protocol import text_frames
from tests.server.client import Client, close_all, first_legal, open_table
from tests.server.test_inbound_frames import CLOSE, RawClient, action, frame, msg
from tests.server.test_outbound import LaneSocket


async def test_what_one_pass_sends_is_one_write_in_order() -> None:
    ws = LaneSocket()
    conn = Connection(ws, Metrics(), queue_size=8)  # type: ignore[arg-type]
    conn.send_json(b'{"type":"game","seq":1}')
    conn.send({"type": "ok", "id": 7})
    shared = [{"type": "chat", "n": 2}, {"type": "chat", "n": 3}]
    conn.send_all(shared, text_frames([orjson.dumps(m) for m in shared]))
    conn.send_all([{"type": "chat", "n": 4}])
    assert ws.writes == []  # nothing written before the pass ends
    await asyncio.sleep(0)
    assert [[orjson.loads(p) for p in write] for write in ws.writes] == [
        [{"type": "game", "seq": 1}, {"type": "ok", "id": 7}, *shared, {"type": "chat", "n": 4}]
    ]
    conn.send({"type": "chat", "n": 5})  # the next pass: a write of its own
    await asyncio.sleep(0)
    assert [len(write) for write in ws.writes] == [5, 1]
    await conn.finish()


async def test_a_close_in_the_same_pass_goes_after_the_frames() -> None:
    ws = LaneSocket()
    conn = Connection(ws, Metrics(), queue_size=8)  # type: ignore[arg-type]
    conn.send({"type": "error", "code": "rate_limited"})
    conn.close(1008, "rate limit exceeded")
    assert [orjson.loads(p)["code"] for p in ws.lane] == ["rate_limited"]  # written before the close
    assert ws.closed is None
    await asyncio.sleep(0.01)
    assert ws.closed == (1008, "rate limit exceeded") and ws.sent == []
    await conn.finish()


async def test_a_pass_the_socket_cannot_take_goes_through_asgi_in_order() -> None:
    ws = LaneSocket()
    conn = Connection(ws, Metrics(), queue_size=8)  # type: ignore[arg-type]
    ws.open = False  # the write buffer is full when the pass ends
    conn.send({"type": "chat", "n": 1})
    conn.send_all([{"type": "chat", "n": 2}], b"")  # (frames the lane declines: sent as messages)
    conn.send_json(b'{"type":"chat","n":3}')
    await asyncio.sleep(0)
    ws.open = True
    conn.send({"type": "chat", "n": 4})  # behind the waiting frames, not overtaking them
    await asyncio.sleep(0)
    assert ws.lane == [] and [orjson.loads(t)["n"] for t in ws.sent] == [1]
    ws.never.set()
    await asyncio.sleep(0.01)
    assert [orjson.loads(t)["n"] for t in ws.sent] == [1, 2, 3, 4]
    conn.send({"type": "chat", "n": 5})  # the queue is empty again: the lane
    await asyncio.sleep(0)
    assert [orjson.loads(p)["n"] for p in ws.lane] == [5]
    await conn.finish()


def _writes(pid: int) -> int:
    """The write system calls process ``pid`` has made, as the kernel counts them."""
    for line in Path(f"/proc/{pid}/io").read_text().splitlines():
        if line.startswith("syscw:"):
            return int(line.split()[1])
    raise AssertionError("no syscw in /proc/<pid>/io")


async def test_replies_to_one_segment_leave_in_one_write(server) -> None:
    """Twenty actions arriving in one TCP segment are answered in order, in a write or two (one per
    chunk the server reads), not one write each."""
    if not Path(f"/proc/{server.proc.pid}/io").exists():
        pytest.skip("needs Linux's per-process I/O counters")
    raw = await RawClient.open(server.port)
    ids = list(range(1, 21))
    before = _writes(server.proc.pid)
    await raw.write(b"".join(action(i) for i in ids))  # no room: each answered not_in_room
    assert await raw.reply_ids(ids) == ids
    assert all(m["code"] == "not_in_room" for m in raw.messages)
    assert _writes(server.proc.pid) - before <= 4
    await raw.close()


async def test_replies_sent_before_the_clients_close_frame_arrive_before_the_servers_close(server) -> None:
    raw = await RawClient.open(server.port)
    await raw.write(b"".join(action(i) for i in range(1, 6)) + frame(struct.pack("!H", 1000), opcode=CLOSE))
    assert await raw.close_code() == 1000
    assert raw.answered() == [1, 2, 3, 4, 5]
    await raw.close()


async def test_the_actor_gets_its_game_frame_before_its_ok(server) -> None:
    """UNO, four seats and a spectator: every action's game frame reaches every client, in seq order,
    and the actor's ``ok`` comes after the game frame its action made."""
    seated, watchers, _ = await open_table(server.ws, "uno", 4, {"target_score": 0}, spectators=1)
    for _ in range(12):
        leader = max(seated, key=lambda c: c.seq)
        if leader.game_over is not None or leader.turn is None:
            break
        actor = next(c for c in seated if c.seat == leader.turn["seat"])
        await actor.wait_seq(leader.seq)
        before = actor.seq
        reply = await actor.request("action", action=first_legal(actor.view or {}))
        assert reply == {"type": "ok", "id": reply["id"]}
        at = actor.messages.index(reply)
        assert any(m.get("type") == "game" and m["seq"] > before for m in actor.messages[:at])
    for client in seated + watchers:
        await client.wait_seq(max(c.seq for c in seated))
        seqs = [m["seq"] for m in client.messages if m.get("type") in ("game_started", "game")]
        assert seqs == list(range(seqs[0], seqs[0] + len(seqs)))
    await close_all(seated, watchers)


async def test_pipelined_requests_are_answered_in_order(server) -> None:
    raw = await RawClient.open(server.port, "Piper")
    ids = list(range(1, 31))
    await raw.write(b"".join(msg("ping", i) if i % 3 else action(i) for i in ids))
    assert await raw.reply_ids(ids) == ids
    guest = await Client.open(server.ws, "Guest")  # the server carries on
    assert (await guest.request("ping"))["type"] == "pong"
    await raw.close()
    await guest.close()


class BrokenLaneSocket(LaneSocket):
    """A socket whose lane raises (never expected of the real one)."""

    def send_frames(self, wire: bytes) -> bool:
        raise OSError("broken")


async def test_a_connection_whose_write_fails_does_not_stop_the_others() -> None:
    broken, ws = BrokenLaneSocket(), LaneSocket()
    first = Connection(broken, Metrics(), queue_size=8)  # type: ignore[arg-type]
    second = Connection(ws, Metrics(), queue_size=8)  # type: ignore[arg-type]
    first.send({"type": "chat", "n": 1})
    second.send({"type": "chat", "n": 2})
    await asyncio.sleep(0)
    assert [orjson.loads(p)["n"] for p in ws.lane] == [2]
    second.send({"type": "chat", "n": 3})
    await asyncio.sleep(0)
    assert [orjson.loads(p)["n"] for p in ws.lane] == [2, 3]
    await first.finish()
    await second.finish()
