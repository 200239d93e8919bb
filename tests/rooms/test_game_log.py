"""The game log a room keeps (``Outbound.describe``). A recipient that does not take it (a sink whose
``log`` is false: the adapters, the bots) is sent game messages with an empty ``log``; while no
recipient takes an action's entries, the room writes them only once its log is read. Either way the
log is the same: what a snapshot shows, and what a client taking the log is sent, entry for entry."""

from __future__ import annotations

import asyncio
import random
from typing import Any

from tests.rooms.harness import Harness, Inbox, ListSink


async def _dots_table(harness: Harness) -> tuple[Any, list[Inbox]]:
    players = await harness.table("dots", 2, {"width": 4, "height": 4})
    (room,) = (r for r in harness.manager.rooms.values() if r.member_by_session(players[0].session.id))
    return room, players


def _seat_sinks(room: Any, **attributes: bool) -> dict[int, ListSink]:
    """Each seated player's messages go, from now on, to a ``ListSink`` with those ``Sink`` attributes."""
    sinks = {0: ListSink(**attributes), 1: ListSink(**attributes)}
    for seat, sink in sinks.items():
        next(m for m in room.members.values() if m.seat == seat).sink = sink
    return sinks


async def _move(harness: Harness, room: Any, players: list[Inbox], sinks: dict[int, Any], line: int) -> None:
    """The seat on turn draws ``line``, through the sink its member has now."""
    seat = room.engine.to_act(room.game)[0]
    actor = next(p for p in players if room.game_seat(room.member_by_session(p.session.id)) == seat)
    sink = sinks.get(seat, actor.sink)
    before = room.seq
    action = {"type": "line", "line": line}
    await harness.manager.command(actor.session, sink, None, "action", {"action": action})
    for _ in range(1000):
        if room.seq != before:
            return
        await asyncio.sleep(0)
    raise AssertionError(f"line {line} was not played")


async def test_a_log_nobody_takes_is_written_when_read_and_equals_the_one_sent() -> None:
    harness = Harness()
    quiet, quiet_players = await _dots_table(harness)
    told, told_players = await _dots_table(harness)
    # In the first room both players' messages go to sinks that do not take the log.
    logless = _seat_sinks(quiet, log=False)
    rng = random.Random(3)
    lines = list(quiet.game.free)
    rng.shuffle(lines)
    for line in lines[:10]:
        await _move(harness, quiet, quiet_players, logless, line)
        await _move(harness, told, told_players, {}, line)
    sent = [e for m in told_players[0].messages if m["type"] in ("game_started", "game") for e in m["log"]]
    assert len(sent) >= 10 and [e["n"] for e in sent] == list(range(len(sent)))
    for sink in logless.values():
        games = [m for m in sink.messages if m["type"] == "game"]
        assert len(games) == 10 and all(not m["log"] for m in games)
    assert quiet._log_later  # not written yet: nobody took those entries

    # A spectator joins: its snapshot shows the whole log so far, and its game messages carry the rest.
    watcher = await harness.client("Watcher")
    code = quiet_players[0].last("room")["code"]
    await harness.manager.join(watcher.session, watcher.sink, "r", code, None, "spectator")
    assert watcher.last("room")["table"]["log"] == sent
    for line in lines[10:14]:
        await _move(harness, quiet, quiet_players, logless, line)
        await _move(harness, told, told_players, {}, line)
    every = [e for m in told_players[0].messages if m["type"] in ("game_started", "game") for e in m["log"]]
    watched = [e for m in watcher.messages if m["type"] == "game" for e in m["log"]]
    assert watched and watched == every[len(sent) :]
    assert list(quiet.table_log) == list(told.table_log) == sent + watched
    assert quiet.table_log_count == told.table_log_count == len(sent) + len(watched)


async def test_a_recovered_room_shows_the_log_it_had() -> None:
    harness = Harness()
    room, players = await _dots_table(harness)
    logless = _seat_sinks(room, log=False)
    for line in sorted(room.game.free)[:9]:
        await _move(harness, room, players, logless, line)
    again = harness.restarted()
    await again.recover()
    after = again.rooms[room.code]
    assert after._log_later  # replay writes no entries; reading the log does
    expected = list(room.table_log)
    assert len(expected) >= 9
    back = Inbox(again, players[0].session, players[0].token)
    await again.reattach(await again.resume(back.sink, players[0].token))
    assert back.last("room")["table"]["log"] == expected
    await again.close()
