"""Replays in the browser: finish a game against a bot, open its replay from the results screen, step
through it with the buttons, the keyboard, the slider and the game log, and see the final board."""

from __future__ import annotations

import re

import pytest
from browser_helpers import DESKTOP, PHONE, create_room, drive, shots, start_game, wait_drawn
from conftest import Server
from test_web_dots import click_free_line
from wire import Wire, play_to_the_end

pytestmark = pytest.mark.browser


# What the replay's table offers the seat it shows: words saying it is their turn, and controls that
# would take a move (a replay takes none: it shows that seat's hand, nothing more).
OFFERS = """() => {
    const stage = document.querySelector('[data-testid="replay-stage"]');
    const live = [...stage.querySelectorAll('button, select, [role="application"]')]
        .filter((c) => !c.disabled && c.offsetParent !== null && !c.classList.contains("zoom-toggle"));
    const controls = live.map((c) => c.outerHTML.slice(0, 90));
    return { yourTurn: /your turn/i.test(stage.innerText), controls };
}"""


def position(page) -> str:
    return page.locator('[data-testid="replay-position"]').inner_text()


def test_open_the_replay_from_the_results_and_step_to_the_end(open_page):
    ada = open_page()
    create_room(ada, "Ada", "dots", {"width": 3, "height": 3}, capacity=2)
    ada.get_by_role("button", name="Add easy bot").click()
    ada.locator("#players .member", has=ada.locator(".badge.bot")).wait_for()
    start_game(ada, [ada])
    drive([ada], click_free_line, limit=12)
    ada.locator(".game-over").wait_for()
    headline = ada.locator("#over-title").inner_text()

    room = ada
    with room.expect_popup() as opened:  # a tab of its own: the room's page stays in the room
        room.locator('[data-testid="watch-replay"]').click()
    ada = opened.value
    ada.wait_for_url(re.compile(r"/g/[a-z2-7]+$"))
    wait_drawn(ada)
    assert room.locator(".game-over").is_visible() and "/r/" in room.url
    stats = room.locator('[data-testid="your-stats"]')  # the stats page too, without leaving the room
    assert stats.get_attribute("href").startswith("/p/") and stats.get_attribute("target") == "_blank"
    assert ada.locator("#replay-title").inner_text() == "Replay: Dots & Boxes"
    assert position(ada) == "Start · 12 moves"  # nothing is dealt in Dots & Boxes ("Deal · 12 moves")
    # Ada's seat is shown, and it is her turn at the deal: the board is a picture of the game (before,
    # a keyboard application whose arrow keys moved a cursor instead of stepping the replay).
    assert ada.evaluate(OFFERS) == {"yourTurn": False, "controls": []}
    # No line of the log is marked at the deal (the table's "newest line" mark was left on the last).
    backgrounds = ada.locator("#game-log .log-entry").evaluate_all(
        "es => es.map((e) => getComputedStyle(e).backgroundColor)"
    )
    assert set(backgrounds) == {"rgba(0, 0, 0, 0)"}
    # The player sees their own seat by default; a fresh 3×3 board has no line drawn.
    assert "(you)" in ada.locator('[data-testid="replay-seat"] option:checked').inner_text()
    assert ada.locator("line.drawn").count() == 0
    assert ada.locator("#game-log .log-entry").count() > 12  # the whole game's log, to jump by
    # Dots has no hidden cards: no "all hands" toggle, and no seat to view it from (it changed nothing).
    assert ada.locator("#all-hands-label").is_hidden()
    assert ada.locator('[data-testid="replay-seat"]').is_hidden()

    # Forward one move with the button, then with the keyboard.
    ada.locator("#next").click()
    ada.wait_for_function("document.querySelectorAll('line.drawn').length === 1")
    ada.keyboard.press("ArrowRight")
    ada.wait_for_function("document.querySelectorAll('line.drawn').length === 2")
    assert position(ada) == "Move 2 of 12"
    # Stepping changes the board in place: the same board element before and after.
    ada.evaluate("document.querySelector('.dots-board').kept = true")
    ada.keyboard.press("ArrowLeft")
    ada.wait_for_function("document.querySelectorAll('line.drawn').length === 1")
    ada.keyboard.press("ArrowRight")
    ada.wait_for_function("document.querySelectorAll('line.drawn').length === 2")
    assert ada.evaluate("document.querySelector('.dots-board').kept === true")

    # To the end: the final board, the result, and the game-over line of the log marked current.
    ada.keyboard.press("End")
    ada.wait_for_function("document.querySelectorAll('line.drawn').length === 12")
    assert position(ada) == "Move 12 of 12"
    assert ada.locator(".dots-board text.box-label").count() == 4
    assert ada.evaluate("document.querySelector('.dots-board').kept === true")
    caption = ada.locator('[data-testid="replay-caption"]').inner_text()
    assert re.search(r"wins with|tie", caption), caption
    assert ada.locator("#game-log .log-entry.future").count() == 0
    assert ada.locator("#game-log .log-entry.current").count() >= 1
    winner = headline.removeprefix("★ ").split(" wins!")[0]
    assert winner in ada.locator('[data-testid="replay-result"]').inner_text() or "Tie" in headline
    shots(ada, "replay-dots-end")

    # Home goes back to the deal; a click on a log line jumps to its move.
    ada.keyboard.press("Home")
    ada.wait_for_function("document.querySelectorAll('line.drawn').length === 0")
    # On a phone the play button keeps its whole label while playing (it read "❚❚ Paus").
    ada.set_viewport_size(PHONE)
    ada.locator("#play").click()
    ada.locator("#play", has_text="Pause").wait_for()
    assert ada.locator("#play").evaluate("b => b.scrollWidth <= b.clientWidth")
    ada.locator("#play").click()
    ada.set_viewport_size(DESKTOP)
    ada.locator("#game-log .log-entry").nth(4).click()
    ada.wait_for_function("document.querySelectorAll('line.drawn').length > 0")
    jumped = int(re.search(r"Move (\d+)", position(ada)).group(1))
    assert ada.locator("line.drawn").count() == jumped
    # The slider jumps too.
    ada.locator('[data-testid="replay-slider"]').fill("7")
    ada.wait_for_function("document.querySelectorAll('line.drawn').length === 7")

    # Autoplay runs to the end by itself (space starts it), then stops.
    ada.locator("#speed").select_option("30")
    ada.locator("#stage").click()
    ada.keyboard.press(" ")
    ada.wait_for_function("document.querySelectorAll('line.drawn').length === 12")
    ada.wait_for_function("document.querySelector('#play').getAttribute('aria-pressed') === 'false'")

    # The room's waiting room lists the game, with the same link, opening a tab of its own too.
    ada.close()
    room.get_by_role("button", name="Rematch").click()  # the room is finished: on to the waiting room
    recent = room.locator('[data-testid="recent-games"] a')
    recent.first.wait_for(state="attached")
    assert recent.count() == 1 and recent.first.get_attribute("href").startswith("/g/")
    assert recent.first.get_attribute("target") == "_blank"


