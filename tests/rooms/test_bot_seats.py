"""Bots in rooms through the server's hook: a human and bots play whole games in-process."""

from __future__ import annotations

import asyncio
import itertools
import time
from types import SimpleNamespace
from typing import Any

import pytest

from parlour.rooms import CallbackSink, Command, Room
from parlour.rooms import bot_seats as driver
from parlour.rooms.game_record import steps as game_steps
from parlour.rooms.replay import Replay
from tests.rooms.harness import Harness, Inbox
from tests.server.client import first_legal

NO_DELAY = driver.bot_factory((0.0, 0.0))


async def _play_with_bots(game: str, settings: dict[str, Any], levels: list[str]) -> Room:
    harness = Harness()
    harness.manager.bot_factory = NO_DELAY
    human = await harness.client("Human")
    await harness.manager.create_room(
        human.session, human.sink, "r", game=game, settings=settings, capacity=len(levels) + 1
    )
    (room,) = harness.manager.rooms.values()
    for level in levels:
        assert (await human.do("add_bot", level=level))["type"] == "ok"
    assert (await human.do("ready", ready=True))["type"] == "ok"
    for _ in range(20_000):
        if room.state == "finished":
            break
        seat = room.game_seat(room.member_by_session(human.session.id)) if room.game is not None else None
        if room.state == "playing" and room.turn and room.turn[0] == seat and seat is not None:
            view = room.engine.view(room.game, seat)
            await human.do("action", action=first_legal(view))
        await asyncio.sleep(0.001)
    state = room.state
    await harness.manager.close()
    assert state == "finished", f"{game} did not finish"
    return room


@pytest.mark.parametrize(
    ("game", "settings", "levels"),
    [
        ("dots", {"width": 4, "height": 4}, ["hard"]),
        ("uno", {"target_score": 0, "jump_in": True}, ["hard", "easy"]),
        ("cheat", {}, ["hard", "easy"]),
    ],
)
async def test_a_human_and_bots_play_to_the_end(
    game: str, settings: dict[str, Any], levels: list[str]
) -> None:
    room = await _play_with_bots(game, settings, levels)
    assert room.outcome is not None and room.outcome["reason"] == "finished"
    assert sum(1 for r in room.game_log if r["k"] == "action" and str(r["s"]).startswith("bot:")) > 0


def test_unknown_levels_fall_back_to_easy() -> None:
    member = SimpleNamespace(bot=True, bot_options={"level": "grandmaster"})
    d = driver.BotDriver(SimpleNamespace(game_name="dots"), member, command=None)
    assert d._ensure_bot(0).level == "easy"


def test_a_bot_standing_in_for_a_player_plays_hard() -> None:
    """A takeover plays a human member, who has no bot level: their hand is played as well as it can be."""
    for game in ("uno", "cheat", "dots"):
        member = SimpleNamespace(bot=False, bot_options={})
        d = driver.BotDriver(SimpleNamespace(game_name=game), member, command=None)
        assert d._ensure_bot(0).level == "hard"


async def test_a_driver_can_play_a_humans_seat_mid_game() -> None:
    """The takeover mechanism: a driver attached to a human member mid-game plays it to the end."""
    harness = Harness()
    clients = await harness.table("uno", 2, {"target_score": 0})
    (room,) = harness.manager.rooms.values()
    away = room.member_by_session(clients[1].session.id)
    away.sink = driver.BotDriver(room, away, Command)
    away.sink.send(room.snapshot(away))
    me = room.member_by_session(clients[0].session.id)
    for _ in range(5000):
        if room.state != "playing":
            break
        seat = room.game_seat(me)
        if room.turn and room.turn[0] == seat:
            await clients[0].do("action", action=first_legal(room.engine.view(room.game, seat)))
        await asyncio.sleep(0.001)
    assert room.state == "finished"
    takeover = [r for r in room.game_log if r["k"] == "action" and r["s"] == clients[1].session.id]
    # Sent in the wire form (a human's seat may not skip it), logged as the engine's action.
    assert takeover and all(set(r["p"]) == {"engine_action"} for r in takeover)
    await harness.manager.close()


# --- takeover: a bot plays a dropped player's seat once the grace period runs out ----------------


