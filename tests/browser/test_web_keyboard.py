"""Every game can be played with the keyboard alone (Tab to a control, Enter, the arrows), and after a
move the focus is still on a control (or the table), never back on <body>."""

from __future__ import annotations

import re

import pytest
from browser_helpers import PHONE, create_room, seq, shot, shots, take_over, wait_seq
from wire import Wire, at_a_table, two_at_a_table

pytestmark = pytest.mark.browser

ON_BODY = "!document.activeElement || document.activeElement === document.body"


def _as(open_page, wire: Wire, name: str):
    """A page that takes over ``wire``'s session (the room's table comes with it)."""
    page = open_page("/")
    take_over(page, wire.token, name)
    page.locator(".table-host").wait_for()
    return page


def tab_to(page, selector: str, limit: int = 80) -> None:
    """Press Tab until the focused element matches ``selector``."""
    for _ in range(limit):
        page.keyboard.press("Tab")
        if page.evaluate("s => document.activeElement?.matches(s) ?? false", selector):
            return
    raise AssertionError(f"Tab never reached {selector}")


def _moved(page, before: int) -> None:
    wait_seq(page, before + 1)
    # Two frames: a control the move disabled or removed has lost its focus by then.
    page.evaluate("() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))")
    assert not page.evaluate(ON_BODY), "focus fell back to <body>"


def test_cheat_by_keyboard(open_page, server):
    ada, bo, cy = (Wire(server, name) for name in ("Ada", "Bo", "Cy"))
    code = ada.request("create_room", game="cheat", capacity=3)["code"]
    for p in (bo, cy):
        p.request("join", code=code)
    ada.request("start")
    for p in (bo, cy):
        p.until(lambda m: m["type"] == "game_started")
    players = [ada, bo, cy]
    while players[0].view["turn"] != 0:  # the others play until it is Ada's turn
        mover = players[players[0].view["turn"]]
        card = mover.view["hand"][0]["id"]
        mover.request("action", action={"type": "play", "cards": [card], "rank": mover.view["ranks"][0]})
        for p in players:
            p.catch_up(mover.seq)
    page = _as(open_page, ada, "Ada")
    tab_to(page, '[data-testid="hand"] button.pcard')
    in_hand = "document.activeElement?.closest('[data-testid=\"hand\"]') !== null"
    focused = "document.activeElement.dataset.id"
    first = page.evaluate(focused)
    # The hand is one tab stop (a roving tabindex): Tab leaves it, Shift+Tab comes back to the same card.
    page.keyboard.press("Tab")
    assert not page.evaluate(in_hand), "Tab moved to the next card, not out of the hand"
    page.keyboard.press("Shift+Tab")
    assert page.evaluate(focused) == first
    ids = page.locator('[data-testid="hand"] button.pcard').evaluate_all("cs => cs.map((c) => c.dataset.id)")
    page.keyboard.press("End")  # the arrows, Home and End move between the cards
    assert page.evaluate(focused) == ids[-1]
    page.keyboard.press("Enter")  # select the last card
    page.keyboard.press("ArrowLeft")
    assert page.evaluate(focused) == ids[-2]
    page.keyboard.press(" ")  # and the one before it
    page.locator('[data-testid="hand"] .pcard.selected').nth(1).wait_for()
    page.keyboard.press("Home")
    assert page.evaluate(focused) == ids[0]
    page.keyboard.press("ArrowRight")
    assert page.evaluate(focused) == ids[1]
    shots(page, "cheat-keyboard")
    assert page.evaluate(focused) == ids[1], "the focus stays on its card through a resize"
    tab_to(page, '[data-testid="place"]')
    assert "Place 2 as" in page.locator('[data-testid="place"]').inner_text()
    pile = int(page.locator('[data-testid="pile-size"]').inner_text())
    before = seq(page)
    page.keyboard.press("Enter")  # place them
    _moved(page, before)
    assert int(page.locator('[data-testid="pile-size"]').inner_text()) == pile + 2
    assert page.locator('[data-testid="hand"] button.pcard').count() == len(ids) - 2
    bo.close()
    cy.close()


