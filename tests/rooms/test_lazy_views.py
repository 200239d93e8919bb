"""A sink whose ``views`` attribute is false (the ``/dots`` adapter's) gets game views built when read
(``rooms.outbound.LazyView``): the view of the game as it is then, equal to the engine's."""

from __future__ import annotations

from tests.rooms.harness import Harness
from tests.rooms.test_game_log import _dots_table, _move, _seat_sinks


async def test_a_sink_that_reads_few_views_gets_each_built_when_read() -> None:
    harness = Harness()
    room, players = await _dots_table(harness)
    lazy = _seat_sinks(room, log=False, views=False)  # as the /dots adapter's sessions
    for line in sorted(room.game.free)[:6]:
        await _move(harness, room, players, lazy, line)
        for seat, sink in lazy.items():
            view = sink.messages[-1]["view"]
            assert view and dict(view) == room.engine.view(room.game, seat)
            assert view.get("lines") == room.engine.public_view(room.game)["lines"]