async def _takeover_table(harness: Harness, bots_take_over: bool = True) -> tuple[Room, list[Any]]:
    """A started two-player UNO game with bots installed; the second player's connection drops."""
    harness.manager.bot_factory = NO_DELAY
    clients = await harness.table("uno", 2, {"target_score": 0})
    (room,) = harness.manager.rooms.values()
    if not bots_take_over:
        room.bots_take_over = False
    harness.manager.connection_lost(clients[1].session, clients[1].sink)
    return room, clients


async def _until(check: Any, steps: int = 2000) -> None:
    for _ in range(steps):
        if check():
            return
        await asyncio.sleep(0.002)
    raise AssertionError("condition never held")


async def _play_seat(room: Room, client: Any, until: Any = None) -> None:
    """``client`` plays its seat until the game ends (or ``until()`` holds)."""
    for _ in range(20_000):
        if room.state != "playing" or (until is not None and until()):
            return
        member = room.member_by_session(client.session.id)
        seat = room.game_seat(member) if member is not None else None
        if seat is not None and room.turn and room.turn[0] == seat:
            await client.do("action", action=first_legal(room.engine.view(room.game, seat)))
        await asyncio.sleep(0.001)
    raise AssertionError("the game did not finish")


def _seat_actions(room: Room, session: str, after: int = 0) -> int:
    return sum(1 for r in room.game_log[after:] if r["k"] == "action" and r["s"] == session)


async def test_a_bot_takes_over_a_dropped_seat_and_plays_to_the_end() -> None:
    harness = Harness()
    room, (me, away) = await _takeover_table(harness)
    member = room.member_by_session(away.session.id)
    await _until(lambda: member.replaced)
    takeover = next(r for r in room.game_log if r["k"] == "timer" and r["p"].get("takeover"))
    assert takeover["p"]["name"] == f"grace:{member.id}"
    assert member.id not in room.grace and isinstance(member.sink, driver.BotDriver)
    stand_in = member.sink
    update = me.last("member_updated")["member"]
    assert update["id"] == member.id and update["replaced"] is True and update["connected"] is False
    await _play_seat(room, me)
    assert room.state == "finished" and room.outcome["reason"] == "finished"
    assert _seat_actions(room, away.session.id, room.game_log.index(takeover)) > 0
    assert stand_in.bot is not None and stand_in.bot.level == "hard"
    # The game is over: the seat given up when grace ran out is gone now, as the leave rule would have it.
    assert member.id not in room.members and me.last("member_left") == {
        "type": "member_left",
        "member": member.id,
        "reason": "timeout",
    }
    assert away.session.id not in harness.manager.session_rooms and member.sink is None
    await harness.manager.close()


async def test_back_after_a_bot_finished_their_game_a_player_sees_its_results_and_keeps_their_line() -> None:
    """The seat a bot played to the end is given up then: the player, back while the results are up, is
    told their seat was lost (the page shows them the results, not a newcomer's waiting room); the rematch
    counts on their old scoreboard line, not on a second line under the same name."""
    harness = Harness()
    room, (me, away) = await _takeover_table(harness)
    member = room.member_by_session(away.session.id)
    await _until(lambda: member.replaced)
    await _play_seat(room, me)
    assert room.state == "finished" and member.id not in room.members
    await harness.manager.join(away.session, away.sink, "back", room.code, None, "player")
    snapshot = next(m for m in away.messages if m.get("id") == "back")
    assert snapshot["type"] == "room" and snapshot["state"] == "finished" and snapshot["seat_lost"] is True
    # and that a bot played it to the end (the results say "a bot stood in"; "given up" alone contradicted it)
    assert snapshot["played_by_bot"] is True
    again = room.member_by_session(away.session.id)
    assert again.id != member.id
    assert [(line["member"], line["games"]) for line in snapshot["scoreboard"] if line["name"] == "P1"] == [
        (again.id, 1)
    ]
    assert all("session" not in line for line in snapshot["scoreboard"])
    await me.do("rematch")
    await away.do("ready", ready=True)
    await _until(lambda: room.state == "playing")
    for _ in range(20_000):
        if room.state != "playing":
            break
        seat = room.turn[0] if room.turn else None
        client = me if seat == room.game_seat(room.member_by_session(me.session.id)) else away
        if seat is not None:
            await client.do("action", action=first_legal(room.engine.view(room.game, seat)))
        await asyncio.sleep(0)
    board = me.last("game_over")["scoreboard"]
    assert sorted((line["name"], line["games"]) for line in board) == [("P0", 2), ("P1", 2)]
    await harness.manager.close()


