"""The room actor in-process: log-before-delivery, exact replay, self-healing, timers, bots, idle close."""

from __future__ import annotations

import asyncio
import gc
import time
import weakref
from typing import Any

from parlour.rooms import CallbackSink, Command, Manager, Member, Room, Timings
from parlour.rooms.game_record import opener, public_players, steps
from tests.rooms.harness import Harness, Inbox, ListSink, MemoryStore, until
from tests.server.client import first_legal


def _room(h: Harness) -> Room:
    (room,) = h.manager.rooms.values()
    return room


async def _act(room: Room, clients: list, steps: int) -> None:
    """``steps`` moves by whoever is on turn, chosen from their own last view."""
    for _ in range(steps):
        if room.state != "playing":
            return
        seat = room.turn_info()["seat"]
        client = next(c for c in clients if room.member_by_session(c.session.id).seat == seat)
        view = room.engine.view(room.game, seat)
        reply = await client.do("action", action=first_legal(view))
        assert reply["type"] == "ok", reply


def _views(room: Room) -> dict[Any, Any]:
    return {seat: room.engine.view(room.game, seat) for seat in [None, *range(len(room.seats))]}


async def test_replay_rebuilds_identical_rooms(harness: Harness) -> None:
    for game, n, settings in [
        ("dots", 3, {"max_players": 3}),
        ("cheat", 4, {}),
        ("uno", 3, {"stacking": True}),
    ]:
        clients = await harness.table(game, n, settings)
        await clients[1].do("chat", text=f"hello {game}")
        room = harness.manager.session_rooms[clients[0].session.id]
        await _act(room, clients, 15)
    again = harness.restarted()
    await again.recover()
    assert set(again.rooms) == set(harness.manager.rooms)
    for code, before in harness.manager.rooms.items():
        after = again.rooms[code]
        assert _views(after) == _views(before)
        assert (after.turn, after.seq, after.host, list(after.chat)) == (
            before.turn,
            before.seq,
            before.host,
            list(before.chat),
        )
        # The same members, none of them connected: recovery disconnects every (human) member at once.
        assert [m.public(after.host) for m in after.members.values()] == [
            {**m.public(before.host), "connected": False} for m in before.members.values()
        ]
    await again.close()


async def test_log_is_committed_before_messages_go_out() -> None:
    gate = asyncio.Event()

    class SlowStore(MemoryStore):
        async def append(self, code: str, record: dict[str, Any], game: Any = None) -> None:
            await gate.wait()
            await super().append(code, record, game)

    h = Harness()
    h.store = SlowStore()
    h.manager = Manager(h.store, h.timings)  # type: ignore[arg-type]
    host = await h.client("Host")
    creating = asyncio.create_task(h.manager.create_room(host.session, host.sink, "r", game="dots"))
    await asyncio.sleep(0.05)
    assert host.messages == []  # handled, but not yet durable: nothing sent
    gate.set()
    await creating
    assert host.kinds() == ["room"] and len(h.store.rooms[host.last("room")["code"]].log) == 1
    await h.manager.close()


async def test_handler_failure_heals_room_from_log(harness: Harness, monkeypatch) -> None:
    clients = await harness.table("dots", 2, {"width": 3, "height": 3})
    room = _room(harness)
    before = _views(room)
    calls = {"n": 0}
    real_apply = room.engine.apply

    def broken(state: Any, seat: int, action: Any) -> Any:
        calls["n"] += 1
        real_apply(state, seat, action)  # mutate, then blow up: the worst case
        raise RuntimeError("bug")

    monkeypatch.setattr(room.engine, "apply", broken)
    reply = await clients[0].do("action", action={"type": "line", "x": 0, "y": 0, "d": 0})
    assert reply["code"] == "internal_error" and calls["n"] == 1
    monkeypatch.setattr(room.engine, "apply", real_apply)
    assert _views(room) == before  # rebuilt from the log: the half-applied move is gone
    assert (await clients[0].do("action", action={"type": "line", "x": 1, "y": 0, "d": 0}))["type"] == "ok"


async def test_a_failing_command_is_rebuilt_once_then_refused(harness: Harness, monkeypatch) -> None:
    """Each failure replays the room's whole log: the same failing request sent again must not."""
    clients = await harness.table("dots", 2, {"width": 3, "height": 3})
    room = _room(harness)
    rebuilds = {"n": 0}
    real_apply, real_rebuild = room.engine.apply, room._rebuild

    def broken(state: Any, seat: int, action: Any) -> Any:
        if action == 0:  # the first line: this one request always fails
            raise RuntimeError("bug")
        return real_apply(state, seat, action)

    def counted() -> None:
        rebuilds["n"] += 1
        real_rebuild()

    monkeypatch.setattr(room.engine, "apply", broken)
    monkeypatch.setattr(room, "_rebuild", counted)
    bad = {"type": "line", "x": 0, "y": 0, "d": 0}
    assert (await clients[0].do("action", action=bad))["code"] == "internal_error"
    for _ in range(3):
        assert (await clients[0].do("action", action=bad))["code"] == "command_failed"
    assert rebuilds["n"] == 1
    # Other requests are handled as ever.
    assert (await clients[1].do("chat", text="still here"))["type"] == "ok"
    assert (await clients[0].do("action", action={"type": "line", "x": 1, "y": 0, "d": 0}))["type"] == "ok"


