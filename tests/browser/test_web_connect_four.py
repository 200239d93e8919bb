"""Connect Four in the browser — the fourth game, added as one module: offered in the lobby from the
catalog, played by clicking columns against a bot, watched by a spectator, with a turn timer."""

from __future__ import annotations

import re

import pytest
from browser_helpers import (
    click_if_still_there,
    create_room,
    drive,
    heading_lines,
    on_screen,
    shots,
    start_game,
    take_over,
    wait_room,
)
from wire import play_to_the_end, two_at_a_table

pytestmark = pytest.mark.browser


def drop_in_a_column(page) -> bool:
    """Click the first column that takes a disc now (none while it is not this page's turn)."""
    playable = page.locator('[data-testid="c4-board"] .c4-col.playable')
    return bool(playable.count()) and click_if_still_there(playable)


def test_connect_four_against_a_bot_to_the_result_with_a_spectator(open_page):
    ada = open_page()
    ada.fill("#name", "Ada")
    # The lobby lists it from the catalog: a quick-play button and a choice with its own settings.
    ada.locator('[data-quick="connect_four"]', has_text="Connect Four").wait_for()
    ada.check('#create-form input[name="game"][value="connect_four"]')
    assert ada.locator('#create-form [name="s.width"]').input_value() == "7"
    assert ada.locator('#create-form [name="capacity"]').get_attribute("max") == "2"
    assert "Connect Four" in ada.locator("#start-title").inner_text()
    code = create_room(ada, "Ada", "connect_four", {"turn_timer": 60}, capacity=2)
    assert "Turn timer: 1 min" in ada.locator(".settings-summary").inner_text()
    ada.get_by_role("button", name="Add hard bot").click()
    ada.locator("#players .member", has=ada.locator(".badge.bot")).wait_for()

    watcher = open_page(f"/r/{code}")
    watcher.fill("#name", "Watcher")
    watcher.click("#spectate-btn")
    wait_room(watcher)

    start_game(ada, [ada])
    board = ada.locator('[data-testid="c4-board"]')
    board.wait_for()
    assert board.locator(".c4-col").count() == 7 and board.locator(".c4-cell").count() == 42
    left = re.fullmatch(r"(?:Your turn|Hard Bot|Bot \d) · (\d+) s", ada.locator(".turn-timer").inner_text())
    assert left and 50 <= int(left[1]) <= 60  # a minute's timer, counting (a loaded machine reads late)
    shots(ada, "connect-four-board")

    moves = drive([ada], drop_in_a_column, limit=21)
    assert moves >= 4, "four discs at least before anyone can win"
    for page in (ada, watcher):
        page.locator(".game-over").wait_for()
        headline = page.locator("#over-title").inner_text()
        # A star for a winner only.
        assert re.fullmatch(r"★ [\w ]+ wins!|Tie: [\w ]+ & [\w ]+", headline), headline
        assert page.locator(".scores th", has_text="wins").count() == 1
        # Why it ended, in the game's own words (its catalog entry), not its wire name.
        why = page.locator('[data-testid="end-reason"]').inner_text()
        assert why in ("Four in a row.", "The board is full."), why
    # The spectator saw the same final board and could never drop a disc.
    assert watcher.locator(".c4-col.playable").count() == 0
    discs = ada.locator(".c4-cell.disc").count()
    assert watcher.locator(".c4-cell.disc").count() == discs >= 7
    # A screen reader hears each column's discs, bottom first (not just "Column 3").
    names = ada.locator(".c4-col").evaluate_all("cols => cols.map((c) => c.getAttribute('aria-label'))")
    said = sum(len(re.findall(r"\byou\b|Bot", n)) for n in names)
    assert said == discs, names
    column = re.compile(r"Column \d: (empty|.+ from the bottom)(, full|, \d free)")
    assert all(column.fullmatch(n) for n in names), names
    # A finished board (no column takes a disc) keeps its colours: not faded as a disabled button is.
    assert ada.locator(".c4-col").first.evaluate("c => getComputedStyle(c).opacity") == "1"
    # On a phone the room's heading takes two lines, however long the game's name: the code with its
    # button, then the game, its state, Log and Exit (Exit fell to a line of its own at 390 px).
    for width in (320, 360, 390, 430):
        ada.set_viewport_size({"width": width, "height": 800})
        assert heading_lines(ada) == 2, f"the room's heading takes {heading_lines(ada)} lines at {width} px"
    shots(ada, "connect-four-over")
    shots(watcher, "connect-four-spectator")


def test_the_finished_board_is_in_sight_beside_the_results_on_a_laptop(open_page, server):
    """At 1280 × 800 the results filled the screen and the winning four began below the fold."""
    ada, bo, _ = two_at_a_table(server, "connect_four")
    play_to_the_end([ada, bo])
    page = open_page("/")
    take_over(page, ada.token, "Ada")
    page.locator('[data-testid="results"]').wait_for()
    page.locator(".table-host.final .c4-board").wait_for()
    assert on_screen(page, ".table-host.final .c4-board")
    assert on_screen(page, ".game-over .primary")
    shots(page, "connect-four-over-beside")
    ada.close()
    bo.close()


def test_the_results_rank_the_winner_first_whatever_their_seat(open_page, server):
    """Bo, in the second seat, wins: the results had listed the players in seat order, Ada on top."""
    ada, bo, _ = two_at_a_table(server, "connect_four")
    for column in (0, 1, 0, 1, 0, 1, 6, 1):  # Ada opens; Bo's fourth disc in column 1 wins
        mover = ada if ada.view["turn"] == 0 else bo
        mover.request("action", action={"type": "drop", "column": column})
        for wire in (ada, bo):
            wire.catch_up(max(ada.seq, bo.seq))
    assert ada.view["winners"] == [1]
    page = open_page("/")
    take_over(page, ada.token, "Ada")
    rows = page.locator('[data-testid="results"] tbody tr')
    rows.first.wait_for()
    assert [text.split("\t")[0] for text in rows.all_inner_texts()] == ["Bo ★ winner", "Ada"]
    for wire in (ada, bo):
        wire.close()