def test_dots_by_keyboard(open_page, server):
    ada, bo, _ = two_at_a_table(server, "dots", {"width": 3, "height": 3})
    if ada.view["turn"] != 0:
        bo.request("action", action={"type": "line", "x": 1, "y": 2, "d": 0})
    page = _as(open_page, ada, "Ada")
    page.locator(".dots-board.mine").wait_for()
    tab_to(page, '[data-testid="dots-board"]')
    page.keyboard.press("ArrowRight")  # the cursor: the line from (1, 0) to (2, 0)
    page.keyboard.press(" ")  # turned: from (1, 0) down to (1, 1)
    page.locator('g.free.cursor[data-line="1,0,1"]').wait_for()
    before = seq(page)
    page.keyboard.press("Enter")
    page.locator('line.drawn[data-drawn="1,0,1"]').wait_for(state="attached")
    _moved(page, before)
    shots(page, "dots-keyboard")
    # Away and back: the cursor shows on the drawn line too, and each step is said.
    status = page.locator('[data-testid="dots-cursor"]')
    page.keyboard.press("ArrowRight")
    assert status.inner_text() == "Vertical line from (2, 0) to (2, 1), free"
    page.keyboard.press("ArrowLeft")
    assert status.inner_text() == "Vertical line from (1, 0) to (1, 1), drawn"
    assert page.locator('line.drawn.cursor[data-drawn="1,0,1"]').count() == 1
    page.keyboard.press("Enter")
    assert status.inner_text() == "Vertical line from (1, 0) to (1, 1) is already drawn."
    shots(page, "dots-keyboard-drawn")
    bo.close()


def test_connect_four_by_keyboard(open_page, server):
    ada, bo, _ = two_at_a_table(server, "connect_four")
    if ada.view["turn"] != 0:
        bo.request("action", action={"type": "drop", "column": 0})
    page = _as(open_page, ada, "Ada")
    tab_to(page, ".c4-col.playable")
    page.keyboard.press("Tab")  # on to the second column
    column = page.evaluate("document.activeElement.dataset.column")
    before = seq(page)
    page.keyboard.press("Enter")
    page.locator(f'.c4-col[data-column="{column}"] .disc').first.wait_for()
    _moved(page, before)
    # Bo answers: Ada's turn starts at the column she played (it started again at the first Tab stop).
    bo.catch_up(seq(page))
    before = seq(page)
    bo.request("action", action={"type": "drop", "column": 5})
    wait_seq(page, before + 1)
    page.locator(".c4-col.playable").first.wait_for()
    assert page.evaluate("document.activeElement.dataset.column") == column
    page.keyboard.press("Enter")
    page.locator(f'.c4-col[data-column="{column}"] .disc >> nth=1').wait_for()
    bo.close()


def test_uno_by_keyboard(open_page, server):
    ada, bo, _ = two_at_a_table(server, "uno")
    while bo.view["turn"] == 1:  # Bo plays (or draws) until it is Ada's turn
        legal = bo.view["legal"]
        play = next((a for a in legal if a["type"] == "play" and a["card"] < 100), None)
        kinds = {a["type"]: a for a in legal}
        bo.request("action", action=play or kinds.get("accept") or kinds.get("draw") or kinds.get("pass"))
    page = _as(open_page, ada, "Ada")
    playable = page.locator('[data-testid="hand"] button.playable').count()
    tab_to(page, '[data-testid="hand"] button.playable' if playable else 'button[data-testid="draw"]')
    before = seq(page)
    page.keyboard.press("Enter")
    if playable and page.locator("dialog[open]").count():  # a Wild: its colour by keyboard too
        page.keyboard.press("Enter")
    _moved(page, before)
    # Still in the hand (a card, or the hand itself while none plays), with its ring: not the whole table.
    assert page.evaluate("document.activeElement.closest('[data-testid=\"hand\"]') !== null")
    assert page.evaluate("document.activeElement.matches(':focus-visible')")
    shots(page, "uno-keyboard")
    bo.close()


def _tab_to_button(page, words: str) -> None:
    """Press Tab until the focused element is the button that says ``words``."""
    for _ in range(80):
        page.keyboard.press("Tab")
        if page.evaluate(
            "w => document.activeElement?.matches('button') && document.activeElement.textContent === w",
            words,
        ):
            return
    raise AssertionError(f"Tab never reached {words}")