async def test_turn_timer_applies_timeout_rule_and_ignores_stale_timers(harness: Harness) -> None:
    clients = await harness.table("uno", 2, {"turn_timer": 30})
    room = _room(harness)
    seat, deadline = room.turn
    assert deadline is not None and 29 < deadline - room.started_at <= 30
    logged = len(room.records)
    await room.submit(Command("timer", None, {"name": "turn", "deadline": deadline - 1}))
    assert len(room.records) == logged and room.seq == 0  # stale: dropped silently
    await room.submit(Command("timer", None, {"name": "turn", "deadline": deadline}))
    assert room.seq == 1 and len(room.records) == logged + 1
    update = clients[0].last("game")
    assert any(e["type"] == "timeout" for e in update["events"])
    assert room.turn != (seat, deadline)


async def test_a_seat_whose_clock_ran_out_twice_in_a_row_gets_short_turns_until_it_moves(
    harness: Harness,
) -> None:
    """A player who went away without closing the page held the table up for the whole clock on every
    turn (13 turns running in a play-test). After two in a row, their turns last 5 s, said in ``turn``
    as ``hurried`` (the short clock's seconds), until they move; then the whole clock again."""
    clients = await harness.table("connect_four", 2, {"turn_timer": 60})
    room = _room(harness)
    away = room.turn[0]
    by_seat = {room.member_by_session(c.session.id).seat: c for c in clients}
    columns = iter([0, 6, 0, 6, 5])

    async def other_moves() -> None:
        assert room.turn[0] != away
        reply = await by_seat[1 - away].do("action", action={"type": "drop", "column": next(columns)})
        assert reply["type"] == "ok", reply

    def told() -> dict[str, Any]:
        """The turn as the last game message (or the game's start) told it."""
        return next(m for m in reversed(clients[0].messages) if m["type"] in ("game", "game_started"))["turn"]

    def clock() -> float:
        assert room.turn[0] == away and room.turn[1] is not None
        return room.turn[1] - time.time()

    for _ in range(2):
        assert 55 < clock() <= 60 and "hurried" not in told()
        await room.submit(Command("timer", None, {"name": "turn", "deadline": room.turn[1]}))
        await other_moves()
    assert 4 < clock() <= 5  # two in a row: short
    assert (told()["seat"], told().get("hurried")) == (away, 5)  # the short clock's seconds
    await room.submit(Command("timer", None, {"name": "turn", "deadline": room.turn[1]}))
    await other_moves()
    assert 4 < clock() <= 5  # still away
    reply = await by_seat[away].do("action", action={"type": "drop", "column": 1})  # back
    assert reply["type"] == "ok", reply
    await other_moves()
    assert 55 < clock() <= 60 and "hurried" not in told()
    assert room.missed == {}


async def test_a_pause_between_rounds_is_timed_by_the_room_and_is_nobodys_turn(harness: Harness) -> None:
    """UNO's break between rounds, with no turn timer: the room times it for the next dealer, tells
    nobody it is their turn, and deals when it runs out. The round here ends on a jump-in by a player
    who was not on turn, while the next dealer was: their clock must still restart as the pause's."""
    clients = await harness.table("uno", 3, {"round_break": 5, "jump_in": True})
    room = _room(harness)
    game = room.game
    on_turn = game.turn
    jumper = (on_turn + 1) % 3
    game.dealer = (on_turn - 1) % 3  # the next dealer is the seat on turn
    game.discard, game.color = [9], 0  # a red 5 on top; the jumper holds the other red 5 only
    game.hands[jumper] = [10]
    assert room.turn == (on_turn, None)
    client = next(c for c in clients if room.member_by_session(c.session.id).seat == jumper)
    reply = await client.do("action", action={"type": "play", "card": 10})
    assert reply["type"] == "ok", reply
    seat, deadline = room.turn
    assert seat == on_turn and deadline is not None and 4 < deadline - time.time() <= 5
    told = clients[0].last("game")
    assert told["turn"]["pause"] is True and told["view"]["turn"] is None
    assert told["view"]["dealing"] == on_turn
    await room.submit(Command("timer", None, {"name": "turn", "deadline": deadline}))
    told = clients[0].last("game")
    assert [e["type"] for e in told["events"]][:2] == ["round_started", "deal"]
    assert not any(e["type"] == "timeout" for e in told["events"])  # nobody ran out of time
    assert room.game.round == 2 and room.turn is not None and room.turn[1] is None
    assert "pause" not in told["turn"]


