"""Dots & Boxes in the browser: two players and a spectator, clicking lines until the board is full."""

from __future__ import annotations

import json
import re
import sqlite3

import pytest
from browser_helpers import (
    PHONE,
    click_if_still_there,
    create_room,
    drive,
    join_room,
    no_horizontal_scroll,
    on_screen,
    record_toasts,
    shot,
    shots,
    start_game,
    take_over,
    toasts_once_quiet,
    wait_room,
)
from wire import Wire, at_a_table, play_to_the_end, two_at_a_table

pytestmark = pytest.mark.browser


def click_free_line(page) -> bool:
    free = page.locator('[data-testid="dots-board"].mine g.free')
    return bool(free.count()) and click_if_still_there(free)


def test_dots_game_to_the_end_with_spectator_and_rematch(open_page):
    ada, bo = open_page(), open_page()
    code = create_room(ada, "Ada", "dots", {"width": 3, "height": 3, "turn_timer": 60}, capacity=2)
    join_room(bo, "Bo", code)
    watcher = open_page(f"/r/{code}")
    watcher.fill("#name", "Watcher")
    watcher.click("#spectate-btn")
    wait_room(watcher)
    ada.locator("#spectators .member", has_text="Watcher").wait_for()  # Ada's page draws it in its own time

    start_game(ada, [ada, bo])
    board = ada.locator('[data-testid="dots-board"]')
    board.wait_for()
    timer = ada.locator(".turn-timer")
    assert timer.get_attribute("data-level") == "ok"
    left = re.fullmatch(r"Your turn · (\d+) s", timer.inner_text())
    assert left and 50 <= int(left[1]) <= 60  # a minute's timer, counting (a loaded machine reads late)
    # Whose clock it is, on the bar: a red "2 s" on Bo's screen read as his own alarm.
    bo.locator(".turn-timer .timer-who", has_text="Ada").wait_for()
    # The board offers every free line to the player on turn; the other's wait for their turn.
    assert ada.locator(".dots-board.mine g.free").count() == 12
    assert bo.locator(".dots-board.mine").count() == 0 and bo.locator("g.free").count() == 12
    covered = """g => { const r = g.getBoundingClientRect();
        const top = document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2);
        return top.classList.contains("wait"); }"""
    assert bo.locator("g.free").first.evaluate(covered) and not ada.locator("g.free").first.evaluate(covered)
    ada.locator("g.free").first.hover()
    shots(ada, "dots-board")
    # Leaving mid-game: the dialog says what Dots & Boxes does with a leaver (no hand to give up).
    ada.get_by_role("button", name="Exit").click()
    leaving = ada.locator("dialog[open]")
    assert "A leaver's boxes stay on the board" in leaving.inner_text() and "hand" not in leaving.inner_text()
    shots(ada, "dots-leave-dialog")
    leaving.get_by_role("button", name="Cancel").click()
    assert ada.locator("dialog[open]").count() == 0

    def observe(moves: int) -> None:
        if moves == 6:
            shots(watcher, "dots-spectator")
            assert watcher.locator("g.free").count() == 0
            assert watcher.locator('[data-testid="hand"]').count() == 0

    moves = drive([ada, bo], click_free_line, limit=12, observe=observe)
    assert moves == 12

    for page in (ada, bo, watcher):
        page.locator(".game-over").wait_for()
        # Every page shows the whole final board: 12 lines and 4 boxes.
        assert page.locator("line.drawn").count() == 12 and page.locator("g.free").count() == 0
        assert page.locator(".dots-board text.box-label").count() == 4
    assert (
        "wins" in ada.locator(".game-over h2").inner_text()
        or "Tie" in ada.locator(".game-over h2").inner_text()
    )
    scores = ada.locator('[data-testid="results"] tbody tr')
    assert scores.count() == 2
    shots(ada, "dots-game-over")
    assert watcher.get_by_role("button", name="Rematch").count() == 0

    assert ada.locator('[data-testid="results"] th').all_inner_texts() == ["Player", "Boxes"]
    # The game log draws each entry with the game's own symbol (dots.js LOG_ICONS).
    icons = ada.locator("#game-log .log-entry.line .log-icon").all_inner_texts()
    assert icons and set(icons) == {"─"}, icons
    # The room's first game: its scoreboard would only say again what the results say.
    assert ada.locator('.game-over [data-testid="scoreboard"]').count() == 0

    # A rematch is an offer: Bo (who asked) is ready in the waiting room; Ada's results stay on screen.
    bo.get_by_role("button", name="Rematch").click()
    bo.get_by_role("button", name="✓ Ready — click to unready").wait_for()
    ada.locator('[data-testid="rematch-offer"]', has_text="Bo asks for a rematch").wait_for()
    assert ada.locator(".game-over .scores tbody tr").count() == 2
    # Over the results the heading says what they are; the waiting room's says it waits.
    assert ada.locator("#room-status").inner_text().endswith("Game over")
    shots(ada, "dots-rematch-offer")
    ada.get_by_role("button", name="Back to the room").click()
    ada.get_by_role("button", name="I'm ready").wait_for()
    assert ada.locator("#room-status").inner_text().endswith("Waiting for players")
    assert ada.locator('[data-testid="scoreboard"]').count() == 1  # the scoreboard in the waiting room
    board = ada.locator('[data-testid="scoreboard"] tbody tr')
    assert board.count() == 2 and sum(
        int(board.nth(i).locator("td").nth(1).inner_text()) for i in range(2)
    ) in (1, 2)
    # Boxes do not add up across games: the room's scoreboard counts wins and games only.
    heads = ada.locator('[data-testid="scoreboard"] th').all_inner_texts()
    assert heads == ["Player", "Wins", "Games"], heads

    # The host closes the room, after confirming: everyone is back on the start screen.
    assert bo.locator("#host-tools button").count() == 0
    ada.get_by_role("button", name="Close room").click()
    ada.click('#dialog button[value="yes"]')
    for page in (ada, bo, watcher):
        page.locator("#screen-start").wait_for()
    bo.locator(".toast", has_text="The host closed the room").first.wait_for(
        state="attached"
    )  # maybe not the newest
    ada.locator(".toast", has_text="You closed the room").first.wait_for(state="attached")  # not "The host"
    assert bo.locator("#join-code").input_value() == ""  # its code leads nowhere now