def test_a_control_that_goes_away_leaves_no_second_enter_to_act(open_page, server):
    """Enter on Add bot filling the last seat moved the focus to "I'm ready"; Enter on "I'm ready" as
    the game began moved it to the first playable card. A second Enter, meant for the button that was
    there, readied the player or played the card."""
    page = open_page()
    create_room(page, "Ada", "uno", {"target_score": 0}, capacity=2)
    _tab_to_button(page, "Add easy bot")
    page.keyboard.press("Enter")
    page.locator("button", has_text="Add easy bot").wait_for(state="detached")
    assert page.evaluate("document.activeElement.id") == "stage"
    _tab_to_button(page, "I'm ready")
    page.keyboard.press("Enter")
    page.locator(".uno-table").wait_for(timeout=15_000)  # the bot is ready: the countdown, then the game
    assert page.evaluate("document.activeElement.id") == "stage"
    page.keyboard.press("Enter")
    page.wait_for_timeout(300)
    # A move of one's own: a play, or a draw of one's choosing (a first card's Draw Two has Ada draw
    # "(Draw Two)" with no key pressed: about one game in twenty-five, and CI met it).
    moves = page.locator("#game-log .log-text", has_text=re.compile(r"^You (played|drew)[^(]*$"))
    assert moves.count() == 0, "Enter made a move"
    page.keyboard.press("Tab")  # on into the table, not from the top of the page
    assert page.evaluate("document.querySelector('#stage').contains(document.activeElement)")


def test_add_bot_keeps_the_focus_while_seats_are_left(open_page, server):
    """Enter on "Add easy bot" added one, and the focus went to the top of the stage (the line above
    the button, "UNO needs at least 2 players", went with the seat): a second Enter did nothing. It
    stays on the button, drawn anew, so Enter adds one more, until the last seat is filled; then it is
    on no other button."""
    page = open_page()
    create_room(page, "Ada", "uno", capacity=4)
    _tab_to_button(page, "Add easy bot")
    for bots in (1, 2):
        page.keyboard.press("Enter")
        page.locator("#players .member", has_text="bot").nth(bots - 1).wait_for()
        page.wait_for_timeout(100)
        assert page.evaluate("document.activeElement.textContent") == "Add easy bot", bots
    page.keyboard.press("Enter")
    page.locator("button", has_text="Add easy bot").wait_for(state="detached")  # the last seat
    assert page.locator("#players .member", has_text="bot").count() == 3
    # Not on what took the button's place ("Just watch": a second Enter would have made Ada a spectator).
    assert page.evaluate("document.activeElement.id") == "stage"


def test_a_game_that_ends_or_is_ended_moves_the_focus_off_the_table(open_page, server):
    """A game's end left the focus on a hand or board that no longer plays; a finished game's results
    take it to their first button, a game the host ended to the stage."""
    (bo, ada), _ = at_a_table(server, "dots", ("Bo", "Ada"), {"width": 3, "height": 3})
    page = _as(open_page, ada, "Ada")
    for _ in range(30):
        if bo.view["over"]:
            break
        seen = bo.seq
        if bo.view["legal"]:
            bo.request("action", action=bo.view["legal"][0])
        else:
            page.locator('[data-testid="dots-board"].mine g.free').first.click()  # focuses the board
        if bo.seq == seen:
            bo.until(lambda m: m["type"] == "game")
    page.locator(".game-over").wait_for()
    page.evaluate("() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))")
    assert page.evaluate("document.activeElement.matches('.game-over .primary')")
    label = page.locator('[data-testid="dots-board"]').get_attribute("aria-label")
    assert label.endswith("The game is over."), label  # it said "Waiting for the other player."
    bo.request("rematch")
    ada_ready = page.locator("button", has_text="Accept rematch")
    ada_ready.click()
    page.locator(".dots-board.mine, .dots-board").first.wait_for()
    tab_to(page, '[data-testid="dots-board"]')
    bo.request("reset")  # the host ends the game: back to the waiting room
    page.locator(".dots-board").wait_for(state="detached")
    page.evaluate("() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))")
    assert page.evaluate("document.activeElement.id") == "stage"
    bo.close()