async def test_grace_then_idle_close() -> None:
    h = Harness(Timings(grace=0.05, empty_room=0.4))
    host = await h.client("Host")
    await h.manager.create_room(host.session, host.sink, "r", game="uno")
    room = _room(h)
    h.manager.connection_lost(host.session, host.sink)
    await asyncio.sleep(0.1)
    assert room.members == {} and room.idle is not None and room.state == "waiting"
    await asyncio.sleep(0.5)
    assert room.state == "closed" and h.store.closed == {room.code: "idle"}
    assert h.manager.rooms == {}
    await h.manager.close()


async def test_a_closed_room_is_freed_without_the_cyclic_collector(harness: Harness) -> None:
    """A room's timers call back into it through a weak method: once it is closed and forgotten, the
    room (its game, log, views) is freed by reference counting at once, not left in a cycle for a
    collection to find (every finished /dots game closes its room)."""
    clients = await harness.table("dots", 2, {"width": 3, "height": 3})
    await _act(_room(harness), clients, 3)
    gone = weakref.ref(_room(harness))
    gc.collect()
    gc.disable()
    try:
        assert (await clients[0].do("terminate"))["type"] == "ok"
        await until(lambda: not harness.manager.rooms, "the room closed")
        assert gone() is None
    finally:
        gc.enable()


async def test_finished_game_is_recorded_with_players_and_log(harness: Harness) -> None:
    clients = await harness.table("dots", 2, {"width": 3, "height": 3})
    room = _room(harness)
    await _act(room, clients, 100)
    assert room.state == "finished"
    (record,) = await harness.store.games(room.code)
    assert record.game == "dots" and [p["name"] for p in record.players] == ["P0", "P1"]
    assert record.result == room.outcome and record.log[0]["k"] == "start" and record.log[-1]["k"] == "action"
    assert len(record.log) == 1 + sum(1 for r in record.log if r["k"] == "action")


async def test_bot_members_act_through_their_sink(harness: Harness) -> None:
    """The hook for the bots package: a factory returns the bot's sink; the bot submits engine actions.

    A human's ``engine_action`` is ignored: only bots may skip the wire format."""
    tasks: list[asyncio.Task] = []

    def factory(room: Room, member: Member) -> CallbackSink:
        def on_message(message: dict[str, Any]) -> None:
            if message["type"] in ("game", "game_started") and message["turn"]:
                seat = room.members[member.id].seat
                if message["turn"]["seat"] == seat and not message["view"]["over"]:
                    line = room.engine.legal_actions(room.game, seat)[0]  # an engine action
                    move = Command("action", member.session, {"engine_action": line})
                    tasks.append(asyncio.ensure_future(room.submit(move)))

        return CallbackSink(on_message)

    harness.manager.bot_factory = factory
    human = await harness.client("Human")
    await harness.manager.create_room(
        human.session, human.sink, "r", game="dots", settings={"width": 3, "height": 3}
    )
    room = _room(harness)
    room.bot_factory = factory
    assert (await human.do("add_bot", name="Robo"))["type"] == "ok"
    assert [m.bot for m in room.members.values()] == [False, True]
    await human.do("start")
    for _ in range(200):
        if room.state == "finished":
            break
        if room.turn and room.turn[0] == 0:
            await human.do("action", action=first_legal(room.engine.view(room.game, 0)))
        await asyncio.sleep(0)
    assert room.state == "finished"
    await asyncio.gather(*tasks)
    await human.do("rematch")
    await human.do("start")
    assert (await human.do("action", engine_action=0))["code"] == "bad_action"


async def test_the_first_move_goes_round_the_table_from_game_to_game(harness: Harness) -> None:
    """Seat 0 opens a room's first Dots & Boxes game, seat 1 the rematch; a restarted server replays
    the rematch from seat 1, and its record replays from there too."""
    clients = await harness.table("dots", 2, {"width": 3, "height": 3})
    room = _room(harness)
    assert room.turn_info()["seat"] == 0
    await _act(room, clients, 100)
    await clients[1].do("rematch")
    await clients[0].do("start")
    assert room.turn_info()["seat"] == 1
    await _act(room, clients, 3)
    again = harness.restarted()
    await again.recover()
    after = again.rooms[room.code]
    assert (_views(after), after.turn) == (_views(room), room.turn)
    await _act(room, clients, 100)
    first, second = harness.store.finished
    assert (opener(first), opener(second)) == (0, 1)
    assert steps(second)[0]["seat"] == 1 and len(steps(second)) == 12  # every line of a 2×2-box board


