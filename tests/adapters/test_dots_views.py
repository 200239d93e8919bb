"""The ``/dots`` sessions' game views are built only when a BOARD packet reads them
(``rooms.outbound.LazyView``), and a BOARD never shows a move whose command is not committed yet.

In process: real ``DotsClient``s on the real in-process native sessions, in a room whose store commits
each append only when the test lets it (``GatedStore``), so the window between a move being applied
and its commit is held open deterministically.
"""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any

import orjson

from parlour.config import Config
from parlour.games.dots import line_id
from parlour.net.adapters.dots_packets import DotsClient, Registry
from parlour.net.adapters.native_link import connector
from parlour.net.metrics import Metrics
from parlour.rooms import Manager, Timings
from parlour.rooms.outbound import LazyView
from tests.rooms.harness import GatedStore, until


class Table:
    """A /dots room: its admin's connection, two players and a spectator, each with what it was sent."""

    def __init__(self) -> None:
        self.store = GatedStore()
        timings = Timings(ready_countdown=0.0, quick_play_countdown=0.0, grace=0.05)
        self.manager = Manager(self.store, timings)  # type: ignore[arg-type]
        config = Config(rate_per_second=1e9, rate_burst=10**9)
        state = SimpleNamespace(manager=self.manager, config=config, metrics=Metrics(), limits=None)
        self.connect = connector(state, "dots")
        self.registry = Registry()
        self.sent: dict[str, list[dict[str, Any]]] = {}

    def client(self, name: str) -> DotsClient:
        sent = self.sent[name] = []

        def send_all(packets: list[dict[str, Any]], frames: bytes | None) -> None:
            sent.extend(packets)

        return DotsClient(self.connect, self.registry, sent.append, lambda: None, send_all)

    async def start(self) -> tuple[DotsClient, DotsClient, DotsClient, Any]:
        owner, a, b, c = (self.client(n) for n in ("owner", "a", "b", "c"))
        await frame(owner, type="CREATE", roomname="views", width=3, height=3, maxplayers=2)
        await frame(a, type="JOIN", roomname="views", username="A")
        await frame(b, type="JOIN", roomname="views", username="B")
        await frame(c, type="SPECTATE", roomname="views", username="C")
        await frame(a, type="READY", ready=True)
        await frame(b, type="READY", ready=True)
        assert a.room is not None
        room = self.manager.rooms[a.room.code]
        await until(lambda: room.state == "playing" and room.settled)
        return a, b, c, room

    async def second_move_held(self) -> tuple[DotsClient, DotsClient, DotsClient, Any]:
        """The game started, line (0, 0, 0) committed, and line (1, 1, 1) applied but its commit held."""
        a, b, c, room = await self.start()
        move(mover(room, a, b), 0, 0, 0)
        await until(lambda: room.seq == 1 and room.settled)
        self.store.hold()
        move(mover(room, a, b), 1, 1, 1)
        await until(lambda: self.store.waiting == 1)
        return a, b, c, room


async def frame(client: DotsClient, **packet: Any) -> None:
    await client.on_frame(orjson.dumps(packet).decode())


def mover(room: Any, a: DotsClient, b: DotsClient) -> DotsClient:
    """The connection whose seat is on turn."""
    seat = room.engine.to_act(room.game)[0]
    return a if a.pids[seat] == a._pid(a.me) else b


def move(client: DotsClient, x: int, y: int, d: int) -> None:
    assert client.frame_now(orjson.dumps({"type": "MOVE", "x": x, "y": y, "d": d}).decode())