def test_a_wild_draw_four_on_you_puts_its_question_in_focus(open_page, server):
    """A Wild Draw Four played on a keyboard player asks them to challenge it or accept: the question
    takes the focus (the Challenge and Accept buttons sat before the hand, reached only by Shift+Tab),
    and the next Tab is Challenge, not a card."""
    ada, bo, _ = two_at_a_table(server, "uno", {"target_score": 0})
    page = _as(open_page, bo, "Bo")
    page.keyboard.press("Shift")  # a keyboard player: the page may move their focus
    page.locator("#stage").focus()
    # Ada draws until she holds a Wild Draw Four and plays it; Bo plays his plain cards down to two (the
    # discards then come back into the deck: Bo drawing too had emptied it about one game in twenty).
    for _ in range(200):
        ada.catch_up(seq(page))
        assert not ada.view["over"], "the round ended before a Wild Draw Four came up"
        if ada.view["turn"] == 0:
            hand = {card["id"]: card["type"] for card in ada.view["hand"]}
            kinds = {a["type"]: a for a in ada.view["legal"]}
            four = [a for a in ada.view["legal"] if a["type"] == "play" and hand[a["card"]] == "wild-draw4"]
            ada.request("action", action=four[0] if four else kinds.get("draw") or kinds["pass"])
            if four:
                break
            wait_seq(page, ada.seq)
            continue
        before = seq(page)
        plain = page.locator('[data-testid="hand"] button.playable:not(.wild)')
        held = page.locator('[data-testid="hand"] button').count()
        if plain.count() and held > 2:
            plain.first.focus()
        else:
            page.locator('[data-testid="pass"], button[data-testid="draw"]').first.focus()
        page.keyboard.press("Enter")
        wait_seq(page, before + 1)
    else:
        raise AssertionError("no Wild Draw Four in 200 moves")
    question = page.locator('[data-prompt="challenge"]')
    question.wait_for()
    page.wait_for_function("document.activeElement?.dataset.prompt === 'challenge'")
    assert "challenge it, or accept the +4?" in question.text_content()
    # Ada's own page names her as "You" (it read her own name).
    offender = _as(open_page, ada, "Ada")
    offender.get_by_text("You played Wild Draw Four — Bo may challenge").wait_for()
    # What each answer costs, said where the hand's hint is.
    costs = "Challenge: if it was a bluff they draw 4, if not you draw 6. Or accept the +4."
    page.get_by_text(costs).wait_for()
    page.set_viewport_size(PHONE)  # a phone hides the hand's hint, but not this one (it showed two buttons)
    assert page.get_by_text(costs).is_visible()
    shot(page, "uno-challenge-phone")
    page.set_viewport_size({"width": 1280, "height": 800})
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.textContent") == "Challenge!"
    shots(page, "uno-challenge-question")
    before = seq(page)
    page.keyboard.press("Enter")
    wait_seq(page, before + 1)
    page.locator("#game-log .log-text", has_text=re.compile("^You challenged")).wait_for()
    ada.close()


def test_an_uno_turn_with_nothing_to_play_starts_on_draw(open_page, server):
    """With no card that plays, a keyboard player's turn started on the hand, Draw a dozen Tabs away
    round the page: a turn the other player's move brings starts on Draw, and Enter draws. (A turn
    that follows one's own Skip stays on the hand: a second Enter meant for the Skip would draw.)"""
    ada, bo, _ = two_at_a_table(server, "uno", {"target_score": 0})
    page = _as(open_page, bo, "Bo")
    page.keyboard.press("Shift")  # a keyboard player: the page may move their focus
    page.locator("#stage").focus()
    ada_moved = False
    for _ in range(300):
        ada.catch_up(seq(page))
        if ada.view["over"]:  # Bo had a card to play every turn, and one went out: another game
            page.locator(".game-over").wait_for()
            ada.request("rematch")
            page.get_by_role("button", name="Accept rematch").click()  # both ready: it starts
            ada.until(lambda m: m["type"] == "game_started", timeout=20)
            page.locator('[data-testid="hand"]').wait_for()
            ada_moved = False
            continue
        if ada.view["turn"] == 0:  # Ada plays what she can but a Wild Draw Four, else draws
            hand = {card["id"]: card["type"] for card in ada.view["hand"]}
            legal = ada.view["legal"]
            kinds = {a["type"]: a for a in legal}
            plays = [a for a in legal if a["type"] == "play" and hand[a["card"]] != "wild-draw4"]
            move = (plays or [None])[0] or kinds.get("accept") or kinds.get("draw") or kinds.get("pass")
            ada.request("action", action=move or legal[0])
            wait_seq(page, ada.seq)
            ada_moved = True
            continue
        before = seq(page)
        if page.locator('[data-testid="hand"] button.playable').count() == 0:
            if ada_moved:
                page.wait_for_function("document.activeElement?.matches('.controls button[data-from-hand]')")
                assert page.evaluate("document.activeElement.textContent").startswith("Draw")
                page.keyboard.press("Enter")
                page.locator("#game-log .log-text", has_text=re.compile("^You drew")).first.wait_for()
                break
            tab_to(page, 'button[data-testid="draw"]')  # after one's own Skip: Tab to the pile
        # A card to play: Tab to it (the focus may be on the table), Enter; a Wild's colour, Enter.
        elif not page.evaluate("document.activeElement?.matches('[data-testid=\"hand\"] button.playable')"):
            tab_to(page, '[data-testid="hand"] button.playable')
        page.keyboard.press("Enter")
        if page.locator("dialog[open]").count():
            page.keyboard.press("Enter")
        wait_seq(page, before + 1)
        ada_moved = False
    else:
        raise AssertionError("Bo always had a card to play")
    ada.close()