async def test_each_player_keeps_their_colour_from_game_to_game(harness: Harness) -> None:
    """Seats are renumbered between games, and colours had followed the seats: Bo left seat 1, and Cy,
    in seat 2, came back in seat 1 with Bo's colour. A colour is the player's own now, a newcomer takes the
    lowest free one, one back after leaving has theirs if it is free, and a restart replays the same."""
    ada, bo, _ = await harness.table("dots", 3, {"width": 3, "height": 3, "max_players": 4})
    room = _room(harness)
    colours = lambda: [(s["name"], s["colour"]) for s in room.seats]  # noqa: E731
    assert colours() == [("P0", 0), ("P1", 1), ("P2", 2)]
    assert (await ada.do("reset"))["type"] == "ok"
    assert (await bo.do("leave"))["type"] == "ok"
    assert (await ada.do("reset"))["type"] == "ok"  # the seats renumbered: Cy in seat 1
    di = await harness.client("P3")
    await harness.manager.join(di.session, di.sink, "r", room.code, None, "player")
    assert (await ada.do("start"))["type"] == "ok"
    assert colours() == [("P0", 0), ("P2", 2), ("P3", 1)]  # Cy in seat 1 now, still 2
    assert ada.last("game_started")["seats"][1] == {
        "seat": 1,
        "member": room.seats[1]["member"],
        "name": "P2",
        "colour": 2,
    }
    assert (await ada.do("reset"))["type"] == "ok"
    assert (await di.do("leave"))["type"] == "ok"
    await harness.manager.join(bo.session, bo.sink, "r", room.code, None, "player")  # Bo is back
    assert (await ada.do("start"))["type"] == "ok"
    assert colours() == [("P0", 0), ("P2", 2), ("P1", 1)]  # his own again: Di, who had it, is gone
    again = harness.restarted()
    await again.recover()
    after = again.rooms[room.code]
    assert after.seats == room.seats and after.colours == room.colours
    await again.close()


async def test_a_game_started_from_a_finished_room_survives_a_restart(tmp_path) -> None:
    """The host's Start in a finished room leaves the results and starts the next game in one command:
    its checkpoint would have held no game, and a restarted server lost the game begun."""
    from parlour.store import open_store

    store = await open_store(str(tmp_path))
    h = Harness()
    h.store, h.manager = store, Manager(store, h.timings)  # type: ignore[assignment]
    host, guest = await h.table("dots", 2, {"width": 3, "height": 3})
    room = _room(h)
    await guest.do("leave")  # the last player left wins: the game is over
    assert room.state == "finished"
    await h.manager.join(guest.session, guest.sink, "back", room.code, None, "player")
    assert (await host.do("start"))["type"] == "ok"
    assert room.state == "playing" and room.games_played == 2
    await _act(room, [host, guest], 3)
    before = (_views(room), room.turn, room.seq, room.games_played)
    await h.manager.close()
    await store.close()

    store = await open_store(str(tmp_path))
    again = Manager(store, h.timings)
    await again.recover()
    after = again.rooms[room.code]
    assert (_views(after), after.turn, after.seq, after.games_played) == before
    await again.close()
    await store.close()


async def test_a_restart_gives_the_seat_on_turn_its_clock_again_in_full(tmp_path) -> None:
    """The turn clock ran on while the server was down: a player came back to "You ran out of time"
    and a line drawn for them, though the page had said moves wait until it is back."""
    from parlour.store import open_store

    store = await open_store(str(tmp_path))
    h = Harness()
    h.store, h.manager = store, Manager(store, h.timings)  # type: ignore[assignment]
    clients = await h.table("dots", 2, {"width": 3, "height": 3, "turn_timer": 30})
    room = _room(h)
    await _act(room, clients, 2)
    seat, deadline = room.turn
    await h.manager.close()
    await store.close()
    await asyncio.sleep(0.05)  # the server is down a while

    store = await open_store(str(tmp_path))
    again = Manager(store, h.timings)
    await again.recover()
    after = again.rooms[room.code]
    assert after.turn is not None and after.turn[0] == seat
    assert after.turn[1] > deadline and abs(after.turn[1] - (time.time() + 30)) < 1
    await again.close()
    await store.close()


async def test_a_restart_in_a_pause_between_rounds_gives_the_pause_again_in_full(harness: Harness) -> None:
    """The pause is the room's clock as a turn is: back from a restart, once a player is back too (until
    then every player is away, and no clock runs), it is a pause again (nobody's turn), with its time in
    full, and running out it deals."""
    clients = await harness.table("uno", 2, {"target_score": 500, "round_break": 20})
    room = _room(harness)
    for _ in range(3000):
        if room.game.dealing:
            break
        await _act(room, clients, 1)
    assert room.game.dealing and room.paused

    again = harness.restarted()
    await again.recover()
    after = again.rooms[room.code]
    assert after.all_away and after.turn_info() == {
        "seat": after.game.dealer,
        "deadline": None,
        "remaining": None,
        "away": True,
    }
    back = Inbox(again, clients[0].session, clients[0].token)
    await again.resume(back.sink, clients[0].token)
    await again.reattach(clients[0].session)
    assert after.game.dealing and after.paused and after.turn_info()["pause"] is True
    seat, deadline = after.turn
    assert seat == after.game.dealer and abs(deadline - (time.time() + 20)) < 1
    await after.submit(Command("timer", None, {"name": "turn", "deadline": deadline}))
    assert after.game.round == 2 and not after.paused
    await again.close()


