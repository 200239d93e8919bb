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
from tests.server.client import Client, Message, close_all, first_legal, open_table
from tests.server.test_inbound_frames import CLOSE, RawClient, action, frame, msg
from tests.server.test_outbound import LaneSocket


async def test_frames_are_written_as_they_are_sent() -> None:
    ws = LaneSocket()
    conn = Connection(ws, Metrics(), queue_size=8)  # type: ignore[arg-type]
    conn.send_json(b'{"type":"game","seq":1}')
    conn.send({"type": "ok", "id": 7})
    shared = [{"type": "chat", "n": 2}, {"type": "chat", "n": 3}]
    conn.send_all(shared, text_frames([orjson.dumps(m) for m in shared]))
    assert [[orjson.loads(p) for p in write] for write in ws.writes] == [
        [{"type": "game", "seq": 1}],
        [{"type": "ok", "id": 7}],
        shared,  # one write for what send_all is given
    ]
    await conn.finish()


async def test_what_waits_for_a_reply_leaves_with_it_in_one_write() -> None:
    ws = LaneSocket()
    conn = Connection(ws, Metrics(), queue_size=8)  # type: ignore[arg-type]
    conn.expect_reply()  # an action with an id went to the room
    conn.send_json(b'{"type":"game","seq":1}')
    shared = [{"type": "chat", "n": 2}]
    conn.send_all(shared, text_frames([orjson.dumps(m) for m in shared]))
    conn.send_all([{"type": "chat", "n": 3}, {"type": "chat", "n": 4}])
    assert ws.writes == []
    conn.send({"type": "ok", "id": 7})  # the reply: written at once, with what waited
    assert [[orjson.loads(p) for p in write] for write in ws.writes] == [
        [
            {"type": "game", "seq": 1},
            {"type": "chat", "n": 2},
            {"type": "chat", "n": 3},
            {"type": "chat", "n": 4},
            {"type": "ok", "id": 7},
        ]
    ]
    conn.send({"type": "chat", "n": 5})  # nothing awaited: written at once
    assert [len(write) for write in ws.writes] == [5, 1]
    await conn.finish()


async def test_two_requests_in_flight_hold_until_both_are_answered() -> None:
    ws = LaneSocket()
    conn = Connection(ws, Metrics(), queue_size=8)  # type: ignore[arg-type]
    conn.expect_reply()
    conn.expect_reply()
    conn.send_json(b'{"type":"game","seq":1}')
    conn.send({"type": "ok", "id": 1})
    assert ws.writes == []
    conn.send({"type": "error", "code": "not_your_turn", "id": 2})
    assert [[orjson.loads(p)["type"] for p in write] for write in ws.writes] == [["game", "ok", "error"]]
    await conn.finish()


async def test_what_waits_for_a_reply_that_does_not_come_leaves_when_the_pass_ends() -> None:
    ws = LaneSocket()
    conn = Connection(ws, Metrics(), queue_size=8)  # type: ignore[arg-type]
    conn.expect_reply()  # e.g. a stale move the room drops without a word
    conn.send_json(b'{"type":"game","seq":1}')
    conn.send({"type": "chat", "n": 2})  # no id: not a reply
    assert ws.writes == []
    await asyncio.sleep(0)
    assert [[orjson.loads(p) for p in write] for write in ws.writes] == [
        [{"type": "game", "seq": 1}, {"type": "chat", "n": 2}]
    ]
    await conn.finish()


async def test_a_close_goes_after_what_was_held() -> None:
    ws = LaneSocket()
    conn = Connection(ws, Metrics(), queue_size=8)  # type: ignore[arg-type]
    conn.expect_reply()
    conn.send({"type": "chat", "n": 1})
    conn.close(1008, "rate limit exceeded")
    assert [orjson.loads(p)["n"] for p in ws.lane] == [1]  # written before the close
    assert ws.closed is None
    await asyncio.sleep(0.01)
    assert ws.closed == (1008, "rate limit exceeded") and ws.sent == []
    await conn.finish()