def _board_edges_in_frame(page) -> bool:
    """Scrolled to each corner in turn, the board's edge there lies inside its frame's."""
    return page.locator(".board-wrap").evaluate(
        """w => {
          const inside = [];
          for (const [x, y] of [[0, 0], [1e6, 1e6]]) {
            w.scrollLeft = x; w.scrollTop = y;
            const b = w.querySelector('.dots-board').getBoundingClientRect(), f = w.getBoundingClientRect();
            const far = b.right <= f.right + 1 && b.bottom <= f.bottom + 1;
            inside.push(x ? far : b.left >= f.left - 1 && b.top >= f.top - 1);
          }
          w.scrollLeft = 0; w.scrollTop = 0;
          return inside.every(Boolean);
        }"""
    )


def test_dots_large_board_fits_a_phone(open_page):
    ada = open_page(viewport=PHONE)
    bo = open_page(viewport=PHONE)
    code = create_room(ada, "Ada", "dots", {"width": 20, "height": 14}, capacity=2)
    join_room(bo, "Bo", code)
    start_game(ada, [ada, bo])
    ada.locator('[data-testid="dots-board"]').wait_for()
    assert ada.locator(".dots-board.mine g.free").count() == 19 * 14 + 20 * 13
    assert no_horizontal_scroll(ada)
    # The page never scrolls sideways: the board's frame does, with lines at least 32 px apart.
    frame = ada.locator(".board-wrap").bounding_box()
    assert frame["width"] <= PHONE["width"]
    box = ada.locator('[data-testid="dots-board"]').bounding_box()
    assert box["width"] / 19 >= 32
    # Every line's tap target is at least 32 × 32 px.
    targets = ada.locator("g.free rect.hit").evaluate_all(
        "rs => rs.map(r => { const b = r.getBoundingClientRect(); return [b.width, b.height]; })"
    )
    assert len(targets) == 19 * 14 + 20 * 13
    assert min(min(w, h) for w, h in targets) >= 32, min(targets, key=min)
    # Every part of the board can be scrolled to: scrolled all the way, its edges are in the frame.
    assert _board_edges_in_frame(ada)
    # A mouse over a line previews it; a touch screen's emulated hover (left where the last tap was) does not.
    line = ada.locator("g.free").nth(3)
    line.hover()
    preview = "g => getComputedStyle(g.querySelector('.preview')).stroke"
    assert line.evaluate(preview) != "rgba(0, 0, 0, 0)"
    touch = ada.context.new_cdp_session(ada)
    touch.send("Emulation.setTouchEmulationEnabled", {"enabled": True, "maxTouchPoints": 5})
    assert ada.evaluate("matchMedia('(hover: none)').matches")
    assert line.evaluate(preview) == "rgba(0, 0, 0, 0)"
    touch.send("Emulation.setTouchEmulationEnabled", {"enabled": False})
    # "Whole board" shows all of it; a tap there zooms back in around the tapped spot (drawing nothing).
    ada.get_by_role("button", name="Whole board").click()
    whole = ada.locator('[data-testid="dots-board"]').bounding_box()
    assert whole["width"] <= frame["width"]
    shot(ada, "dots-whole-board")
    spot = {"x": whole["width"] * 0.8, "y": whole["height"] * 0.5}
    ada.locator('[data-testid="dots-board"]').click(position=spot)
    ada.get_by_role("button", name="Whole board").wait_for()
    assert ada.locator('[data-testid="dots-board"]').bounding_box()["width"] / 19 >= 32
    assert ada.locator(".board-wrap").evaluate("w => w.scrollLeft") > 0
    assert ada.locator("line.drawn").count() == 0
    # A tap near the left edge zooms in on the first columns, the board's edge in view.
    ada.get_by_role("button", name="Whole board").click()
    near_left = {"x": whole["width"] * 0.03, "y": whole["height"] * 0.5}
    ada.locator('[data-testid="dots-board"]').click(position=near_left)
    ada.get_by_role("button", name="Whole board").wait_for()
    left = ada.locator(".board-wrap").evaluate(
        "w => w.querySelector('.dots-board').getBoundingClientRect().left - w.getBoundingClientRect().left"
    )
    assert 0 <= left <= 16, left
    shots(ada, "dots-large-board")

    # A move changes a few nodes of a board, not thousands: the other free lines are the same elements.
    untouched = [page.locator("g.free").last.element_handle() for page in (ada, bo)]

    # Touch: the first tap only previews a line, the second draws it.
    ada.locator("g.free").first.dispatch_event("pointerup", {"pointerType": "touch"})
    ada.locator("g.free.armed").wait_for()
    assert ada.locator("line.drawn").count() == 0
    ada.locator("g.free.armed").dispatch_event("pointerup", {"pointerType": "touch"})
    ada.locator("line.drawn").wait_for(state="attached")
    bo.locator(".dots-board.mine line.drawn").wait_for(state="attached")
    assert [node.evaluate("g => g.isConnected") for node in untouched] == [True, True]
    assert ada.locator("g.free").count() == bo.locator("g.free").count() == 19 * 14 + 20 * 13 - 1

    # Keyboard: focus the board, move the cursor with the arrows, Enter draws.
    bo.locator('[data-testid="dots-board"]').focus()
    bo.keyboard.press("ArrowRight")
    bo.locator('g.free.cursor[data-line="1,0,0"]').wait_for()
    bo.keyboard.press("Enter")
    ada.locator("line.drawn").nth(1).wait_for(state="attached")

    # Bo's tab closes: Ada sees him offline, with the seconds his seat still waits for him.
    bo.close()
    away = ada.locator("#players .member", has_text="Bo").locator(".badge.off")
    away.filter(has_text=re.compile(r"^offline · bot in \d+ s$")).wait_for()
    first = int(re.search(r"\d+", away.inner_text())[0])
    assert 50 <= first <= 60, "the server's 60 s grace, counting down"
    assert "a bot takes over" in away.get_attribute("title")
    shots(ada, "player-offline")