async def test_rematch_checkpoints_the_log(tmp_path) -> None:
    """Between games the room's state replaces its log, so recovery replays one game at most."""
    from parlour.store import open_store

    store = await open_store(str(tmp_path))
    h = Harness()
    h.store, h.manager = store, Manager(store, h.timings)  # type: ignore[assignment]
    clients = await h.table("dots", 2, {"width": 3, "height": 3})
    room = _room(h)
    await _act(room, clients, 100)
    await clients[1].do("chat", text="gg")
    await clients[1].do("rematch")
    assert room.records[0]["k"] == "checkpoint" and len(room.records) == 1
    await clients[0].do("chat", text="again")
    await clients[0].do("start")
    await _act(room, clients, 3)
    before = (_views(room), room.turn, room.host, list(room.chat), room.games_played)
    await h.manager.close()
    await store.close()

    store = await open_store(str(tmp_path))
    (record,) = await store.open_rooms()
    assert record.log[0]["k"] == "checkpoint" and len(record.log) == 1 + 1 + 1 + 3  # chat, start, moves
    again = Manager(store, h.timings)
    await again.recover()
    after = again.rooms[room.code]
    assert (_views(after), after.turn, after.host, list(after.chat), after.games_played) == before
    assert again.session_rooms.keys() == {c.session.id for c in clients}
    await again.close()
    await store.close()


async def test_failed_append_undoes_the_command(harness: Harness, monkeypatch) -> None:
    """A command whose log write fails never happened: no messages, state as before, room alive."""
    clients = await harness.table("dots", 2, {"width": 3, "height": 3})
    room = _room(harness)
    before, logged = _views(room), len(room.records)

    async def broken(*args: Any, **kwargs: Any) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(harness.store, "append", broken)
    seen = len(clients[1].messages)
    reply = await clients[0].do("action", action={"type": "line", "x": 0, "y": 0, "d": 0})
    assert reply["code"] == "internal_error"
    assert _views(room) == before and len(room.records) == logged and len(clients[1].messages) == seen
    monkeypatch.undo()
    assert (await clients[0].do("action", action={"type": "line", "x": 0, "y": 0, "d": 0}))["type"] == "ok"


async def test_a_kick_whose_append_fails_leaves_the_kicked_connected(harness: Harness, monkeypatch) -> None:
    """The rebuilt room gives back the connection of a member the failed command had taken out (it
    used to come back seated and "connected" with no connection, and was sent nothing more); a kicked
    bot gets a new driver, as the failed kick had closed its old one."""
    drivers: list[ListSink] = []

    class Driver(ListSink):
        closed = False

        def close(self, code: int = 1000, reason: str = "") -> None:
            self.closed = True

    def factory(room: Room, member: Member) -> ListSink:
        drivers.append(Driver())
        return drivers[-1]

    harness.manager.bot_factory = factory
    host, guest = await harness.client("Host"), await harness.client("Guest")
    await harness.manager.create_room(host.session, host.sink, "r", game="dots", capacity=3)
    room = _room(harness)
    room.bot_factory = factory
    await harness.manager.join(guest.session, guest.sink, "r", room.code, None, "player")
    assert (await host.do("add_bot", name="Robo"))["type"] == "ok"
    ids = {m.name: m.id for m in room.members.values()}

    async def broken(*args: Any, **kwargs: Any) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(harness.store, "append", broken)
    for name in ("Guest", "Robo"):
        assert (await host.do("kick", member=ids[name]))["code"] == "internal_error"
    monkeypatch.undo()
    assert sorted(m.name for m in room.members.values()) == ["Guest", "Host", "Robo"]
    assert (await host.do("chat", text="still there?"))["type"] == "ok"
    assert guest.last("chat")["message"]["text"] == "still there?"
    robo = next(m for m in room.members.values() if m.bot)
    assert robo.sink is drivers[-1] and not drivers[-1].closed and drivers[0].closed
    assert drivers[-1].messages[-1]["type"] == "chat"