async def test_resuming_before_the_end_hands_the_seat_back() -> None:
    harness = Harness()
    room, (me, away) = await _takeover_table(harness)
    member = room.member_by_session(away.session.id)
    await _until(lambda: member.replaced)
    bot = member.sink
    mark = len(room.game_log)
    await _play_seat(room, me, until=lambda: _seat_actions(room, away.session.id, mark) > 0)
    assert room.state == "playing", "the bot should have moved before the game ended"
    # The table's log marks the bot's moves for the seat, and only those; the others are sent them so.
    seat = room.game_seat(member)
    by_bot = [e for e in room.table_log if e.get("by_bot")]
    assert by_bot and {e["seat"] for e in by_bot} == {seat} and all(e["by_bot"] is True for e in by_bot)
    sent_marked = [e for m in me.messages if m["type"] == "game" for e in m["log"] if e.get("by_bot")]
    assert sent_marked and [e["n"] for e in sent_marked] == [e["n"] for e in by_bot]
    logged = room.table_log_count

    back = Inbox(harness.manager, away.session, away.token)
    await harness.manager.resume(back.sink, away.token)
    await harness.manager.reattach(away.session)
    snapshot = back.last("room")
    assert snapshot["you"]["member"] == member.id and snapshot["table"]["view"]["hand"]
    assert not member.replaced and member.connected and member.sink is back.sink and bot.closed
    assert me.last("member_updated")["member"] == {**member.public(room.host)}

    # The human plays the seat again: every later move of that seat is one we sent.
    sent = 0

    async def human_turns() -> None:
        nonlocal sent
        for _ in range(20_000):
            if room.state != "playing":
                return
            seat = room.game_seat(member)
            if room.turn and room.turn[0] == seat:
                reply = await back.do("action", action=first_legal(room.engine.view(room.game, seat)))
                sent += reply["type"] == "ok"
            await asyncio.sleep(0.001)

    resumed_at = len(room.game_log)
    await asyncio.gather(human_turns(), _play_seat(room, me))
    assert room.state == "finished" and member.id in room.members
    assert not any(e.get("by_bot") for e in room.table_log if e["n"] >= logged)  # the human's own moves
    assert _seat_actions(room, away.session.id, resumed_at) == sent

    # The game's record says so too: its steps and its replay's log mark the same moves as the table did.
    record = await harness.store.game(me.last("game_over")["game_id"])
    assert record is not None
    marked_steps = [s for s in game_steps(record) if s.get("by_bot")]
    assert marked_steps and {s["seat"] for s in marked_steps} == {seat}
    live = [(e["n"], e["text"], e.get("by_bot", False)) for e in room.table_log]  # its latest 200
    replayed = [(e["n"], e["text"], e.get("by_bot", False)) for e in Replay(record).log]
    assert replayed[-len(live) :] == live
    assert {n for n, _, bot in replayed if bot} >= {e["n"] for e in by_bot}
    await harness.manager.close()


async def test_a_takeover_survives_a_restart() -> None:
    """The takeover is a logged timer command: replay restores it and a fresh driver plays on."""
    harness = Harness()
    room, (me, away) = await _takeover_table(harness)
    member = room.member_by_session(away.session.id)
    await _until(lambda: member.replaced)
    await harness.manager.close()

    again = harness.restarted()
    again.bot_factory = NO_DELAY
    await again.recover()
    after = again.rooms[room.code]
    replaced = after.member_by_session(away.session.id)
    assert replaced.replaced and isinstance(replaced.sink, driver.BotDriver)
    assert after.engine.view(after.game, 0) == room.engine.view(room.game, 0)
    back = Inbox(again, me.session, me.token)
    await again.resume(back.sink, me.token)
    await again.reattach(me.session)
    mark = len(after.game_log)
    await _play_seat(after, back)
    assert after.state == "finished" and _seat_actions(after, away.session.id, mark) > 0
    await again.close()


