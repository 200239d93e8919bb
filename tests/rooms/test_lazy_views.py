"""A sink whose ``views`` attribute is false (the ``/dots`` adapter's) gets game views built when read
(``rooms.outbound.LazyView``), readable only while they show committed state: the game as it was made
for, or any game of a room with no command between its change and its commit (``RoomActor.settled``)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from parlour.rooms import Manager, Timings
from parlour.rooms.outbound import LazyView
from tests.rooms.harness import GatedStore, Harness, Inbox, ListSink, until


async def _table() -> tuple[GatedStore, Manager, Any, list[Inbox], dict[int, ListSink]]:
    harness = Harness(Timings(ready_countdown=0.05, quick_play_countdown=0.05, grace=0.05))
    store = harness.store = GatedStore()
    harness.manager = Manager(store, harness.timings)  # type: ignore[arg-type]
    players = await harness.table("dots", 2, {"width": 4, "height": 4})
    (room,) = harness.manager.rooms.values()
    sinks = {0: ListSink(views=False, log=False), 1: ListSink(views=False, log=False)}
    for seat, sink in sinks.items():
        next(m for m in room.members.values() if m.seat == seat).sink = sink
    return store, harness.manager, room, players, sinks


async def _play(
    manager: Manager, room: Any, players: list[Inbox], sinks: dict[int, ListSink], line: int
) -> None:
    """The seat on turn draws ``line`` (queued; the room runs it up to its append at once)."""
    seat = room.engine.to_act(room.game)[0]
    member = next(m for m in room.members.values() if m.seat == seat)
    actor = next(p for p in players if p.session.id == member.session)
    await manager.command(
        actor.session, sinks[seat], None, "action", {"action": {"type": "line", "line": line}}
    )


async def test_lazy_views_equal_the_engines_and_wait_for_the_commit_of_a_later_change() -> None:
    store, manager, room, players, sinks = await _table()
    game = room.game
    engine = room.engine
    lines = sorted(game.free)
    await _play(manager, room, players, sinks, lines[0])
    await until(lambda: room.settled, "the room settling")
    view = sinks[0].messages[-1]["view"]
    assert type(view) is LazyView and view.ready
    expected = engine.view(game, 0)

    store.hold()  # the next move is applied, then waits for its commit
    await _play(manager, room, players, sinks, lines[1])
    await until(lambda: store.waiting, "an append held")
    assert not room.settled and not view.ready
    with pytest.raises(RuntimeError):
        view["lines"]
    ran: list[int] = []
    view.when_ready(lambda: ran.append(len(sinks[0].messages)))
    delivered = len(sinks[0].messages)
    await asyncio.sleep(0)
    assert not ran
    store.release()
    await until(lambda: room.settled, "the room settling")
    # Called once the move's messages were delivered, before anything else ran in the room.
    assert ran == [delivered + 1]
    assert view.ready and dict(view) == engine.view(room.game, 0) != expected
    latest = sinks[0].messages[-1]["view"]
    assert dict(latest) == engine.view(room.game, 0)


async def test_a_view_read_while_an_unrelated_command_commits_is_built_at_once() -> None:
    store, manager, room, players, sinks = await _table()
    await _play(manager, room, players, sinks, sorted(room.game.free)[0])
    await until(lambda: room.settled, "the room settling")
    view = sinks[1].messages[-1]["view"]
    store.hold()
    chat = asyncio.ensure_future(
        manager.command(players[0].session, players[0].sink, "c", "chat", {"text": "hi"})
    )
    await until(lambda: store.waiting, "an append held")
    assert not room.settled and view.ready  # the game did not change
    assert dict(view) == room.engine.view(room.game, 1)
    store.release()
    await chat


async def test_after_a_failed_commit_a_view_shows_the_rebuilt_game() -> None:
    store, manager, room, players, sinks = await _table()
    lines = sorted(room.game.free)
    await _play(manager, room, players, sinks, lines[0])
    await until(lambda: room.settled, "the room settling")
    view = sinks[0].messages[-1]["view"]
    store.hold()
    await _play(manager, room, players, sinks, lines[1])
    await until(lambda: store.waiting, "an append held")
    assert not view.ready
    store.fail()
    await until(lambda: room.settled, "the room settling")
    assert view.ready and room.game is not view._game  # rebuilt from the log
    assert len(view["lines"]) == 1