async def test_a_sink_without_games_follows_membership_but_is_sent_no_game_frames(harness: Harness) -> None:
    clients = await harness.table("dots", 2)
    room = _room(harness)
    watcher, sink = await harness.client("W"), ListSink(games=False)  # as /dots's admin session
    await harness.manager.join(watcher.session, sink, "r", room.code, None, "spectator")
    await _act(room, clients, 4)
    late = await harness.client("Late")
    await harness.manager.join(late.session, late.sink, "r", room.code, None, "spectator")
    kinds = [m["type"] for m in sink.messages]
    assert kinds[0] == "room" and "member_joined" in kinds
    assert "game" not in kinds and "game_started" not in kinds
    assert clients[1].kinds().count("game") >= 4, "the players still get every move"


async def test_a_room_created_to_spectate_has_its_creator_as_seatless_host(harness: Harness) -> None:
    host, player = await harness.client("Host"), await harness.client("P")
    await harness.manager.create_room(host.session, host.sink, "r", game="dots", capacity=2, spectate=True)
    snapshot = host.last("room")
    assert snapshot["you"]["role"] == "spectator" and snapshot["you"]["seat"] is None
    assert snapshot["host"] == snapshot["you"]["member"]
    await harness.manager.join(player.session, player.sink, "r", snapshot["code"], None, "player")
    assert player.last("room")["you"]["seat"] == 0, "the first player takes the first seat"
    again = harness.restarted()
    await again.recover()
    (room,) = again.rooms.values()
    creator = room.members[snapshot["you"]["member"]]
    assert (creator.role, creator.seat, room.host) == ("spectator", None, creator.id)
    await again.close()


async def test_the_lobby_hears_a_game_end_but_not_each_move(harness: Harness) -> None:
    lobby = ListSink(games=False)  # any hashable sink
    harness.manager.lobby_subscribe(lobby, "dots")
    clients = [await harness.client("A"), await harness.client("B")]
    host = clients[0]
    settings = {"width": 2, "height": 2}
    await harness.manager.create_room(
        host.session, host.sink, "r", game="dots", settings=settings, public=True
    )
    await harness.manager.join(
        clients[1].session, clients[1].sink, "r", host.last("room")["code"], None, "player"
    )
    await host.do("start")
    room = _room(harness)
    assert lobby.messages[-1]["type"] == "lobby_room" and lobby.messages[-1]["room"]["state"] == "playing"
    before = len(lobby.messages)
    await _act(room, clients, 3)
    assert room.state == "playing" and len(lobby.messages) == before, "moves do not change the listing"
    await _act(room, clients, 1)
    assert room.state == "finished"
    assert lobby.messages[-1] == {"type": "lobby_room_removed", "code": room.code}  # every seat taken
    # One leaves the results: the host, left alone, can be found again to play the next game with.
    assert (await clients[1].do("leave"))["type"] == "ok"
    listed = lobby.messages[-1]
    assert listed["type"] == "lobby_room" and listed["room"]["code"] == room.code
    summary = listed["room"]
    assert (summary["state"], summary["players"], summary["capacity"]) == ("finished", 1, 2)
    assert harness.manager.public_rooms("dots") == [listed["room"]]


async def test_a_sink_without_legal_gets_the_same_views_less_legal(harness: Harness) -> None:
    """Cheat builds a view without its legal plays for such a sink; every other key, and every other
    recipient's message, is what it would be; an engine that cannot (Dots) sends its views whole."""
    for game, n in (("cheat", 3), ("dots", 2)):
        clients = await harness.table(game, n)
        room = next(r for r in harness.manager.rooms.values() if r.game_name == game)
        member = room.member_by_session(clients[0].session.id)
        seen = len(clients[0].messages)
        member.sink = clients[0].sink = ListSink(clients[0].messages, legal=False)  # type: ignore[assignment]
        await _act(room, clients, 6)
        lean = [m for m in clients[0].messages[seen:] if m["type"] == "game"]
        full = [m for m in clients[1].messages if m["type"] == "game"][-len(lean) :]
        assert len(lean) == 6 and [m["seq"] for m in lean] == [m["seq"] for m in full]
        for mine, theirs in zip(lean, full, strict=True):
            assert ("legal" in mine["view"]) == (game != "cheat")
            assert "legal" in theirs["view"], "a sink that reads it still gets it"
        view = room.engine.view(room.game, member.seat)
        if game == "cheat":
            del view["legal"]
        assert lean[-1]["view"] == view


class _GatedStore(MemoryStore):
    """Appends commit only when the test opens the gate."""

    def __init__(self) -> None:
        super().__init__()
        self.gate = asyncio.Event()

    async def append(self, code: str, record: dict[str, Any], game: Any = None) -> None:
        await self.gate.wait()
        await super().append(code, record, game)


async def _gated_table() -> tuple[Harness, _GatedStore, list[Any]]:
    h = Harness()
    h.store = store = _GatedStore()
    store.gate.set()
    h.manager = Manager(h.store, h.timings)  # type: ignore[arg-type]
    return h, store, await h.table("dots", 2, {"width": 3, "height": 3})