@pytest.mark.parametrize("viewport", [PHONE, {"width": 360, "height": 740}], ids=["390", "360"])
def test_a_board_a_little_wider_than_a_phone_is_drawn_to_fit_not_cut_off(open_page, viewport):
    """8 × 8 dots at 48 px between dots is a few pixels wider than a phone's frame: its last column was
    cut off, the frame scrolled by a few pixels, and no "Whole board" was offered. Drawn to fit, its
    lines are still a thumb's width apart."""
    ada = open_page(viewport=viewport)
    create_room(ada, "Ada", "dots", {"width": 8, "height": 8}, capacity=2)
    ada.get_by_role("button", name="Add easy bot").click()
    ada.locator("#players .member .badge.bot").wait_for()
    start_game(ada, [ada])
    board = ada.locator('[data-testid="dots-board"]')
    board.wait_for()
    wrap = ada.locator(".board-wrap")
    assert wrap.evaluate("w => w.scrollWidth <= w.clientWidth"), "the frame scrolls sideways"
    box, frame = board.bounding_box(), wrap.bounding_box()
    assert frame["x"] <= box["x"] and box["x"] + box["width"] <= frame["x"] + frame["width"]
    assert box["width"] / 7 >= 38, "dots a thumb's width apart"
    assert ada.get_by_role("button", name="Whole board").is_hidden()
    assert no_horizontal_scroll(ada)
    shot(ada, "dots-8x8-phone")