async def test_with_takeover_off_the_leave_rule_applies() -> None:
    harness = Harness()
    room, (me, _away) = await _takeover_table(harness, bots_take_over=False)
    await _until(lambda: room.state != "playing")
    assert me.last("member_left")["reason"] == "timeout"
    assert room.outcome["winners"] == [0]
    timer = next(r for r in room.game_log if r["k"] == "timer")
    assert timer["p"]["takeover"] is False
    await harness.manager.close()


async def test_bots_take_over_is_a_room_setting(harness: Harness) -> None:
    host = await harness.client("Host")
    await harness.manager.create_room(host.session, host.sink, "r", game="dots", bots_take_over=False)
    assert host.last("room")["bots_take_over"] is False
    assert (await host.do("update_settings", bots_take_over=True))["type"] == "ok"
    assert host.last("settings_changed")["bots_take_over"] is True
    (room,) = harness.manager.rooms.values()
    assert room.checkpoint()["bots_take_over"] is True


async def test_a_takeover_move_still_on_its_way_when_the_human_returns_is_ignored() -> None:
    """The bot may have chosen a move (in its worker thread) just before its human came back: once the
    seat is handed back, that move no longer speaks for the seat."""
    harness = Harness()
    clients = await harness.table("uno", 2, {"target_score": 0})
    (room,) = harness.manager.rooms.values()
    away = room.member_by_session(clients[1].session.id)
    bot = driver.BotDriver(room, away, Command)
    away.sink = bot  # the seat is being played by a bot ...
    seat = room.game_seat(away)
    away.sink = clients[1].sink  # ... and its human is back before the bot's move is handled
    while room.turn[0] != seat:
        mine = room.game_seat(room.member_by_session(clients[0].session.id))
        await clients[0].do("action", action=first_legal(room.engine.view(room.game, mine)))
    before = (room.seq, len(room.records))
    move = room.engine.format_action(room.engine.legal_actions(room.game, seat)[0])
    await room.submit(Command("action", away.session, {"action": move}, bot))
    assert (room.seq, len(room.records)) == before, "the stale move changed nothing"
    reply = await clients[1].do("action", action=move)  # the human's own move is taken
    assert reply["type"] == "ok" and room.seq == before[0] + 1
    await harness.manager.close()


async def test_with_every_player_away_nobody_moves_for_them_until_one_is_back() -> None:
    """Four bots had played a match out alone for a quarter of an hour, every person gone, and its result
    counted. With every seated person away, neither the bots nor the turn clock move for them; one back,
    the seat on turn gets its clock in full, everyone is sent it, and the bots play on."""
    harness = Harness()
    harness.manager.bot_factory = NO_DELAY
    me, other = await harness.table("uno", 2, {"target_score": 0, "turn_timer": 30})
    (room,) = harness.manager.rooms.values()
    watcher = await harness.client("W")
    await harness.manager.join(watcher.session, watcher.sink, "w", room.code, None, "spectator")
    seq = room.seq
    for client in (other, me):
        harness.manager.connection_lost(client.session, client.sink)
    assert room.all_away and room.turn_info() == {
        "seat": room.turn[0],
        "deadline": None,
        "remaining": None,
        "away": True,
    }
    assert "turn" not in room._deadlines()  # the clock stopped
    assert watcher.last("room")["table"]["turn"]["away"] is True  # and the spectator was told
    seated = [room.member_by_session(c.session.id) for c in (me, other)]
    await _until(lambda: all(m.replaced for m in seated))  # their grace ran out: a bot holds each seat
    await asyncio.sleep(0.05)
    assert room.seq == seq and room.state == "playing"  # and neither bot moved

    back = Inbox(harness.manager, me.session, me.token)
    await harness.manager.resume(back.sink, me.token)
    await harness.manager.reattach(me.session)
    assert not room.all_away and "turn" in room._deadlines()
    assert abs(room.turn[1] - (time.time() + 30)) < 1  # in full
    assert "away" not in watcher.last("room")["table"]["turn"]
    await _play_seat(room, back)  # the other seat's bot plays on, to the end
    assert room.state == "finished"
    await harness.manager.close()