async def test_commands_behind_an_uncommitted_one_wait_for_its_messages() -> None:
    """A refused command (nothing to log) is not answered before an earlier accepted command's
    messages, which wait for its commit; and nothing of either goes out before that commit."""
    h, store, (first, second) = await _gated_table()
    room = _room(h)
    store.gate.clear()
    seen = len(second.messages)
    line = {"type": "line", "x": 0, "y": 0, "d": 0}
    moved = room.submit(Command("action", first.session.id, {"action": line}, first.sink))
    # The same line again, by the player no longer on turn: refused without a log record.
    refused = room.submit(Command("action", second.session.id, {"action": line}, second.sink))
    await asyncio.sleep(0.01)
    assert not moved.done() and not refused.done() and second.messages[seen:] == []
    store.gate.set()
    assert await moved is None and await refused is not None
    kinds = [m["type"] for m in second.messages[seen:]]
    assert kinds[-1] == "error" and "error" not in kinds[:-1] and len(kinds) > 1
    await h.manager.close()


async def test_stop_finishes_the_commands_already_queued() -> None:
    h, store, (first, second) = await _gated_table()
    room = _room(h)
    store.gate.clear()
    chats = [room.submit(Command("chat", c.session.id, {"text": "bye"}, c.sink)) for c in (first, second)]
    stopping = asyncio.create_task(room.stop())
    await asyncio.sleep(0.01)
    assert not stopping.done()
    store.gate.set()
    await stopping
    assert [await c for c in chats] == [None, None]
    assert [r["k"] for r in store.rooms[room.code].log[-2:]] == ["chat", "chat"]


async def test_commands_a_stopping_room_did_not_run_are_not_told_it_closed() -> None:
    """The room is not gone, only leaving this server (a shutdown or a hand-over): a request another
    node forwarded is left unanswered for that node to send on to the next owner, anyone else is asked
    to try again; a command that comes after the stop is answered at once, never left waiting."""
    h, store, (first, second) = await _gated_table()
    room = _room(h)
    store.gate.clear()
    running = room.submit(Command("chat", first.session.id, {"text": "bye"}, first.sink))
    stopping = asyncio.create_task(room.stop())
    await asyncio.sleep(0.01)
    local, forwarded = ListSink(), ListSink(retried=True)
    behind = [
        room.submit(Command("chat", second.session.id, {"text": "late"}, local, request_id=7)),
        room.submit(Command("chat", second.session.id, {"text": "late"}, forwarded, request_id=8)),
    ]
    store.gate.set()
    await stopping
    after = room.submit(Command("chat", second.session.id, {"text": "later"}, local, request_id=9))
    assert await running is None
    assert [await f for f in behind] == ["moved", "moved"]
    assert await asyncio.wait_for(after, 1) == "moved"
    assert [(m["type"], m["code"], m["id"]) for m in local.messages] == [
        ("error", "room_unavailable", 7),
        ("error", "room_unavailable", 9),
    ]
    assert forwarded.messages == []
    assert [r["k"] for r in store.rooms[room.code].log[-1:]] == ["chat"]


async def test_new_settings_unready_the_others_but_not_the_host_who_chose_them(harness: Harness) -> None:
    """The rules changed under the others, so their ready no longer stands; the host, who asked for a
    rematch (which readies) and then changed the settings, still wants to play."""
    clients = await harness.table("dots", 3, {"width": 3, "height": 3})
    room = _room(harness)
    await _act(room, clients, 100)
    assert room.state == "finished"
    host, guest, _ = clients
    await host.do("rematch")
    await guest.do("ready", ready=True)
    assert (await host.do("update_settings", settings={"width": 4, "height": 4}))["type"] == "ok"
    ready = {m.session: m.ready for m in room.players()}
    assert ready[host.session.id] is True
    assert ready[guest.session.id] is False


async def test_a_kicked_seat_is_marked_kicked_in_the_results_and_the_history(harness: Harness) -> None:
    """A seat the host emptied says so ("kicked"); one whose player walked out says only "left"."""
    host, kicked, walker = await harness.table("uno", 3, {"target_score": 0})
    room = _room(harness)
    target = room.member_by_session(kicked.session.id)
    assert target is not None
    assert (await host.do("kick", member=target.id))["type"] == "ok"
    assert (await walker.do("leave"))["type"] == "ok"
    assert room.state == "finished"
    seats = host.last("game_over")["seats"]
    assert [(s["name"], s.get("left"), s.get("kicked")) for s in seats] == [
        ("P0", None, None),
        ("P1", True, True),
        ("P2", True, None),
    ]
    (record,) = harness.store.finished
    players = {p["name"]: p for p in public_players(record)}
    assert players["P1"]["kicked"] is True and "kicked" not in players["P2"]