def test_a_big_board_on_a_phone_on_its_side_is_drawn_to_tap_and_shown_whole_on_demand(open_page, server):
    """844 × 390: the board was fitted to the screen's height, a 12 × 12 board's lines 22 px apart with no
    "Whole board" to switch (offered in portrait only). It is drawn at tap size in a frame that pans, and
    can be shown whole; a tap on the whole board zooms back in."""
    ada, bo, _ = two_at_a_table(server, "dots", {"width": 12, "height": 12})
    page = open_page("/", {"width": 844, "height": 390})
    take_over(page, ada.token, "Ada")
    board = page.locator('[data-testid="dots-board"]')
    board.wait_for()
    assert board.bounding_box()["width"] / 11 >= 40, "dots a thumb's width apart"
    wrap = page.locator(".board-wrap")
    assert wrap.bounding_box()["height"] <= 390
    assert _board_edges_in_frame(page)
    assert no_horizontal_scroll(page)
    shot(page, "dots-landscape")
    page.get_by_role("button", name="Whole board").click()
    whole = board.bounding_box()
    assert whole["height"] <= wrap.bounding_box()["height"], "the whole board in its frame"
    shot(page, "dots-landscape-whole")
    board.click(position={"x": whole["width"] * 0.5, "y": whole["height"] * 0.9})
    page.get_by_role("button", name="Whole board").wait_for()
    assert board.bounding_box()["width"] / 11 >= 40
    assert wrap.evaluate("w => w.scrollTop") > 0, "zoomed in around the tapped spot, low on the board"
    assert page.locator("line.drawn").count() == 0
    ada.close()
    bo.close()


def test_dots_against_a_bot(open_page):
    ada = open_page()
    create_room(ada, "Ada", "dots", {"width": 3, "height": 3}, capacity=2)
    ada.get_by_role("button", name="Add hard bot").click()
    bot = ada.locator("#players .member", has=ada.locator(".badge.bot"))
    bot.wait_for()
    assert "✓ ready" in bot.inner_text(), "bots are always ready"
    # Both seats taken: no more bot buttons, and where more seats are is said (the buttons just went).
    assert ada.get_by_role("button", name="Add hard bot").count() == 0
    hint = ada.locator('[data-testid="bots-need-seats"]')
    assert hint.inner_text() == "Every seat is taken: add seats in Settings… to add a bot."
    start_game(ada, [ada])
    drive([ada], click_free_line, limit=12)
    ada.locator(".game-over").wait_for()
    assert ada.locator('[data-testid="results"] tbody tr').count() == 2