def test_a_replay_of_a_game_with_nothing_hidden_calls_nobody_you_for_a_stranger(open_page, server):
    """A stranger's replay of Connect Four said "Ada (you)" and "Four in a row — you win!": its default
    view is seat 0's, and the table took that seat for the viewer's own."""
    ada, bo = Wire(server, "Ada"), Wire(server, "Bo")
    # A public room: its replays open to anyone.
    code = ada.request("create_room", game="connect_four", public=True, capacity=2)["code"]
    bo.request("join", code=code)
    ada.request("start")
    bo.until(lambda m: m["type"] == "game_started")
    play_to_the_end([ada, bo])
    over = next((m for m in ada.messages if m["type"] == "game_over"), None)
    over = over or ada.until(lambda m: m["type"] == "game_over")
    page = open_page(f"/g/{over['game_id']}")
    page.locator('[data-testid="replay-stage"] [data-testid="c4-board"]').wait_for()
    page.keyboard.press("End")
    stage = page.locator('[data-testid="replay-stage"]')
    page.wait_for_function(
        "() => /wins\\.|tie/i.test(document.querySelector('[data-testid=\"replay-stage\"]').innerText)"
    )
    text = stage.inner_text()
    assert "(you)" not in text and "you win" not in text, text
    ada.close()
    bo.close()


def test_an_unknown_game_says_so(open_page):
    page = open_page("/g/nosuchgame")
    page.locator("#replay-error").wait_for()
    assert "not available" in page.locator("#replay-error").inner_text()
    # No player for a game that is not there: no controls, no empty board; a way back instead.
    assert page.locator("#replay-title").inner_text() == "Game not found"
    for control in ("#play", "#slider", "#seat", '[data-testid="replay-stage"]'):
        assert not page.locator(control).is_visible(), control
    shots(page, "replay-not-found")
    # The link in the alert's own colour, not the browser's default blue-violet on its brown.
    colour = "e => getComputedStyle(e).color"
    link = page.get_by_role("link", name="Back to the lobby")
    assert link.evaluate(colour) == page.locator("#replay-error").evaluate(colour)
    link.click()
    page.wait_for_url(re.compile(r"/$"))