async def test_what_the_socket_cannot_take_goes_through_asgi_in_order() -> None:
    ws = LaneSocket()
    conn = Connection(ws, Metrics(), queue_size=8)  # type: ignore[arg-type]
    conn.expect_reply()
    conn.send({"type": "chat", "n": 1})
    conn.send_all([{"type": "chat", "n": 2}], b"")  # (frames the lane declines: sent as messages)
    conn.send_json(b'{"type":"chat","n":3}')
    ws.open = False  # the write buffer is full when the reply comes
    conn.send({"type": "ok", "id": 4})
    ws.open = True
    conn.send({"type": "chat", "n": 5})  # behind the waiting frames, not overtaking them
    conn.send_all([{"type": "chat", "n": 6}])
    await asyncio.sleep(0)
    assert ws.lane == [] and [orjson.loads(t)["n"] for t in ws.sent] == [1]
    ws.never.set()
    await asyncio.sleep(0.01)
    assert [orjson.loads(t).get("n", orjson.loads(t).get("id")) for t in ws.sent] == [1, 2, 3, 4, 5, 6]
    conn.send({"type": "chat", "n": 7})  # the queue is empty again: the lane
    assert [orjson.loads(p)["n"] for p in ws.lane] == [7]
    await conn.finish()


def _writes(pid: int) -> int:
    """The write system calls process ``pid``'s main thread (its event loop) has made, as the kernel
    counts them: not the SQLite checkpoint thread's page copies, once a second."""
    for line in Path(f"/proc/{pid}/task/{pid}/io").read_text().splitlines():
        if line.startswith("syscw:"):
            return int(line.split()[1])
    raise AssertionError("no syscw in /proc/<pid>/task/<pid>/io")


def _slow_move(view: Message) -> Message:
    """A draw or a pass where the seat has one, so no hand empties and the game outlasts the test
    (playing the first legal card ended a four-seat deal within 24 actions in one CI run)."""
    return next((m for m in view["legal"] if m["type"] in ("draw", "pass")), first_legal(view))


async def test_the_actors_game_frame_and_ok_share_a_write(server_factory) -> None:
    """UNO, four seats: the same number of actions played with request ids (each answered ``ok``)
    and without; the kernel's count of the server's write system calls shows the ``ok`` costs no
    write of its own (it did: one more write per action). A server of its own: on the worker's shared
    one, the keep-alive pings to connections earlier tests left open (every 20 s, together) are writes
    too, and six of them once landed in one phase of a CI run (36, 36, 42, 36)."""
    server = server_factory()
    if not Path(f"/proc/{server.proc.pid}/task/{server.proc.pid}/io").exists():
        pytest.skip("needs Linux's per-thread I/O counters")
    seated, watchers, _ = await open_table(server.ws, "uno", 4, {"target_score": 0}, spectators=0)
    per_mode = 12
    counts = []
    for with_id in (True, False, True, False):
        before = _writes(server.proc.pid)
        for _ in range(per_mode // 2):
            leader = max(seated, key=lambda c: c.seq)
            assert leader.game_over is None and leader.turn is not None
            actor = next(c for c in seated if c.seat == leader.turn["seat"])
            seq = leader.seq
            await actor.wait_seq(seq)
            move = _slow_move(actor.view or {})
            if with_id:
                assert (await actor.request("action", action=move))["type"] == "ok"
            else:
                await actor.send({"type": "action", "action": move})
            for client in seated:
                await client.wait_seq(seq + 1)
        counts.append(_writes(server.proc.pid) - before)
    extra = (counts[0] + counts[2]) - (counts[1] + counts[3])  # what the ok replies cost in writes
    assert extra < per_mode / 2, counts
    await close_all(seated, watchers)


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
    first.expect_reply()
    second.expect_reply()
    first.send({"type": "chat", "n": 1})
    second.send({"type": "chat", "n": 2})
    await asyncio.sleep(0)
    assert [orjson.loads(p)["n"] for p in ws.lane] == [2]
    second.send({"type": "chat", "n": 3})
    await asyncio.sleep(0)
    assert [orjson.loads(p)["n"] for p in ws.lane] == [2, 3]
    await first.finish()
    await second.finish()