def _a_line_drawn(open_page, own_server):
    """Ada's and Bo's pages at a 3×3 board of the test's own server, Ada's first line drawn."""
    ada, bo = open_page(base=own_server.base), open_page(base=own_server.base)
    code = create_room(ada, "Ada", "dots", {"width": 3, "height": 3}, capacity=2)
    join_room(bo, "Bo", code)
    start_game(ada, [ada, bo])
    assert click_free_line(ada)
    bo.locator("line.drawn").wait_for(state="attached")
    return ada, bo, code


def test_server_crash_mid_game_and_the_pages_resume(open_page, own_server):
    ada, bo, code = _a_line_drawn(open_page, own_server)

    for page in (ada, bo):
        record_toasts(page)
    own_server.kill()
    for page in (ada, bo):
        page.locator("#conn", has_text="reconnecting").wait_for()
        # Nothing can be sent: the table takes no click (a move looked possible, and was lost) and says so.
        host = page.locator("#stage .table-host")
        assert host.evaluate("t => getComputedStyle(t).pointerEvents") == "none"
        said = page.locator("#stage").evaluate("s => getComputedStyle(s, '::before').content")
        assert "reconnecting" in said
        # The board drawn before the crash is still on the page: marked, so the check below reads the
        # one the restarted server sends (the status is "online" as soon as the socket opens, before it).
        page.evaluate("document.querySelector('#stage').dataset.seq = 'before the crash'")
    shots(ada, "dots-connection-lost")
    ada.set_viewport_size({"width": 360, "height": 640})  # the top bar keeps to one line, its buttons too
    assert all(ada.locator(b).bounding_box()["height"] < 48 for b in ("#conn", "#theme", "#mute"))
    ada.set_viewport_size({"width": 1280, "height": 800})
    own_server.start()
    for page in (ada, bo):
        page.locator('#conn[data-status="online"]').wait_for(timeout=15_000)
        page.locator('#stage:not([data-seq="before the crash"]) [data-testid="dots-board"]').wait_for()
        assert page.locator("line.drawn").count() == 1, "the board came back as it was"
        assert page.url.endswith(f"/r/{code}")
        assert page.locator("#stage .table-host").evaluate("t => getComputedStyle(t).pointerEvents") == "auto"
    for page in (ada, bo):  # nobody "is back" who never went (everyone reconnected after the restart)
        assert not [t for t in toasts_once_quiet(page) if "is back" in t or "lost connection" in t]

    drive([ada, bo], click_free_line, limit=11)
    for page in (ada, bo):
        page.locator(".game-over").wait_for()


CURSOR_SEEN = """b => {
    const c = b.querySelector('.cursor');
    if (!c) return false;
    if (c.matches('line.drawn')) return getComputedStyle(c).filter !== 'none';
    const stroke = getComputedStyle(c.querySelector('.preview')).stroke;
    return stroke !== 'none' && stroke !== 'rgba(0, 0, 0, 0)' && stroke !== 'transparent';
}"""


