"""Quick play is atomic per game: simultaneous requests fill one room before opening the next."""

from __future__ import annotations

import asyncio

import pytest

from parlour.rooms import Timings
from tests.rooms.harness import Harness


@pytest.mark.parametrize(("game", "players"), [("uno", 23), ("cheat", 9), ("dots", 5)])
async def test_simultaneous_quick_plays_land_in_the_fewest_rooms(game: str, players: int) -> None:
    # A long countdown: every join is handled before any game could start.
    harness = Harness(Timings(quick_play_countdown=30))
    clients = [await harness.client(f"Q{i}") for i in range(players)]
    await asyncio.gather(*(harness.manager.quick_play(c.session, c.sink, "q", game) for c in clients))
    replies = [next(m for m in c.messages if m.get("id") == "q") for c in clients]
    assert [r["type"] for r in replies] == ["room"] * players, [r for r in replies if r["type"] != "room"]
    rooms = list(harness.manager.rooms.values())
    capacity = rooms[0].capacity
    sizes = sorted((len(r.players()) for r in rooms), reverse=True)
    full, rest = divmod(players, capacity)
    assert sizes == [capacity] * full + ([rest] if rest else [])
    assert {harness.manager.session_rooms[c.session.id].code for c in clients} == {r.code for r in rooms}
    assert harness.manager._quick_pending == {}
    await harness.manager.close()


async def test_quick_play_for_an_unknown_game_is_refused(harness: Harness) -> None:
    from parlour.rooms import CommandError

    client = await harness.client("Q")
    with pytest.raises(CommandError) as refused:
        await harness.manager.quick_play(client.session, client.sink, "q", "chess")
    assert refused.value.code == "unknown_game" and not harness.manager._quick_locks


@pytest.mark.parametrize(("game", "settings"), [("uno", {"round_break": 10}), ("dots", {})])
async def test_a_quick_play_room_starts_with_the_rules_a_new_room_starts_with(
    harness: Harness, game: str, settings: dict[str, int]
) -> None:
    """Quick play's room is a person's, as the web form's is: UNO pauses between rounds (a room that
    leaves the setting out, as the API's and every older game's, does not)."""
    client = await harness.client("Q")
    await harness.manager.quick_play(client.session, client.sink, "q", game)
    (room,) = harness.manager.rooms.values()
    assert room.settings_raw == settings and client.last("room")["settings"] == settings
    await harness.manager.close()


async def test_a_full_quick_play_table_starts_on_the_ready_clock() -> None:
    """Quick play's clock waits for more players; once every seat is taken there is nobody left to
    wait for: two in a Connect Four room sat through the 30 s told more might still join."""
    harness = Harness(Timings(quick_play_countdown=30, ready_countdown=2))
    uno = [await harness.client(f"U{i}") for i in range(2)]
    for client in uno:
        await harness.manager.quick_play(client.session, client.sink, "q", "uno")
    waiting = uno[0].last("countdown")
    assert waiting["kind"] == "quick_play" and waiting["remaining"] == 30  # two of UNO's seats: more may come
    four = [await harness.client(f"C{i}") for i in range(2)]
    for client in four:
        await harness.manager.quick_play(client.session, client.sink, "q", "connect_four")
    full = four[0].last("countdown")
    assert full["kind"] == "quick_play" and full["remaining"] == 2
    await harness.manager.close()
