"""UNO in the browser: two players and a spectator play one round by clicking, with a reload mid-game."""

from __future__ import annotations

import re

import pytest
from browser_helpers import (
    click_if_still_there,
    create_room,
    drive,
    hand_ids,
    join_room,
    seq,
    shot,
    shots,
    start_game,
    wait_room,
    wait_seq,
)

pytestmark = pytest.mark.browser
SEEN_DIALOGS: set[str] = set()


# What a player may click, in the order they would think of it: a CSS selector, and the words the
# button must show (or None). One look at the page finds the first that is there (a look per control
# made a four-player game's test several minutes long).
FIRST_OF = """(options) => options.findIndex(([sel, words]) =>
    [...document.querySelectorAll(sel)].some((e) => words === null || e.textContent.includes(words)))"""
PLAYABLE = '[data-testid="hand"] button.playable'
# The colour with the most cards in the hand (naming the same colour every time, whatever one holds,
# made four-player games run to hundreds of moves of drawing).
MOST_HELD = """() => ['red', 'yellow', 'green', 'blue']
    .map((c) => [c, document.querySelectorAll(`[data-testid="hand"] .ucard.${c}`).length])
    .reduce((best, next) => (next[1] > best[1] ? next : best))[0]"""


def uno_step(page, *, calls_uno: bool, challenges: bool) -> bool:
    """One move for this player, decided from what the table offers (never from the rules)."""
    options = [
        ('[data-testid="uno"]:not([disabled]):not([aria-pressed])', None) if calls_uno else None,
        ('[data-testid="catch"]', None),
        (".controls button", "Challenge!" if challenges else "Accept"),
        (PLAYABLE, None),
        ('[data-testid="pass"]', None),
        ('button[data-testid="draw"]', None),
    ]
    offered = [option for option in options if option]
    found = page.evaluate(FIRST_OF, offered)
    if found < 0:
        return False
    selector, words = offered[found]
    # No wait for a navigation after the click (a move never navigates): a third of a click's time.
    if not click_if_still_there(page.locator(selector, has_text=words)):
        return False
    dialog = page.locator("dialog[open]")
    if selector == PLAYABLE and dialog.count():  # a Wild's colour, or a Seven Swap target
        title = dialog.locator("#dialog-title").inner_text()
        if title not in SEEN_DIALOGS:
            SEEN_DIALOGS.add(title)
            shot(page, "uno-dialog-" + title.split()[0].lower())
        if title == "Choose a colour":  # the colour this player holds most, as a person would name
            dialog.locator(f"#dialog-buttons .colour-pick.{page.evaluate(MOST_HELD)}").click()
        else:
            dialog.locator("#dialog-buttons button").first.click()
    return True


def test_uno_round_with_reload_and_spectator(open_page):
    ada, bo = open_page(), open_page()
    code = create_room(
        ada, "Ada", "uno", {"target_score": 0, "seven_swap": True, "jump_in": True}, capacity=2
    )
    join_room(bo, "Bo", code)
    shots(ada, "uno-waiting-room")
    start_game(ada, [ada, bo])

    sizes = []
    for page in (ada, bo):
        page.locator('[data-testid="hand"]').wait_for()
        sizes.append(len(hand_ids(page)))
        ids = [int(i) for i in hand_ids(page)]
        assert ids == sorted(ids), "hand sorted by colour, then value"
    # Seven each; a Draw Two turned up as the first card makes the first player draw two at once.
    assert sorted(sizes) in ([7, 7], [7, 9]), sizes
    on_turn = (
        ada if ada.locator('[data-testid="hand"] button.playable, button[data-testid="draw"]').count() else bo
    )
    shots(on_turn, "uno-table")

    watcher = open_page()
    watcher.fill("#name", "Watcher")
    watcher.fill("#join-code", code)
    watcher.click('#join-form button[type="submit"]')  # a game is running: joining turns into watching
    wait_room(watcher)
    watcher.locator('[data-testid="top"]').wait_for()
    assert watcher.locator('[data-testid="hand"]').count() == 0
    assert watcher.locator('[data-testid="uno"]').count() == 0
    assert "you" in watcher.locator("#spectators").inner_text()
    shots(watcher, "uno-spectator")
    # What a screen reader finds on the table: the card to match, each player's count, the direction
    # (labels on plain elements were dropped from the accessibility tree before they had a role).
    tree = watcher.locator(".uno-table").aria_snapshot()
    top = watcher.locator('[data-testid="top"]').get_attribute("aria-label")
    assert f'img "{top}"' in tree, tree
    assert re.search(r'img "\d+ cards?"', tree), tree
    assert re.search(r'img "Play goes (counter-)?clockwise"', tree), tree
    assert re.search(r'img "Draw pile, \d+ cards"', tree), tree

    def step(page) -> bool:
        return uno_step(page, calls_uno=page is ada, challenges=page is bo)

    def observe(moves: int) -> None:
        if moves == 6:
            before = hand_ids(bo)
            bo.reload()
            bo.locator('[data-testid="hand"]').wait_for()
            wait_seq(bo, seq(ada))
            assert hand_ids(bo) == before, "a refresh restores the same hand"
            assert "Bo" in bo.locator("#players .member:has(.badge.you)").inner_text()

    drive([ada, bo], step, limit=400, observe=observe)
    for page in (ada, bo, watcher):
        page.locator(".game-over").wait_for()
    assert "wins" in ada.locator(".game-over h2").inner_text()
    assert ada.locator('[data-testid="results"] tbody tr').count() == 2
    # Points, and the cards each hand still held (the winner's none).
    assert ada.locator('[data-testid="results"] th').all_inner_texts() == ["Player", "Points", "Cards left"]
    left = ada.locator('[data-testid="results"] tr.winner td').nth(2).inner_text()
    assert left == "0"
    shots(ada, "uno-game-over")