def test_the_board_shows_a_focus_ring_to_keyboard_users_only(open_page):
    """A click gives the board focus (it is in the tab order for keyboard play); Chromium then drew its
    own dark ring around the whole board for mouse players too. Keyboard focus keeps the accent ring."""
    ada, bo = open_page(), open_page()
    code = create_room(ada, "Ada", "dots", {"width": 3, "height": 3})
    join_room(bo, "Bo", code)
    start_game(ada, [ada, bo])
    board = ada.locator('[data-testid="dots-board"]')
    board.wait_for()
    # The keys are on screen too, not only told to screen readers (a mouse and keyboard here).
    assert (
        ada.locator("#stage .hint").inner_text()
        == "Your turn — click a line. Keys: arrows move, Space turns, Enter draws."
    )
    ring = "b => [b.matches(':focus'), getComputedStyle(b).outlineStyle]"
    # Nor does a click show the keyboard's cursor (left on the first line, it looked like a tapped line).
    board.click(position={"x": 3, "y": 3})  # the board's corner: focused, no line drawn
    assert board.evaluate(ring) == [True, "none"]
    assert board.locator(".free.cursor").count() == 1 and board.evaluate(CURSOR_SEEN) is False
    assert click_free_line(ada)
    assert board.evaluate(ring) == [True, "none"]
    ada.locator("#chat-input").focus()
    for _ in range(40):  # back through the side panel's controls to the board
        ada.keyboard.press("Shift+Tab")
        if board.evaluate("b => b.matches(':focus')"):
            break
    assert board.evaluate(ring) == [True, "solid"]
    assert board.evaluate(CURSOR_SEEN) is True  # on the line drawn: a glow, the line keeping its colour
    ada.keyboard.press("ArrowRight")
    assert board.evaluate(CURSOR_SEEN) is True  # a free line: dashed, in the accent
    shots(ada, "dots-keyboard-cursor")


def test_a_player_who_leaves_mid_game_is_told_the_rule_and_marked_in_the_results(open_page):
    ada, bo, cy = open_page(), open_page(), open_page()
    code = create_room(ada, "Ada", "dots", {"width": 3, "height": 3}, capacity=3)
    join_room(bo, "Bo", code)
    join_room(cy, "Cy", code)
    start_game(ada, [ada, bo, cy])

    cy.get_by_role("button", name="Exit").click()
    leaving = cy.locator("dialog[open]")
    assert "if only one player is left, they win" in leaving.inner_text()
    leaving.get_by_role("button", name="Leave").click()
    cy.locator("#screen-room").wait_for(state="hidden")
    # The others' tables say Cy left, on Cy's seat.
    for page in (ada, bo):
        name = page.locator(".seat-name", has_text=re.compile("^Cy$"))
        chip = page.locator(".table-host .seats .seat", has=name)
        chip.locator(".badge", has_text="left").wait_for()
    # And so does the game log, as it does in UNO and Cheat.
    entry = ada.locator("#game-log .log-entry", has_text="Cy left")
    entry.wait_for()
    assert entry.inner_text().startswith("←"), entry.inner_text()
    shot(ada, "dots-seat-left")

    assert drive([ada, bo], click_free_line, limit=12) == 12
    ada.locator(".game-over").wait_for()
    rows = ada.locator('[data-testid="results"] tbody tr').all_inner_texts()
    assert len(rows) == 3 and [r for r in rows if "(left)" in r] == [next(r for r in rows if "Cy" in r)], rows
    assert "(left)" in rows[-1] and ("winner" in rows[0] or "(tie)" in rows[0]), rows  # ranked: a leaver last
    shots(ada, "dots-results-with-leaver")
    replay = ada.locator('[data-testid="watch-replay"]').get_attribute("href")

    # Ada's profile lists the game with Cy marked as having left it.
    ada.locator("#my-stats").evaluate("link => { location.href = link.href; }")
    players = ada.locator(".recent-game .recent-players").first
    players.wait_for()
    assert re.fullmatch(r"Ada · Bo · Cy \(left\)", players.inner_text().strip()), players.inner_text()
    # Her part in it first ("won", "lost"...), then the result as the replay words it.
    part, _, result = ada.locator(".recent-game .recent-result").first.inner_text().partition(" ")
    assert part in ("won", "lost", "tied"), part
    ended = ada.locator(".recent-game .recent-when").first.inner_text()
    # So does the game's replay page, which words the result and the date as the profile does.
    ada.evaluate(f"location.href = {replay!r}")
    header = ada.locator('[data-testid="replay-result"]')
    header.filter(has_text="Cy (left)").wait_for()
    assert header.inner_text() == f"Ada, Bo, Cy (left) · {result} · {ended}", header.inner_text()