async def test_a_forwarded_move_sent_again_applies_once_across_a_restart_and_a_checkpoint(
    harness: Harness,
) -> None:
    """A move another node forwarded without waiting (``Command.fid``) may come again once its room has
    moved: the room applies it once, remembers it through a rebuild from the log (its record carries
    the id) and through a checkpoint, and says nothing to the repeat."""
    clients = await harness.table("dots", 2, {"width": 3, "height": 3})
    room = _room(harness)
    seat = room.turn_info()["seat"]
    mover = next(c for c in clients if room.member_by_session(c.session.id).seat == seat)
    action = first_legal(room.engine.view(room.game, seat))

    def move(fid: str, sink: Any = None) -> Command:
        return Command("action", mover.session.id, {"action": action}, sink, 7, fid=fid)

    def answers() -> list[str]:
        return [m["type"] for m in mover.messages if m.get("id") == 7]

    assert await room.submit(move("node-b/1", mover.sink)) is None
    seq = room.seq
    assert answers() == ["ok"]
    assert await room.submit(move("node-b/1", mover.sink)) is None  # again: ignored, unanswered
    assert room.seq == seq and answers() == ["ok"]
    assert [r.get("f") for r in room.records].count("node-b/1") == 1

    again = harness.restarted()
    await again.recover()
    after = again.rooms[room.code]
    assert "node-b/1" in after.forwarded
    assert await after.submit(move("node-b/1")) is None
    assert after.seq == seq
    assert await after.submit(move("node-b/2")) == "not_your_turn"  # another move is handled afresh
    await again.close()

    await _act(room, clients, 100)  # to the end, then back to the waiting room: a checkpoint
    await clients[0].do("rematch")
    assert room.records[0]["k"] == "checkpoint" and "node-b/1" in room.records[0]["p"]["forwarded"]


async def test_a_bot_is_named_for_the_seat_it_takes(harness: Harness) -> None:
    """A two-seat room's only bot was "Bot 3" once a guest had come and gone: bots were numbered by the
    members the room had ever had. Nor does a bot take a name someone here has."""
    harness.manager.bot_factory = lambda room, member: CallbackSink(lambda m: None)
    host, guest = await harness.client("Ada"), await harness.client("Cy")
    await harness.manager.create_room(host.session, host.sink, "r", game="dots", settings={}, capacity=4)
    room = _room(harness)
    room.bot_factory = harness.manager.bot_factory
    await harness.manager.join(guest.session, guest.sink, "r", room.code, None, "player")
    assert (await guest.do("leave"))["type"] == "ok"  # seat 1 free again
    assert (await host.do("add_bot"))["type"] == "ok"
    other = await harness.client("Bot 4")  # a guest may be called so
    await harness.manager.join(other.session, other.sink, "r", room.code, None, "player")
    assert (await host.do("add_bot"))["type"] == "ok"
    assert {m.name: m.seat for m in room.members.values()} == {"Ada": 0, "Bot 2": 1, "Bot 4": 2, "Bot 5": 3}


async def test_a_private_rooms_recent_games_are_listed_only_to_their_players(tmp_path) -> None:
    """A spectator of an unlisted room was listed its games, whose replays then said "not found": they
    open only for their players."""
    from parlour.store import open_store

    store = await open_store(str(tmp_path))  # guest profiles live in a real store
    harness = Harness()
    harness.store, harness.manager = store, Manager(store, harness.timings)  # type: ignore[assignment]
    members = []
    for name in ("Ada", "Bo", "Cy"):
        sink = ListSink()
        session, _, _ = await harness.manager.identify(sink, name, with_profile=True)
        members.append((session, sink))
    (ada, ada_sink), (bo, bo_sink), (cy, cy_sink) = members
    await harness.manager.create_room(ada, ada_sink, "r", game="dots", settings={"width": 3, "height": 3})
    room = _room(harness)
    await harness.manager.join(bo, bo_sink, "r", room.code, None, "player")
    await harness.manager.join(cy, cy_sink, "r", room.code, None, "spectator")
    await harness.manager.command(ada, ada_sink, "r", "start", {})
    await until(lambda: room.state == "playing")
    while room.state == "playing":
        seat = room.turn_info()["seat"]
        session, sink = members[seat]
        action = first_legal(room.engine.view(room.game, seat))
        await harness.manager.command(session, sink, "r", "action", {"action": action})
        await asyncio.sleep(0)
    listed = {s.name: room.snapshot(room.member_by_session(s.id))["recent_games"] for s in (ada, bo, cy)}
    (game,) = room.recent_games
    assert [g["id"] for g in listed["Ada"]] == [g["id"] for g in listed["Bo"]] == [game["id"]]
    assert listed["Cy"] == []
    assert "players" not in listed["Bo"][0]  # who played stays in the room
    await harness.manager.close()
    await store.close()
