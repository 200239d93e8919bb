"""A sink whose ``views`` attribute is false (the ``/dots`` adapter's) gets game views built when read
(``rooms.outbound.LazyView``): the view of the game as it is then, equal to the engine's."""

from __future__ import annotations

from tests.rooms.harness import Harness
from tests.rooms.test_game_log import LoglessSink, _dots_table, _move


class ViewlessSink(LoglessSink):
    """A plain sink that, like the ``/dots`` adapter's, reads few game views (``Sink.views``)."""

    views = False


async def test_a_sink_that_reads_few_views_gets_each_built_when_read() -> None:
    harness = Harness()
    room, players = await _dots_table(harness)
    lazy = {0: ViewlessSink(), 1: ViewlessSink()}
    for seat, sink in lazy.items():
        next(m for m in room.members.values() if m.seat == seat).sink = sink
    for line in sorted(room.game.free)[:6]:
        await _move(harness, room, players, lazy, line)
        for seat, sink in lazy.items():
            view = sink.messages[-1]["view"]
            assert view and dict(view) == room.engine.view(room.game, seat)
            assert view.get("lines") == room.engine.public_view(room.game)["lines"]
