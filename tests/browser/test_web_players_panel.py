"""The Players panel beside the table at 1280 × 800 with more people than room: it scrolls within, and
says so by fading the edge with more beyond it (its last row had been cut in half, buttons and all).
The game log below it does the same at its top, where its oldest line in view was cut mid-line."""

from __future__ import annotations

import pytest
from browser_helpers import shots, take_over
from wire import Wire, play_uno_until

pytestmark = pytest.mark.browser

EDGES = "e => [e.classList.contains('more-above'), e.classList.contains('more-below')]"


def test_a_long_players_panel_fades_where_more_rows_are(open_page, server):
    names = ("Hana", "Ivy", "Jon", "Kay", "Lou", "Max", "Ned")
    hana, *others = (Wire(server, name) for name in names)
    settings = {"target_score": 0}
    code = hana.request("create_room", game="uno", settings=settings, capacity=4, spectate=True)["code"]
    players = others[:4]
    for wire in players:
        wire.request("join", code=code)
    for wire in others[4:]:
        wire.request("spectate", code=code)
    hana.request("start")
    for wire in players:
        wire.until(lambda m: m["type"] == "game_started")
    page = open_page("/")
    take_over(page, hana.token, "Hana")  # the host, watching: Make host and Kick on every row
    page.locator(".table-host").wait_for()
    panel = page.locator(".players-panel")
    page.locator("#spectators .member", has_text="Ned").wait_for(state="attached")
    assert panel.evaluate("e => e.scrollHeight > e.clientHeight")  # seven people do not fit beside the table
    assert panel.evaluate(EDGES) == [False, True]
    shots(page, "players-panel-more-below")
    panel.evaluate("e => e.scrollTo(0, e.scrollHeight)")
    page.wait_for_function("document.querySelector('.players-panel').classList.contains('more-above')")
    assert panel.evaluate(EDGES) == [True, False]
    log = page.locator("#game-log")
    lines = len(players[0].log) + 12  # more lines than the log has room for beside the table
    play_uno_until(players, lambda view: len(players[0].log) >= lines)
    page.wait_for_function("document.querySelector('#game-log').classList.contains('more-above')")
    assert log.evaluate(EDGES) == [True, False]  # the newest line is in view, older ones above it
    for wire in others:
        wire.close()