async def test_a_bot_thinks_from_the_tables_last_change_so_every_card_stays_up_to_be_seen() -> None:
    """Two bots in a row: the second one's wait had begun with the first one's turn, so it played
    the moment the first one's card landed (a card seen for 15 ms). Each bot move now comes at least
    its thinking time after the message before it."""
    harness = Harness()
    harness.manager.bot_factory = driver.bot_factory((0.05, 0.3))
    human = await harness.client("Human")
    stamped: list[tuple[float, dict[str, Any]]] = []
    human.sink = CallbackSink(lambda m: stamped.append((time.monotonic(), m)))
    human.session.sink = human.sink
    await harness.manager.create_room(
        human.session, human.sink, "r", game="uno", settings={"target_score": 0}, capacity=3
    )
    (room,) = harness.manager.rooms.values()
    for _ in range(2):
        await harness.manager.command(human.session, human.sink, "r", "add_bot", {"level": "easy"})
    await harness.manager.command(human.session, human.sink, "r", "start", {})
    bot_seats = set()
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and room.state != "finished":
        seat = room.game_seat(room.member_by_session(human.session.id)) if room.game is not None else None
        bot_seats = {s for s in range(3) if s != seat}
        if room.state == "playing" and room.turn and room.turn[0] == seat and seat is not None:
            view = room.engine.view(room.game, seat)
            action = {"action": first_legal(view)}
            await harness.manager.command(human.session, human.sink, "r", "action", action)
        await asyncio.sleep(0.01)
        if sum(1 for _, m in stamped if m["type"] == "game") > 40:
            break
    await harness.manager.close()
    games = [(at, m) for at, m in stamped if m["type"] in ("game", "game_started")]
    gaps = [
        at - before
        for (before, _), (at, message) in itertools.pairwise(games)
        if any(e.get("type") == "play" and e.get("seat") in bot_seats for e in message["events"])
        and not any(e.get("type") == "play" and e.get("seat") not in bot_seats for e in message["events"])
    ]
    assert len(gaps) >= 10, gaps
    assert min(gaps) >= 0.045, sorted(gaps)[:5]


@pytest.mark.parametrize("how", ["leave", "kick", "timeout"])
async def test_once_every_seated_person_is_gone_the_bots_do_not_play_on_for_the_spectators(how: str) -> None:
    """Two people and two host-added bots; a spectator watches. The first person to go leaves the game
    to the other and the bots; once the last is gone (left, kicked by the host watching, or timed out
    with takeover off), the game ends for everyone, counting for nobody, and the room stays open."""
    harness = Harness()
    harness.manager.bot_factory = NO_DELAY
    host, ada, bo = [await harness.client(n) for n in ("Host", "Ada", "Bo")]
    await harness.manager.create_room(
        host.session,
        host.sink,
        "r",
        game="uno",
        settings={"target_score": 0},
        capacity=4,
        spectate=True,
        bots_take_over=False,
    )
    (room,) = harness.manager.rooms.values()
    for client in (ada, bo):
        await harness.manager.join(client.session, client.sink, "r", room.code, None, "player")
    for _ in range(2):
        assert (await host.do("add_bot", level="easy"))["type"] == "ok"
    assert (await host.do("start"))["type"] == "ok"
    assert room.state == "playing"

    assert (await ada.do("leave"))["type"] == "ok"
    assert room.state == "playing"  # Bo and the bots play on
    if how == "leave":
        assert (await bo.do("leave"))["type"] == "ok"
    elif how == "kick":
        bo_id = room.member_by_session(bo.session.id).id
        assert (await host.do("kick", member=bo_id))["type"] == "ok"
    else:
        harness.manager.connection_lost(bo.session, bo.sink)
        await _until(lambda: room.member_by_session(bo.session.id) is None)
    assert room.state == "finished" and room.turn is None
    over = host.last("game_over")
    assert over["outcome"] == {"winners": [], "scores": {}, "reason": "deserted", "tie": False}
    assert all(line["games"] == 0 for line in over["scoreboard"])  # it counts for nobody
    assert room.recent_games[-1]["reason"] == "deserted"
    seq = room.seq
    await asyncio.sleep(0.05)
    assert room.seq == seq  # no bot moved after it
    assert room.state == "finished" and room.code in harness.manager.rooms  # still open for the spectator
    await harness.manager.close()

    again = harness.restarted()  # and a restart brings back the same end
    again.bot_factory = NO_DELAY
    await again.recover()
    after = again.rooms[room.code]
    assert after.state == "finished" and after.outcome == over["outcome"]
    await again.close()