def test_a_game_the_host_ends_says_so_in_the_room_and_on_the_profile(open_page):
    ada, bo = open_page(), open_page()
    code = create_room(ada, "Ada", "dots", {"width": 3, "height": 3}, capacity=2)
    join_room(bo, "Bo", code)
    start_game(ada, [ada, bo])
    ada.get_by_role("button", name="End game").click()
    ada.locator("dialog[open]").get_by_role("button", name="End game").click()
    # Bo was moved to the waiting room without a word (and then read the ended game's last notices).
    bo.locator("#toasts .toast", has_text="Ada ended the game").wait_for()
    ada.locator("#toasts .toast", has_text="You ended the game").wait_for()
    assert bo.locator("#room-status").inner_text().endswith("Waiting for players")

    # The room's recent games and the profile say why the game has no winner, in words.
    ada.get_by_text("Recent games — watch a replay").click()
    recent = ada.locator('[data-testid="recent-games"] li')
    recent.first.wait_for()
    assert "The host ended the game." in recent.first.inner_text(), recent.first.inner_text()
    in_room = recent.first.locator(".recent-when").inner_text().removeprefix(" · ").strip()
    ada.locator("#my-stats").evaluate("link => { location.href = link.href; }")
    result = ada.locator(".recent-game .recent-result").first
    result.wait_for()
    assert result.inner_text() == "No winner. The host ended the game.", result.inner_text()
    assert ada.locator(".recent-game .recent-when").first.inner_text() == in_room  # a date too, as here


def test_a_room_that_cannot_come_back_after_a_crash_is_said_to_be_gone(open_page, own_server):
    """A room whose log the restarted server cannot replay is quarantined. Its pages showed the table
    ("online", "your turn") and took no clicks; they now leave it, saying the room is gone."""
    ada, bo, code = _a_line_drawn(open_page, own_server)
    own_server.kill()
    with sqlite3.connect(own_server.data / "parlour.db") as db:
        rows = db.execute("SELECT id, data FROM room_log WHERE room = ? ORDER BY id", (code,)).fetchall()
        row_id, record = next((i, json.loads(d)) for i, d in rows if json.loads(d)["k"] == "action")
        record["p"]["engine_action"] = 10_000  # no such line: the replay fails
        db.execute("UPDATE room_log SET data = ? WHERE id = ?", (json.dumps(record), row_id))
    own_server.start()
    for page in (ada, bo):
        page.locator("#toasts .toast", has_text=f"Room {code} is no longer open").wait_for(timeout=15_000)
        page.locator("#screen-start").wait_for()
        assert not page.url.endswith(code)
    shots(ada, "room-gone-after-restart")


def test_a_log_entry_pointed_at_marks_its_line_or_box_on_the_board(open_page, server):
    """The log names a line by its dots' coordinates, which the board does not print: pointed at, an
    entry marks its line (or its box) on the board."""
    ada, bo, code = two_at_a_table(server, "dots", {"width": 3, "height": 3})
    players = [ada, bo]
    while not any(e["kind"] == "capture" for e in ada.log):
        for p in players:
            p.catch_up(max(q.seq for q in players))
        actor = next(p for p in players if p.view["legal"])
        actor.request("action", action=actor.view["legal"][0])
    watcher = open_page(f"/r/{code}")
    watcher.fill("#name", "Cy")
    watcher.click("#spectate-btn")
    watcher.locator('[data-testid="dots-board"]').wait_for()
    first = ada.log[0]["event"]
    line = watcher.locator(f'[data-drawn="{first["x"]},{first["y"]},{first["d"]}"]')
    entries = watcher.locator("#game-log .log-entry")
    entries.first.hover()
    assert "pointed" in line.get_attribute("class")
    assert watcher.locator("#stage .pointed").count() == 1
    shot(watcher, "dots-log-pointed")
    capture = next(e for e in ada.log if e["kind"] == "capture")
    watcher.locator(f'#game-log [data-id="log-{capture["n"]}"]').hover()
    assert "pointed" not in line.get_attribute("class")
    box = watcher.locator(f'[data-box="{capture["event"]["x"]},{capture["event"]["y"]}"]')
    assert "pointed" in box.get_attribute("class")
    ada.close()
    bo.close()