@pytest.mark.parametrize(("game", "settings", "bots"), [("uno", {"target_score": 0}, 2), ("cheat", {}, 3)])
def test_a_watched_bots_game_replays_with_every_hand(open_page, tmp_path, monkeypatch, game, settings, bots):
    """Ada seats bots, only watches their game, and replays it: she did not play, so she sees seat 0;
    "All hands" shows every seat's cards, as many as the table says each holds."""
    monkeypatch.setenv("PARLOUR_BOT_DELAY", "0")
    server = Server(tmp_path).start()
    try:
        ada = open_page(base=server.base)
        create_room(ada, "Ada", game, settings, capacity=bots + 1)
        for _ in range(bots):
            ada.get_by_role("button", name="Add easy bot").click()
        ada.locator("#players .member .badge.bot").nth(bots - 1).wait_for()
        ada.get_by_role("button", name="Just watch").click()
        ada.get_by_role("button", name="Start game").click()
        with ada.expect_popup(timeout=60_000) as opened:
            ada.locator('[data-testid="watch-replay"]').click(timeout=60_000)
        ada = opened.value
        ada.wait_for_url(re.compile(r"/g/[a-z2-7]+$"))
        wait_drawn(ada)
        assert ada.locator('[data-testid="replay-seat"] option:checked').inner_text() == "Bot 2"
        assert position(ada).startswith("Deal · ")  # a card game's step 0 is its deal
        assert "(you)" not in ada.locator('[data-testid="replay-seat"]').inner_text()
        # The seat's hand is on the first screen under the controls at 1280 × 800 (the options' line took
        # a margin twice over and cut it); on a phone its first row is (Log had a line to itself).
        hand = '#stage [data-testid="hand"]'
        assert ada.evaluate(f"document.querySelector('{hand}').getBoundingClientRect().bottom") <= 800
        ada.set_viewport_size(PHONE)
        top = ada.evaluate(f"document.querySelector('{hand} :is(.ucard, .pcard)').getBoundingClientRect()")
        assert top["bottom"] <= PHONE["height"], top
        ada.set_viewport_size(DESKTOP)
        ada.keyboard.press("ArrowRight")
        ada.wait_for_function(
            "!document.querySelector('#next').disabled && document.querySelector('#slider').value === '1'"
        )
        assert ada.locator('[data-testid="replay-hands"]').is_hidden()
        ada.locator('[data-testid="all-hands"]').check()
        rows = ada.locator('[data-testid="hand-row"]')
        rows.nth(bots - 1).wait_for()
        assert rows.count() == bots
        held = [int(n) for n in re.findall(r"\((\d+)\)", " ".join(rows.all_inner_texts()))]
        assert len(held) == bots and all(n > 0 for n in held)
        assert [rows.nth(i).locator(".hand-cards > *").count() for i in range(bots)] == held
        # Every step, Bot 2's seat shown: its hand, no "your turn", no control that would take a move.
        last = int(ada.locator("#slider").get_attribute("max"))
        offered, said = [], []
        for step in range(2, last + 1):
            ada.keyboard.press("ArrowRight")
            ada.locator(f'#stage[data-step="{step}"]').wait_for(state="attached")  # drawn, not just chosen
            offered.append(ada.evaluate(OFFERS))
            said.append(ada.locator("#stage .table-host").inner_text())
        assert offered == [{"yourTurn": False, "controls": []}] * (last - 1)
        # Bot 2's seat is not Ada's: nothing calls it "you" ("Played by you" under its cards, a "you"
        # badge on its chip).
        yous = [text for text in said if re.search(r"\byou(r)?\b", text, re.IGNORECASE)]
        assert not yous, yous[:3]
        assert rows.count() == bots
        # The checkbox keeps focus and its space; End still goes to the last move.
        # The slider moves at once; the caption once the last step has been fetched and drawn. (From the
        # deal: the steps above ended at the last.)
        ada.keyboard.press("Home")
        ada.locator('#stage[data-step="0"]').wait_for(state="attached")
        ada.keyboard.press("End")
        ada.wait_for_function(
            "document.querySelector('#slider').value === document.querySelector('#slider').max"
            " && /won|wins/.test(document.querySelector('[data-testid=\"replay-caption\"]').textContent)"
        )
        ada.locator('[data-testid="replay-seat"]').select_option("spectator")
        ada.wait_for_function("document.querySelector('[data-testid=\"hand-row\"].me') === null")
        shots(ada, f"replay-{game}-all-hands")
        # On a phone, the log drawer opened at move 3 shows the moves so far, never the end and its
        # result (it scrolled to the end, as a live table's log does: a spoiler).
        ada.set_viewport_size(PHONE)
        ada.locator('[data-testid="replay-slider"]').fill("3")
        # Drawn once later lines are marked still to come (at the end none were; the end's last line was
        # "current", so waiting for a current line would not wait for move 3).
        ada.locator("#game-log .log-entry.future").first.wait_for(state="attached")
        ada.locator("#log-toggle").click()
        ada.locator("#log-panel.open").wait_for()
        in_view = """e => { const l = e.closest('#game-log').getBoundingClientRect();
                            const r = e.getBoundingClientRect();
                            return r.bottom > l.top && r.top < l.bottom; }"""
        assert ada.locator("#game-log .log-entry.current").first.evaluate(in_view)
        assert not ada.locator("#game-log .log-entry").last.evaluate(in_view)
        assert ada.locator("#log-toggle").get_attribute("aria-expanded") == "true"
        # A tap on a line goes to its move and closes the drawer, which covered the board.
        ada.locator("#game-log .log-entry.future").first.click()
        ada.locator("#log-panel:not(.open)").wait_for(state="attached")
        assert ada.locator("#log-toggle").get_attribute("aria-expanded") == "false"
        assert int(ada.locator("#slider").input_value()) > 3
    finally:
        server.stop()
