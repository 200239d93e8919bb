"""UNO in the browser with four people and a spectator, played to the end, then a rematch.

A play-test of the full table: four contexts (four visitors), the spectator sees the end too, the
results list all four, and the room's scoreboard counts the finished game."""

from __future__ import annotations

import pytest
from browser_helpers import PHONE, create_room, drive, join_room, shot, start_game, wait_room
from test_web_uno import uno_step

pytestmark = pytest.mark.browser


# Two whole four-player games by clicking: one to six minutes alone (60 s and 370 s in two runs on
# one idle machine), by how long the cards make the games; CI's two workers can double that, and 600 s
# was once too little. Marked slow, it starts first and runs beside the other browser tests.
@pytest.mark.slow
@pytest.mark.timeout(900)
def test_uno_four_players_and_spectator_to_the_end(open_page):
    pages = [open_page() for _ in range(4)]
    names = ["Ada", "Bartholomew", "Cy", "Dionysia Long"]
    code = create_room(pages[0], names[0], "uno", {"target_score": 0}, capacity=4)
    for page, name in zip(pages[1:], names[1:], strict=True):
        join_room(page, name, code)
    start_game(pages[0], pages)
    for page in pages:
        page.locator('[data-testid="hand"]').wait_for()

    watcher = open_page()
    watcher.fill("#name", "Watcher")
    watcher.fill("#join-code", code)
    watcher.click('#join-form button[type="submit"]')
    wait_room(watcher)
    watcher.locator('[data-testid="top"]').wait_for()
    assert watcher.locator('[data-testid="hand"]').count() == 0

    pages[1].set_viewport_size(PHONE)
    shot(pages[1], "playtest-uno-four-table")

    drive(pages, lambda page: uno_step(page, calls_uno=True, challenges=False), limit=800)
    for page in [*pages, watcher]:
        page.locator(".game-over").wait_for()
    assert pages[0].locator('[data-testid="results"] tbody tr').count() == 4
    assert watcher.locator('[data-testid="results"] tbody tr').count() == 4
    shot(pages[1], "playtest-uno-four-game-over")

    # Rematch: the host asks, the other three accept; the second game's end counts in the scoreboard.
    pages[0].get_by_role("button", name="Rematch").click()
    for page in pages[1:]:
        page.get_by_role("button", name="Accept rematch").click()
    # Once the host's page has every acceptance (until then it reads "Start game (2 not ready)").
    pages[0].get_by_role("button", name="Start game", exact=True).click()
    for page in pages:
        page.locator('[data-testid="hand"]').wait_for()
    drive(pages, lambda page: uno_step(page, calls_uno=True, challenges=False), limit=800)
    for page in [*pages, watcher]:
        page.locator(".game-over").wait_for()
    games = pages[0].locator('[data-testid="scoreboard"] tbody tr td:nth-child(3)').all_inner_texts()
    assert games == ["2", "2", "2", "2"], games
    # UNO's scores add up (its catalog entry says so): the scoreboard sums each player's points.
    heads = pages[0].locator('[data-testid="scoreboard"] th').all_inner_texts()
    assert heads == ["Player", "Wins", "Games", "Points"], heads
    # On a phone both tables stay inside the results panel, long names and all.
    right_of = (
        "p => [...p.querySelectorAll('table')]"
        ".map(t => t.getBoundingClientRect().right - p.getBoundingClientRect().right)"
    )
    overflow = pages[1].locator(".game-over").evaluate(right_of)
    assert len(overflow) == 2 and max(overflow) <= 0, overflow
    shot(pages[1], "playtest-uno-four-second-game-over")