def test_a_laptop_shows_the_turn_line_under_the_board_and_says_a_box_earns_another_line(open_page, server):
    """At 1280 × 800 with a turn clock, the line under a square board ("Your turn — click a line") was cut
    off at the screen's edge; and a turn that went on after a box read as a plain "Your turn"."""
    ada, bo, _ = two_at_a_table(server, "dots", {"width": 3, "height": 3, "turn_timer": 120})
    for wire, line in ((ada, (0, 0, 0)), (bo, (0, 1, 0)), (ada, (0, 0, 1)), (bo, (1, 0, 0))):
        wire.request("action", action={"type": "line", "x": line[0], "y": line[1], "d": line[2]})
    page = open_page("/")
    take_over(page, ada.token, "Ada")
    hint = page.locator('[data-testid="dots-hint"]')
    hint.filter(has_text="Your turn").wait_for()
    assert on_screen(page, '[data-testid="dots-hint"]')
    # Ada closes the top-left box (its right side): her turn goes on, and the table says why.
    page.locator('g.free[data-line="1,0,1"]').dispatch_event("pointerup", {"pointerType": "mouse"})
    hint.filter(has_text="You took a box: draw another line.").wait_for()
    assert on_screen(page, '[data-testid="dots-hint"]')
    shots(page, "dots-box-again")
    # Bo's page says it too ("Ada is thinking…" told him nothing of her extra turn).
    theirs = open_page("/")
    take_over(theirs, bo.token, "Bo")
    theirs.locator('[data-testid="dots-hint"]', has_text="Ada took a box and goes again…").wait_for()
    ada.close()
    bo.close()


def test_a_player_keeps_their_colour_when_the_seats_are_renumbered(open_page, server):
    """Bo leaves after a game and the seats close up: Cy, in seat 2, is in seat 1 for the next one. She
    had come back in Bo's colour, and her boxes in his; she keeps her own."""
    settings = {"width": 3, "height": 3, "max_players": 3}
    (ada, bo, cy), _ = at_a_table(server, "dots", ("Ada", "Bo", "Cy"), settings)
    play_to_the_end([ada, bo, cy])
    bo.request("leave")
    ada.request("reset")  # back to the waiting room: the seats renumbered
    ada.request("start")
    page = open_page("/")
    take_over(page, cy.token, "Cy")
    chip = page.locator(".seats .seat", has_text="Cy")
    chip.wait_for()
    assert page.locator(".seats .seat").count() == 2
    colour = chip.evaluate("e => e.style.getPropertyValue('--seat')")
    assert colour == "#f3a712", colour  # the third colour, hers in the first game; the second was Bo's
    shots(page, "dots-colour-kept")
    ada.close()
    bo.close()


def test_initials_keep_an_emoji_whole(open_page, server):
    """A seat's swatch and its boxes carry the player's initials: for "👩‍🚀 Ada" they were cut inside the
    emoji, half of it drawn as "�A"."""
    (ada, bo), code = at_a_table(server, "dots", ("👩‍🚀 Ada", "🦊"), {"width": 3, "height": 3})
    cy = Wire(server, "Cy")
    cy.request("spectate", code=code)
    page = open_page("/")
    take_over(page, cy.token, "Cy")  # watching: the wires play on
    page.locator(".table-host .seat .swatch").first.wait_for()
    swatches = page.locator(".table-host .seat .swatch").all_inner_texts()
    assert sorted(swatches) == sorted(["👩‍🚀A", "🦊"]), swatches
    # A box taken shows the same whole initials (the wires draw until someone takes one).
    play_to_the_end([ada, bo])
    page.wait_for_function("() => document.querySelectorAll('.dots-board .box-label').length === 4")
    labels = page.locator(".dots-board .box-label").all_text_contents()
    assert set(labels) <= {"👩‍🚀A", "🦊"}, labels
    for wire in (ada, bo, cy):
        wire.close()