def boards(sent: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [p for p in sent if p["type"] == "BOARD"]


async def test_the_views_dots_sessions_get_are_lazy_and_equal_the_engines() -> None:
    table = Table()
    a, b, c, room = await table.start()
    for x, y, d in [(0, 0, 0), (0, 0, 1), (1, 1, 0), (2, 0, 1)]:
        played = room.seq + 1
        move(mover(room, a, b), x, y, d)
        await until(lambda played=played: room.seq == played and room.settled)
        for client in (a, b, c):  # the leader hands its view to every connection of the room
            assert type(client.view) is LazyView and client.view is a.view
        assert dict(a.view) == room.engine.view(room.game, room.game_seat(room.members[a.me]))
        await frame(c, type="BOARD")
        board = boards(table.sent["c"])[-1]
        assert board["lines"] == room.engine.public_view(room.game)["lines"]
        assert [x, y, d] in board["lines"]


async def test_a_board_asked_for_while_a_move_commits_waits_for_it_and_follows_its_packets() -> None:
    table = Table()
    a, b, c, room = await table.second_move_held()
    # Applied, not committed yet.
    assert not room.settled and [1, 1, 1] in room.engine.public_view(room.game)["lines"]
    view = c.view
    assert type(view) is LazyView and not view.ready
    before = {name: len(sent) for name, sent in table.sent.items()}
    for client in (a, b, c, c):  # the players, the spectator, and a second BOARD waiting beside the first
        await frame(client, type="BOARD")
    for _ in range(20):
        await asyncio.sleep(0)
    # Nothing shows the uncommitted line: no BOARD is answered while the move is being committed.
    assert all(len(table.sent[name]) == before[name] for name in ("a", "b", "c"))

    table.store.release()
    await until(lambda: room.settled and len(boards(table.sent["c"][before["c"] :])) == 2)
    for name, waiting in (("a", 1), ("b", 1), ("c", 2)):
        after = table.sent[name][before[name] :]
        kinds = [p["type"] for p in after]
        # The move's packets first, then the BOARD(s) showing it, now committed.
        assert kinds[0] == "MOVE" and kinds[-waiting:] == ["BOARD"] * waiting, kinds
        assert after[0] == {"type": "MOVE", "x": 1, "y": 1, "d": 1, "playerid": after[0]["playerid"]}
        for board in after[-waiting:]:
            assert board["lines"] == [[0, 0, 0], [1, 1, 1]]
    committed = [r["p"]["engine_action"] for r in table.store.rooms[room.code].log if r["k"] == "action"]
    assert committed == [line_id(0, 0, 0), line_id(1, 1, 1)]


async def test_a_board_waiting_on_a_commit_that_fails_shows_the_game_without_the_move() -> None:
    table = Table()
    _, _, c, room = await table.second_move_held()
    before = len(table.sent["c"])
    await frame(c, type="BOARD")
    assert len(table.sent["c"]) == before

    table.store.fail()  # not durable, so it never happened: the room rebuilds from its log
    await until(lambda: len(boards(table.sent["c"][before:])) == 1)
    (board,) = boards(table.sent["c"][before:])
    assert board["lines"] == [[0, 0, 0]]
    assert room.settled and room.engine.public_view(room.game)["lines"] == [[0, 0, 0]]
    assert not [p for p in table.sent["c"][before:] if p["type"] == "MOVE"]


async def test_a_board_waiting_when_its_connection_leaves_is_answered_not_in_a_room() -> None:
    table = Table()
    a, b, c, room = await table.start()
    table.store.hold()
    move(mover(room, a, b), 0, 0, 1)
    await until(lambda: table.store.waiting == 1)
    before = len(table.sent["c"])
    await frame(c, type="BOARD")
    leaving = asyncio.ensure_future(c.close())  # its leave waits behind the move being committed
    await until(lambda: c.room is None)
    table.store.release()
    await leaving
    assert boards(table.sent["c"][before:]) == [
        {"type": "BOARD", "ok": False, "message": "Join or spectate the room first."}
    ]


async def test_a_board_waiting_on_an_admin_reset_shows_the_waiting_room() -> None:
    table = Table()
    a, b, _, room = await table.start()
    move(mover(room, a, b), 0, 0, 0)
    await until(lambda: room.seq == 1 and room.settled)
    owner = table.registry.find("views")
    assert owner is not None and owner.admin_token is not None
    admin = table.client("admin")
    table.store.hold()
    resetting = asyncio.ensure_future(frame(admin, type="ADMIN", admintoken=owner.admin_token, cmd="reset"))
    await until(lambda: table.store.waiting == 1)
    assert room.game is None and not room.settled
    before = len(table.sent["a"])
    await frame(a, type="BOARD")
    assert len(table.sent["a"]) == before
    table.store.release()
    await resetting
    await until(lambda: len(boards(table.sent["a"][before:])) == 2)
    board = boards(table.sent["a"][before:])[-1]  # after the one the reset's snapshot sends
    assert board["gamestate"] == "waiting for players" and board["lines"] == []
    assert table.sent["admin"] == [{"type": "ADMIN", "ok": True}]


async def test_a_board_waiting_on_the_last_move_shows_the_finished_game() -> None:
    table = Table()
    a, b, c, room = await table.start()
    free = sorted(room.game.free)
    for lid in free[:-1]:
        played = room.seq + 1
        x, y, d = room.game.board.xyd[lid]
        move(mover(room, a, b), x, y, d)
        await until(lambda played=played: room.seq == played and room.settled)
    table.store.hold()
    x, y, d = room.game.board.xyd[free[-1]]
    move(mover(room, a, b), x, y, d)
    await until(lambda: table.store.waiting == 1)
    assert room.state == "finished" and not room.settled
    before = len(table.sent["c"])
    await frame(c, type="BOARD")
    assert len(table.sent["c"]) == before
    table.store.release()
    await until(lambda: len(boards(table.sent["c"][before:])) == 1)
    after = table.sent["c"][before:]
    # The last move's packets, the game's end, then the BOARD: its state read from the lazy view.
    assert [p["type"] for p in after][-2:] == ["GAMESTATE", "BOARD"]
    outcome = room.outcome
    board = after[-1]
    assert board["gamestate"] == ("tied" if outcome["tie"] else "ended") == after[-2]["state"]
    assert len(board["lines"]) == len(free) and len(board["captures"]) == 4
