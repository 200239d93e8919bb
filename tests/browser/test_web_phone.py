"""Phone first, keyboard and screen readers: the start page's main actions on the first screen, the
UNO hand and buttons on screen at 390×844 without scrolling, Cheat! apart from Place, and focus that
never falls back to <body>."""

from __future__ import annotations

import re

import pytest
from browser_helpers import (
    CORNER,
    NARROW,
    PHONE,
    SHOTS,
    create_room,
    heading_lines,
    join_room,
    no_horizontal_scroll,
    on_screen,
    record_toasts,
    seq,
    shot,
    shots,
    start_game,
    take_over,
    tap_card,
    toasts_once_quiet,
    wait_seq,
)
from wire import Wire, at_a_table, play_to_the_end, two_at_a_table

pytestmark = pytest.mark.browser


def test_start_page_main_actions_fit_the_first_phone_screen(open_page):
    page = open_page("/", PHONE)
    page.locator("#name").wait_for()
    for selector in (
        "#name",
        '#create-form button[type="submit"]',
        '#join-form button[type="submit"]',
        "[data-quick]",
    ):
        assert on_screen(page, selector), f"{selector} is below the first screen"
    shot(page, "start-phone-first")


def test_an_invite_link_on_a_phone_offers_its_room_before_create(open_page, server):
    """A friend opening /r/CODE with no name yet: the join form, named for the room, comes right under
    the name. It stood below the whole Create panel, whose big blue button was the first one offered."""
    host = Wire(server, "Ada")
    code = host.request("create_room", game="uno")["code"]
    page = open_page(f"/r/{code}", PHONE)
    join = page.locator("#join-form")
    join.get_by_role("heading", name=f"Join room {code}").wait_for()
    # The link says which game it is and whose, before the friend joins.
    assert page.get_by_test_id("invite-facts").inner_text() == "UNO, hosted by Ada"
    assert page.locator("#join-password").is_hidden()  # the room has none: no box to wonder about
    # The host sets one after the page looked: Join is refused, and the box comes back, said to be needed.
    host.request("update_settings", password="pw")
    # Back on the tab, the page looks again: the box is there, said to be needed, before Join.
    page.evaluate("document.dispatchEvent(new Event('visibilitychange'))")
    page.locator("#join-password").wait_for(state="visible")
    assert page.locator("#join-password-note").inner_text() == "(this room has one)"
    host.request("update_settings", password="")  # and taken off again: the box goes
    page.evaluate("document.dispatchEvent(new Event('visibilitychange'))")
    page.locator("#join-password").wait_for(state="hidden")
    host.request("update_settings", password="pw")  # set once more, unseen: Join says so
    page.fill("#name", "Bo")
    join.get_by_role("button", name="Join", exact=True).click()
    page.locator("#toasts .toast", has_text="This room has a password").wait_for()
    assert page.locator("#join-password").is_visible()
    assert page.locator("#join-password-note").inner_text() == "(this room has one)"
    page.fill("#join-password", "pw")
    assert join.bounding_box()["y"] < page.locator("#create-form").bounding_box()["y"]
    assert on_screen(page, '#join-form button[type="submit"]')
    assert page.locator("#join-code").input_value() == code
    shots(page, "invite-landing")
    page.set_viewport_size(PHONE)
    page.fill("#name", "Bo")
    join.get_by_role("button", name="Join", exact=True).click()
    page.locator("#players .member", has_text="Bo").wait_for()
    # Leaving the room: the plain start page again, Create first.
    page.locator("#leave").click()
    page.locator("dialog[open]").get_by_role("button", name="Leave").click()
    page.locator("#join-form").get_by_role("heading", name="Join a game").wait_for()
    assert page.locator("#create-form").bounding_box()["y"] < join.bounding_box()["y"]
    assert page.get_by_test_id("invite-facts").count() == 0
    host.close()


CORNERS_SHOWN = """([x, y]) => [...document.querySelectorAll('[data-testid="hand"] button')].every((card) => {
    const box = card.getBoundingClientRect();
    const hit = document.elementFromPoint(box.left + x, box.top + y);
    return hit === card || card.contains(hit);
})"""
FITS = "h => h.scrollWidth <= h.clientWidth"


def _draw_up_to(players: list[Wire], ada: Wire, cards: int) -> None:
    """Ada draws (and passes) on every turn of hers; the others play, until Ada holds ``cards``. They
    never play a Draw Two or a Wild Draw Four: Ada, at 11 cards, then held 15, past what a phone's
    width fans out (the hand then scrolls sideways, as it should)."""
    for _ in range(400):
        for p in players:
            p.catch_up(max(q.seq for q in players))
        if len(ada.view["hand"]) >= cards:
            assert len(ada.view["hand"]) == cards
            return
        actor = next(p for p in players if p.view["legal"])
        kinds = {a["type"]: a for a in actor.view["legal"]}
        penalty = {c["id"] for c in actor.view["hand"] if c["type"] in ("draw2", "wild-draw4")}
        plays = [
            a
            for a in actor.view["legal"]
            if a["type"] == "play" and a.get("uno", True) and a["card"] not in penalty
        ]
        if actor is ada or not plays:
            action = kinds.get("draw") or kinds.get("accept") or kinds.get("pass")
        else:
            action = {**plays[0], "color": "red"} if "color" in plays[0] else plays[0]
        actor.request("action", action=action or actor.view["legal"][0])
    raise AssertionError(f"Ada did not reach {cards} cards")


def test_an_invite_to_a_password_room_mid_game_says_both_before_join(open_page, server):
    """The link's page asked "Password (if the room has one)" and said nothing of the game on: the
    password was asked for only after Join, and the visitor was made a spectator without a word."""
    ada, bo = Wire(server, "Ada"), Wire(server, "Bo")
    code = ada.request("create_room", game="dots", password="pw", capacity=2)["code"]
    bo.request("join", code=code, password="pw")
    ada.request("start")
    bo.until(lambda m: m["type"] == "game_started")
    page = open_page(f"/r/{code}", PHONE)
    facts = page.get_by_test_id("invite-facts")
    facts.wait_for()
    assert facts.inner_text() == (
        "Dots & Boxes, hosted by Ada. A game is on: you watch it, and may take a seat for the next."
    )
    assert page.locator("#join-password-note").inner_text() == "(this room has one)"
    assert page.locator("#join-password").is_visible()
    shots(page, "invite-password-playing")
    page.fill("#name", "Cy")
    page.fill("#join-password", "pw")
    page.locator('#join-form button[type="submit"]').click()
    page.locator(".dots-board").wait_for()
    for wire in (ada, bo):
        wire.close()


def test_a_hand_wider_than_the_phone_fades_at_the_edge_with_more_cards(open_page, server):
    """A UNO hand of 17 cards, fanned out to the narrowest strips, is still wider than a phone and
    scrolls sideways. The edge with cards beyond it fades (before: the last card in sight ended flush
    at the screen's edge, nothing said more)."""
    players, _ = at_a_table(server, "uno", ("Ada", "Bo"), {"draw_until_playable": False})
    _draw_up_to(players, players[0], 17)
    page = open_page("/", PHONE)
    take_over(page, players[0].token, "Ada")
    hand = page.locator('[data-testid="hand"]')
    hand.locator(".ucard").nth(16).wait_for()
    classes = "h => [h.classList.contains('more-left'), h.classList.contains('more-right')]"
    assert hand.evaluate(classes) == [False, True]
    assert hand.evaluate("h => getComputedStyle(h).maskImage") != "none"
    shot(page, "uno-hand-more")
    hand.evaluate("h => h.scrollTo({left: (h.scrollWidth - h.clientWidth) / 2})")
    page.wait_for_function(
        "() => document.querySelector('[data-testid=\"hand\"]').classList.contains('more-left')"
    )
    assert hand.evaluate(classes) == [True, True]
    hand.evaluate("h => h.scrollTo({left: h.scrollWidth})")
    page.wait_for_function(
        "() => !document.querySelector('[data-testid=\"hand\"]').classList.contains('more-right')"
    )
    shot(page, "uno-hand-scrolled")
    for wire in players:
        wire.close()


RANKS_SHOWN = """() => [...document.querySelectorAll('[data-testid="hand"] .pc-rank')].every((rank) => {
    const box = rank.getBoundingClientRect();
    const hit = document.elementFromPoint(box.right - 1, box.top + box.height / 2);
    return rank.parentElement.contains(hit);
})"""
ROW_TOPS = """() => new Set([...document.querySelectorAll('[data-testid="hand"] .pcard')]
    .map((c) => Math.round(c.getBoundingClientRect().top))).size"""


def test_a_three_player_cheat_hand_takes_two_rows_on_a_phone_and_one_on_a_laptop(open_page, server):
    """Three players hold 17-18 cards each. In one fanned row a phone showed each card as a strip too
    narrow for a 10 ("1(") and still scrolled sideways; now the hand takes two rows that fit the width,
    every rank whole and tappable. A laptop fans the hand into one row (it had wrapped, its second row
    below the fold while a call's cards were up)."""
    seated, _ = at_a_table(server, "cheat", ("Ada", "Bo", "Cy"))
    on_turn = next(w for w in seated if w.view["turn"] == w.view["seat"])
    page = open_page("/", PHONE)
    take_over(page, on_turn.token, on_turn.name)
    hand = page.locator('[data-testid="hand"]')
    count = len(on_turn.view["hand"])
    assert count in (17, 18)
    hand.locator(".pcard").nth(count - 1).wait_for()
    for viewport in (PHONE, NARROW):
        page.set_viewport_size(viewport)
        assert page.evaluate(ROW_TOPS) == 2
        assert hand.evaluate(FITS), hand.evaluate("h => [h.scrollWidth, h.clientWidth]")
        assert page.evaluate(RANKS_SHOWN)
        assert page.evaluate(CORNERS_SHOWN, [CORNER["x"], CORNER["y"]])
        assert no_horizontal_scroll(page)
    page.set_viewport_size(PHONE)
    card = hand.locator(".pcard").nth(count - 2)  # in the second row
    tap_card(card)
    page.locator('[data-testid="hand"] .pcard.selected').wait_for()
    assert card.get_attribute("aria-pressed") == "true"
    shot(page, "cheat-phone-rows")
    page.set_viewport_size({"width": 1280, "height": 800})
    page.mouse.move(0, 0)  # no card raised by the pointer
    page.wait_for_timeout(200)
    tops = hand.locator(".pcard:not(.selected)").evaluate_all(
        "cs => cs.map((c) => Math.round(c.getBoundingClientRect().top))"
    )
    assert len(set(tops)) == 1, tops
    assert page.evaluate(RANKS_SHOWN)
    assert on_screen(page, f'[data-testid="hand"] .pcard >> nth={count - 1}')
    shot(page, "cheat-laptop-fan")
    for wire in seated:
        wire.close()


def _cheat_turns(wires: list[Wire], until) -> Wire:
    """Each player on turn places three cards as the first rank allowed, nobody calling, until
    ``until(actor)`` holds for the player on turn (who has not placed yet): returned."""
    for _ in range(60):
        top = max(w.seq for w in wires)
        for w in wires:
            w.catch_up(top)
        actor = next(w for w in wires if w.view["turn"] == w.view["seat"])
        if until(actor):
            return actor
        cards = [c["id"] for c in actor.view["hand"][:3]]
        actor.request("action", action={"type": "play", "cards": cards, "rank": actor.view["ranks"][0]})
    raise AssertionError("the turn never came")


@pytest.mark.parametrize(("pile", "rows"), [(18, 3), (36, 4)])
def test_a_calls_verdict_clears_a_hand_of_rows_on_a_phone(open_page, server, pile, rows):
    """A lie caught hands its placer a pile of 20 or 30-odd cards: a phone's hand of three rows stood
    higher than the stylesheet's margin for the reveal, and the verdict stayed under the dock. Past 36
    cards a fourth row keeps every rank whole (three rows' strips hid the 0 of a 10)."""
    wires, _ = at_a_table(server, "cheat", ("Ada", "Bo", "Cy"))
    placer = _cheat_turns(wires, lambda w: w.view["pile_size"] >= pile and len(w.view["hand"]) >= 4)
    rank = placer.view["ranks"][0]
    lie = [c["id"] for c in placer.view["hand"] if c["rank"] != rank][:3]
    assert lie, "a hand with nothing but the rank called"
    placer.request("action", action={"type": "play", "cards": lie, "rank": rank})
    page = open_page("/", PHONE)
    take_over(page, placer.token, placer.name)
    page.locator('[data-testid="hand"] .pcard').first.wait_for()
    caller = next(w for w in wires if w is not placer)
    caller.request("action", action={"type": "call"})
    reveal = page.locator('[data-testid="reveal"]')
    reveal.wait_for()
    assert page.locator('[data-testid="hand"] .pcard').count() > 12 * (rows - 1)
    assert page.evaluate(ROW_TOPS) == rows
    assert page.evaluate(RANKS_SHOWN)
    page.wait_for_function(
        """() => {
            const box = (id) => document.querySelector(`[data-testid="${id}"]`).getBoundingClientRect();
            return box("reveal").bottom <= box("dock").top;
        }"""
    )
    assert reveal.inner_text().endswith("cards.")
    page.screenshot(path=str(SHOTS / f"cheat-phone-{rows}-rows-reveal-390.png"))
    # On a laptop the hand fans, wrapping only past a strip a card: every card inside the hand.
    page.set_viewport_size({"width": 1280, "height": 800})
    page.locator('[data-testid="hand"]').evaluate("h => h.scrollIntoView({block: 'end'})")
    assert page.evaluate(RANKS_SHOWN)
    spill = """h => Math.max(...[...h.querySelectorAll('.pcard')].map((c) => c.getBoundingClientRect().right))
        - h.getBoundingClientRect().right"""
    assert page.locator('[data-testid="hand"]').evaluate(spill) <= 0
    shot(page, f"cheat-laptop-{rows}-rows")
    for wire in wires:
        wire.close()


def test_a_long_uno_hand_fans_out_to_fit_a_phone(open_page, server):
    """Twelve cards fit a 390-px phone without scrolling: each slides under the next, its corner
    (value and colour) showing and taking the tap (the hand had scrolled from the eighth card)."""
    players, _ = at_a_table(server, "uno", ("Ada", "Bo"), {"draw_until_playable": False})
    ada = players[0]
    _draw_up_to(players, ada, 12)
    page = open_page("/", PHONE)
    take_over(page, ada.token, "Ada")
    hand = page.locator('[data-testid="hand"]')
    hand.locator(".ucard").nth(11).wait_for()
    assert hand.evaluate(FITS), hand.evaluate("h => [h.scrollWidth, h.clientWidth]")
    assert page.evaluate(CORNERS_SHOWN, [CORNER["x"], CORNER["y"]])
    assert no_horizontal_scroll(page)
    shot(page, "uno-phone-fan")
    # A phone held sideways: the hand beside the buttons, fanned to its width too.
    page.set_viewport_size({"width": 844, "height": 390})
    assert hand.evaluate(FITS), hand.evaluate("h => [h.scrollWidth, h.clientWidth]")
    assert page.evaluate(CORNERS_SHOWN, [CORNER["x"], CORNER["y"]])
    shot(page, "uno-phone-fan-landscape")
    # A laptop's hand wraps into rows of whole cards, not fanned.
    page.set_viewport_size({"width": 1280, "height": 800})
    assert hand.evaluate("h => getComputedStyle(h.querySelectorAll('.ucard')[1]).marginRight") == "0px"
    for wire in players:
        wire.close()


def test_a_cheat_hand_fans_out_to_fit_a_phone(open_page, server):
    """Four players' 13 cards each fit a phone's width, every rank in sight and tappable; a card
    picked by its corner is selected."""
    seated, _ = at_a_table(server, "cheat", ("Ada", "Bo", "Cy", "Di"))
    on_turn = next(w for w in seated if w.view["turn"] == w.view["seat"])
    page = open_page("/", PHONE)
    take_over(page, on_turn.token, on_turn.name)
    hand = page.locator('[data-testid="hand"]')
    hand.locator(".pcard").nth(12).wait_for()
    assert hand.evaluate(FITS), hand.evaluate("h => [h.scrollWidth, h.clientWidth]")
    assert page.evaluate(CORNERS_SHOWN, [CORNER["x"], CORNER["y"]])
    card = hand.locator(".pcard").nth(5)
    tap_card(card)
    page.locator('[data-testid="hand"] .pcard.selected').wait_for()
    assert card.get_attribute("aria-pressed") == "true"
    shot(page, "cheat-phone-fan")
    for wire in seated:
        wire.close()


@pytest.mark.parametrize("game", ["uno", "cheat"])
def test_on_a_phone_the_dock_shows_whose_turn_it_is(open_page, server, game):
    """The hint line ("Your turn — …") is hidden on phones for room: the dock itself marks the turn
    (before, only a small badge in the seat chips and the players' list did)."""
    seated, _ = at_a_table(server, game, ("Ada", "Bo", "Cy"))
    on_turn = next(w for w in seated if w.view["turn"] == w.view["seat"])
    waiting = next(w for w in seated if w.view["turn"] != w.view["seat"])
    widths = []
    for wire in (on_turn, waiting):
        page = open_page("/", PHONE)
        take_over(page, wire.token, wire.name)
        dock = page.locator('[data-testid="dock"]')
        dock.wait_for()
        widths.append(dock.evaluate("d => getComputedStyle(d).borderTopWidth"))
        if wire is on_turn:
            shot(page, f"{game}-phone-dock-my-turn")
    assert widths == ["3px", "1px"]
    for wire in seated:
        wire.close()


def test_focus_stays_in_the_room_after_create_room_by_keyboard(open_page):
    page = open_page()
    page.fill("#name", "Ada")
    page.locator('#create-form button[type="submit"]').focus()
    page.keyboard.press("Enter")  # keyboard only
    page.locator("#screen-room").wait_for()
    page.wait_for_function("document.activeElement && document.activeElement !== document.body")
    # On the waiting room itself, not on its first button, which a second Enter would press.
    assert page.evaluate("document.activeElement.id") == "stage"
    page.keyboard.press("Tab")  # the next Tab goes on from there
    assert page.evaluate("document.activeElement.tagName") == "BUTTON"
    assert page.evaluate("document.querySelector('#stage').contains(document.activeElement)")


def test_uno_table_shows_hand_and_buttons_without_scrolling_on_a_phone(open_page):
    ada, bo = open_page("/", PHONE), open_page("/", PHONE)
    code = create_room(ada, "Ada", "uno", capacity=2)
    join_room(bo, "Bo", code)
    start_game(ada, [ada, bo])
    sevens = 0
    for page in (ada, bo):
        page.evaluate("window.scrollTo(0, 0)")
        page.locator('[data-testid="hand"] .ucard').first.wait_for()
        assert page.evaluate("window.scrollY") == 0
        assert on_screen(page, '[data-testid="hand"] .ucard')
        assert on_screen(page, '[data-testid="uno"]')
        assert on_screen(page, '[data-testid="top"]')
        dock = page.locator('[data-testid="dock"]').bounding_box()
        top = page.locator('[data-testid="top"]').bounding_box()
        assert top["y"] + top["height"] <= dock["y"], "the table fits above the dock"
        # The whole starting hand is in view: no sideways scrolling to find the seventh card.
        hand = page.locator('[data-testid="hand"]')
        # Seven each; a Draw Two turned up as the first card gives the first player two more at once.
        cards = hand.locator(".ucard").count()
        assert cards in (7, 9), cards
        sevens += cards == 7
        if cards == 7:
            assert hand.evaluate("h => h.scrollWidth <= h.clientWidth"), hand.evaluate("h => h.scrollWidth")
        assert page.locator('[data-testid="hand"] .ucard').first.bounding_box()["width"] >= 40
    assert sevens >= 1, "one player at least holds a starting hand of seven"
    shot(ada, "uno-phone-hand")
    # The dock stays at the bottom when the page scrolls to the chat.
    ada.evaluate("window.scrollTo(0, document.body.scrollHeight)")
    assert on_screen(ada, '[data-testid="uno"]')
    shot(ada, "uno-phone-dock")


def test_uno_top_card_and_its_colour_stay_above_the_dock_on_small_and_short_screens(open_page, server):
    """Four players, two with long names, seen on a 320 × 568 and a 360 × 640 phone and on short screens
    (640 × 400, a phone held sideways): the seat chips keep to one line each, so the card to match, the
    colour named and the draw pile's count are all above the dock; before, four chips took four rows on
    the phones (and two on the short screen) and pushed them under it, and at 640 × 400 the count sat
    under the pile, under the dock."""
    names = ("Ada", "Bartholomew", "Cy", "Dionysia Long")
    wires, _ = at_a_table(server, "uno", names, {"target_score": 500})
    for width, height in ((320, 568), (360, 640), (640, 400), (844, 390), (640, 360)):
        page = open_page("/", {"width": width, "height": height})
        take_over(page, wires[0].token, "Ada")  # each page in turn takes Ada's seat
        page.locator('[data-testid="hand"] .ucard').first.wait_for()
        page.evaluate("window.scrollTo(0, 0)")
        dock = page.locator('[data-testid="dock"]').bounding_box()
        for what in ("top", "colour", "draw"):
            box = page.locator(f'[data-testid="{what}"]').bounding_box()
            assert box["y"] + box["height"] <= dock["y"], (width, height, what, box, dock)
        if height < 500:  # sideways the match's line stands beside the piles (under them, it was half hidden)
            box = page.locator(".uno-centre .match").bounding_box()
            assert box["y"] + box["height"] <= dock["y"], (width, height, "match", box, dock)
        chips = page.locator(".table-host .seats .seat").evaluate_all(
            "cs => cs.map((c) => [c.getBoundingClientRect().height, c.scrollWidth - c.clientWidth])"
        )
        # Each on one line, nothing sticking out.
        assert all(h < 50 and over <= 0 for h, over in chips), (width, height, chips)
        # A score says it is one ("0 pts"): bare, it read as a second count beside the cards.
        scores = page.locator(".table-host .seats .seat .score").evaluate_all(
            "ss => ss.map((s) => [s.textContent.trim(), s.querySelector('.unit').offsetWidth])"
        )
        assert all(text == "0 pts" and unit > 8 for text, unit in scores), scores
        # The names cut short are still whole for screen readers and in the players' list.
        assert "Dionysia Long" in page.locator(".table-host .seats").inner_text()
        # UNO! with seven cards cannot be called: grey, not a faded salmon that looked broken.
        assert "grayscale" in page.locator('[data-testid="uno"]').evaluate(
            "b => b.disabled && getComputedStyle(b).filter"
        )
        # Ada's own chip, its "you" badge hidden for room, still stands out: a stripe down its side.
        stripe = "c => getComputedStyle(c).boxShadow"
        mine = page.locator(".table-host .seats .seat.me").evaluate(stripe)
        assert "inset" in mine and "inset" not in page.locator(
            ".table-host .seats .seat:not(.me)"
        ).first.evaluate(stripe)
        shot(page, f"uno-four-chips-{height}")
        page.close()
    for wire in wires:
        wire.close()


def test_cheat_button_stands_apart_from_place(open_page):
    pages = [open_page("/", PHONE) for _ in range(3)]
    code = create_room(pages[0], "Ada", "cheat", capacity=3)
    join_room(pages[1], "Bo", code)
    join_room(pages[2], "Cy", code)
    start_game(pages[0], pages)
    place = pages[0].locator('[data-testid="place"]').bounding_box()
    cheat = pages[0].locator('[data-testid="cheat"]').bounding_box()
    same_row = abs(place["y"] - cheat["y"]) < place["height"]
    assert not same_row or cheat["x"] - (place["x"] + place["width"]) >= 24
    # The player on turn ("Select cards for Aces") has Place and Cheat! on one row at 360 px too: a second
    # row made the dock cover a call's verdict and the last-card warning.
    first = next(p for p in pages if p.locator('[data-testid="hand"] button.pcard:not([disabled])').count())
    first.set_viewport_size({"width": 360, "height": 640})
    assert first.locator('[data-testid="place"]').inner_text() == "Select cards for Aces"
    place, cheat = (first.locator(f'[data-testid="{t}"]').bounding_box() for t in ("place", "cheat"))
    assert cheat["y"] < place["y"] + place["height"] / 2 < cheat["y"] + cheat["height"], (place, cheat)
    first.set_viewport_size(PHONE)
    shot(pages[0], "cheat-phone-dock")

    # A call's reveal, to its result line, shows above the dock without scrolling.
    placer = next(p for p in pages if p.locator('[data-testid="hand"] button.pcard:not([disabled])').count())
    tap_card(placer.locator('[data-testid="hand"] button.pcard').first)
    before = seq(placer)
    placer.locator('[data-testid="place"]').click()
    caller = next(p for p in pages if p is not placer)
    for page in pages:
        wait_seq(page, before + 1)
    # The claim a call tests is on the Cheat button, in sight on a small phone (the dock covered the
    # table's "Just placed by" line), and Place names the rank to announce.
    placer_name = ("Ada", "Bo", "Cy")[pages.index(placer)]
    nxt = next(p for p in pages if p.locator('[data-testid="hand"] button.pcard:not([disabled])').count())
    place = nxt.locator('[data-testid="place"]')
    assert place.inner_text() == "Select cards for 2s"
    place_box, cheat_box = place.bounding_box(), nxt.locator('[data-testid="cheat"]').bounding_box()
    middle = place_box["y"] + place_box["height"] / 2
    assert cheat_box["y"] < middle < cheat_box["y"] + cheat_box["height"], "Place and Cheat! on one row"
    caller.set_viewport_size({"width": 360, "height": 640})  # the caller may be the next player too
    caller.evaluate("window.scrollTo(0, 0)")
    claim = caller.locator('[data-testid="cheat-on"]')
    assert claim.inner_text() == f"on {placer_name}'s one Ace"  # "1 × Ace" read as a sum
    box = claim.bounding_box()
    assert box["y"] + box["height"] <= 640 and box["width"] > 0, box
    shot(caller, "cheat-phone-claim")
    caller.set_viewport_size(PHONE)
    caller.locator('[data-testid="cheat"]').click()
    caller.locator('[data-testid="reveal"]').wait_for()
    caller.evaluate("window.scrollTo(0, 0)")
    reveal = caller.locator('[data-testid="reveal"]')
    assert reveal.inner_text().endswith("picked up 1 card.")
    box, dock = reveal.bounding_box(), caller.locator('[data-testid="dock"]').bounding_box()
    assert box["y"] + box["height"] <= dock["y"], (box, dock)
    shot(caller, "cheat-phone-reveal")


def test_seat_chips_show_offline_and_bot_badges(open_page, server):
    ada, bo = Wire(server, "Ada"), Wire(server, "Bo")
    code = ada.request("create_room", game="dots", settings={"width": 6, "height": 6}, capacity=3)["code"]
    bo.request("join", code=code)
    ada.request("add_bot", level="easy")
    ada.request("start")
    bo.until(lambda m: m["type"] == "game_started")
    page = open_page("/", PHONE)  # Ada's page takes her session over
    take_over(page, ada.token, "Ada")
    chips = page.locator(".table-host .seats .seat")
    chips.first.wait_for()

    def chip(name: str):
        return chips.filter(has=page.locator(".seat-name", has_text=re.compile(f"^{name}$")))

    names = chips.locator(".seat-name").all_inner_texts()
    robot = next(n for n in names if n not in ("Ada", "Bo"))
    # Its level is said (it said "bot"); on a phone's chip it is read out, and shown in the players' list.
    assert chip(robot).locator(".badge.bot").text_content() == "easy bot"
    assert chip("Bo").locator(".badge.off").count() == 0
    bo.close()  # Bo's page closes: his chip says so on the table, not only in the side panel
    chip("Bo").locator(".badge.off", has_text="offline").wait_for()
    assert page.locator(".table-host .seats .badge.off").count() == 1
    # On the chip, short of room: "bot in 56 s", whole (it was cut to "offline · b…", then read "offline
    # 56 s", as if he had been gone that long); read out in full.
    badge = chip("Bo").locator(".badge.off")
    badge.locator(".timer-text").wait_for()
    assert badge.locator(".more").text_content() == "offline · "
    assert badge.locator(".more").evaluate("m => m.getBoundingClientRect().width") <= 1  # unseen
    assert re.fullmatch(r"offline · bot in \d+ s", badge.text_content()), badge.text_content()
    assert badge.evaluate("b => b.scrollWidth <= b.clientWidth")
    shots(page, "dots-seat-badges")


BOX = "e => { const r = e.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; }"


def _overlap(a: list[float], b: list[float]) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def _covered(page, toast, keep: str) -> list[str]:
    """What of ``keep`` (a selector list) the toast covers, by id or class; the toast must be on the
    phone's screen."""
    box = toast.evaluate(BOX)
    assert box[1] >= 0 and box[3] <= PHONE["height"] and box[2] - box[0] > 0, box
    names = page.locator(keep).evaluate_all("es => es.map(e => e.id || e.className)")
    boxes = page.locator(keep).evaluate_all(f"es => es.map({BOX})")
    return [name for name, other in zip(names, boxes, strict=True) if _overlap(box, other)]


def test_toast_leaves_the_top_bar_and_the_table_readable_on_a_phone(open_page, server):
    """A toast ("Cy is watching") on a phone mid-game covers none of the top bar's name, status and
    buttons, nor the room's buttons, the seats or the hand; it is on screen and announced."""
    ada, bo, code = two_at_a_table(server, "uno", {"target_score": 500})
    page = open_page("/", PHONE)  # Bo's page takes his session over
    take_over(page, bo.token, "Bo")
    page.locator('[data-testid="hand"] .ucard').first.wait_for()
    cy = Wire(server, "Cy")
    cy.request("spectate", code=code)
    toast = page.locator("#toasts .toast", has_text="Cy is watching")
    toast.wait_for()
    keep = ".topbar .brand, #conn, #theme, #mute, #leave, #log-toggle, .seats .seat, [data-testid='hand']"
    covered = _covered(page, toast, keep)
    assert not covered, f"the toast covers {covered}"
    assert page.locator("#toasts").get_attribute("aria-live") == "polite"
    assert toast.get_attribute("role") == "status"
    shot(page, "toast-phone")
    cy.close()
    ada.close()
    bo.close()


def test_toast_in_the_waiting_room_leaves_the_room_code_and_its_link_readable_on_a_phone(open_page, server):
    """Before a game the room code and "Copy link" are what a host on a phone reads out and presses:
    the toast that answers "Copy link", and the one that says a friend came, show below their line,
    never over it nor over the top bar."""
    page = open_page("/", PHONE)
    code = create_room(page, "Ada", "uno")
    keep = ".topbar .brand, #conn, #theme, #mute, #room-code, #copy-link"
    page.click("#copy-link")
    copied = page.locator("#toasts .toast").first  # "Link copied", or the link itself without a clipboard
    copied.wait_for()
    covered = _covered(page, copied, keep)
    assert not covered, f"the toast covers {covered}"
    shot(page, "toast-phone-waiting")
    bo = Wire(server, "Bo")
    bo.request("join", code=code)
    joined = page.locator("#toasts .toast", has_text="Bo joined")
    joined.wait_for()
    covered = _covered(page, joined, keep)
    assert not covered, f"the toast covers {covered}"
    bo.close()


def test_the_top_bar_and_the_room_code_keep_one_line_on_a_320_px_phone(open_page):
    """On the smallest phones the top bar's name, status and buttons, and the room code with its
    "Copy link", each stay on one line: the toasts' places are set below those lines."""
    page = open_page("/", {"width": 320, "height": 640})
    create_room(page, "Ada", "uno")
    line = page.evaluate("parseFloat(getComputedStyle(document.documentElement).fontSize)")
    top_bar = page.locator(".topbar").evaluate("e => e.getBoundingClientRect().height")
    assert top_bar <= 3.4 * line + 1, top_bar  # --topbar-h
    code = page.locator(".code-box").evaluate("e => e.getBoundingClientRect().height")
    button = page.locator("#copy-link").evaluate("e => e.getBoundingClientRect().height")
    assert code <= button + 1, (code, button)
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    shot(page, "waiting-room-320")


def test_a_private_rooms_table_keeps_the_pile_above_the_dock_on_small_phones(open_page, server):
    """A private room's code has eight characters: on a 320 × 568 or a 375 × 667 phone it still shares
    its line with its button, four players' seat chips take two rows from 360 px up (the player on
    turn's own chip, the widest, says "to play" as a triangle; screen readers still hear the words),
    and the pile and its top card are above the dock."""
    names = ("Ada", "Bo", "Cy", "Di")
    wires, code = at_a_table(server, "uno", names)
    assert len(code) == 8
    mover = wires[0].view["turn"]  # seats follow the order of joining
    page = open_page("/", {"width": 375, "height": 667})
    take_over(page, wires[mover].token, names[mover])
    page.locator('[data-testid="hand"] .ucard').first.wait_for()
    turn = page.locator(".seat.me.turn")
    assert turn.get_attribute("aria-current") == "true" and "to play" in turn.inner_text()
    for width, height in ((375, 667), (360, 640), (320, 568)):
        page.set_viewport_size({"width": width, "height": height})
        page.evaluate("window.scrollTo(0, 0)")
        line = page.locator(".code-box").evaluate("e => e.getBoundingClientRect().height")
        button = page.locator("#copy-link").evaluate("e => e.getBoundingClientRect().height")
        assert line <= button + 1, (width, line, button)
        assert page.get_by_role("button", name="Copy link").is_visible()
        rows = page.evaluate(
            "new Set([...document.querySelectorAll('.seats > li')]"
            ".map(e => Math.round(e.getBoundingClientRect().top))).size"
        )
        assert rows <= (2 if width >= 360 else 3), (width, rows)
        dock = page.locator('[data-testid="dock"]').bounding_box()
        top = page.locator('[data-testid="top"]').bounding_box()
        assert top["y"] >= 0 and top["y"] + top["height"] <= dock["y"], (width, top, dock)
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
        shot(page, "uno-private-small")


SIDEWAYS = {"width": 844, "height": 390}


@pytest.mark.parametrize("viewport", [SIDEWAYS, {"width": 640, "height": 360}], ids=["844x390", "640x360"])
def test_a_phone_held_sideways_keeps_the_hand_the_buttons_and_the_pile_on_one_screen(
    open_page, server, viewport
):
    """A phone turned to landscape is wider than a phone but only 360-390 px high: the hand and the
    buttons stay docked at the bottom, and the pile stays in view above them, for the host as for a
    guest. The heading keeps one line: the host's tools are in the players' panel, as on a phone (in
    the heading, with Chat beside Log, they pushed Exit to a line of its own and the pile under the
    dock at 844 × 390, and at 640 × 360 the pile was under the dock for everyone)."""
    (ada, bo), _ = at_a_table(server, "uno", ("Ada", "Bo"))
    for wire, name in ((ada, "Ada"), (bo, "Bo")):
        page = open_page("/", viewport)
        take_over(page, wire.token, name)
        page.locator('[data-testid="hand"] .ucard').first.wait_for()
        page.evaluate("window.scrollTo(0, 0)")
        selectors = ['[data-testid="hand"] .ucard', '[data-testid="uno"]', "#leave"]
        if wire.view["legal"]:  # the player on turn: the dock has Draw too
            selectors.append('[data-testid="dock"] button.big')
        for selector in selectors:
            assert on_screen(page, selector), f"{selector} is off the first screen for {name}"
        assert heading_lines(page) == 1, name
        dock = page.locator('[data-testid="dock"]').bounding_box()
        top = page.locator('[data-testid="top"]').bounding_box()
        assert top["y"] >= 0 and top["y"] + top["height"] <= dock["y"], (
            f"the pile is under the dock for {name}"
        )
        tools = page.locator("#host-tools-side")
        if name == "Ada":
            tools.get_by_role("button", name="End game").scroll_into_view_if_needed()
            assert tools.get_by_role("button", name="End game").is_visible()
            shot(page, f"uno-sideways-host-tools-{viewport['height']}")
        else:
            assert not tools.is_visible()
            shot(page, f"uno-sideways-{viewport['height']}")
        page.close()

    (cy, _, _), _ = at_a_table(server, "cheat", ("Cy", "Di", "Ed"))
    page = open_page("/", viewport)  # a fresh tab: the last one's address would offer its room back
    take_over(page, cy.token, "Cy")
    page.locator('[data-testid="hand"] .pcard').first.wait_for()
    for selector in (
        '[data-testid="hand"] .pcard',
        '[data-testid="place"]',
        '[data-testid="cheat"]',
        "#leave",
    ):
        assert on_screen(page, selector), f"{selector} is off the first screen"
    # Cy's 18 cards keep one fanned row beside Place and Cheat!, and the pile stays above them. At 844
    # px the row holds them all (at 640 it scrolls, each card's corner still whole).
    tops = page.locator('[data-testid="hand"] .pcard').evaluate_all(
        "cs => cs.map((c) => c.getBoundingClientRect().top)"
    )
    assert len(tops) == 18 and max(tops) - min(tops) < 2, tops
    fits = page.locator('[data-testid="hand"]').evaluate("h => h.scrollWidth <= h.clientWidth")
    assert fits or viewport["width"] < 700
    dock = page.locator('[data-testid="dock"]').bounding_box()
    for part in ('[data-testid="pile-size"]', ".pile .pcard"):  # the count and the card (or its outline)
        pile = page.locator(part).bounding_box()
        assert pile["y"] + pile["height"] <= dock["y"], f"{part} is under the dock"
    shot(page, f"cheat-sideways-{viewport['height']}")


def test_chat_out_of_sight_shows_as_a_toast_and_in_sight_does_not(open_page, server):
    """On a phone mid-game the chat is below the table: a line someone else sends shows as a toast
    (not announced twice: the chat's own list is the live region). Where the chat is on screen beside
    the table (a laptop), or for one's own line, no toast."""
    ada, bo, code = two_at_a_table(server, "uno", {"target_score": 500})
    phone, laptop = open_page("/", PHONE), open_page("/")
    take_over(phone, bo.token, "Bo")
    cy = Wire(server, "Cy")
    cy.request("spectate", code=code)
    take_over(laptop, cy.token, "Cy")
    for page in (phone, laptop):
        page.locator('[data-testid="top"]').wait_for()
    ada.request("chat", text="good luck, have fun")
    toast = phone.locator("#toasts .toast", has_text="Ada: good luck, have fun")
    toast.wait_for()
    assert toast.get_attribute("aria-hidden") == "true" and toast.get_attribute("role") is None
    shot(phone, "chat-toast")
    laptop.locator("#chat-log li", has_text="good luck, have fun").wait_for()
    assert laptop.locator("#toasts .toast", has_text="good luck").count() == 0
    record_toasts(phone)
    phone.fill("#chat-input", "thanks")
    phone.press("#chat-input", "Enter")
    phone.locator("#chat-log li.mine", has_text="thanks").wait_for()
    assert not [t for t in toasts_once_quiet(phone) if "thanks" in t]  # one's own words: no toast
    for wire in (ada, bo, cy):
        wire.close()


def test_a_phones_chat_button_counts_what_came_unseen_and_takes_you_there(open_page, server):
    """On a phone the chat is below the table: a toast for 4 s was all that said a line came, and the
    tab's title counted only while the tab was hidden. The heading's Chat button counts the lines that
    came out of sight until the chat is seen; pressed, it brings the chat's input up. A laptop shows
    the chat beside the table, and no button."""
    ada, bo, _ = two_at_a_table(server, "uno", {"target_score": 500})
    page = open_page("/", {"width": 320, "height": 640})
    take_over(page, bo.token, "Bo")
    page.locator('[data-testid="top"]').wait_for()
    jump = page.locator("#chat-jump")
    assert jump.inner_text() == "Chat"
    for text in ("good luck", "have fun"):
        ada.request("chat", text=text)
    jump.locator(".unread", has_text="2").wait_for()
    assert jump.locator(".unread").get_attribute("aria-label") == "2 new"
    # A long line's toast keeps to one line, clear of Chat and its count (on two it covered them).
    ada.request("chat", text="that was a long game, shall we play another round of this after dinner?")
    toast = page.locator("#toasts .toast.chat", has_text="Ada: that was a long game")
    toast.wait_for()
    jump.locator(".unread", has_text="3").wait_for()
    box, chat = toast.bounding_box(), jump.bounding_box()
    assert box["height"] < 32 and box["y"] + box["height"] <= chat["y"], (box, chat)
    assert heading_lines(page) == 2  # the code's line, then the game, its state, Chat, Log and Exit
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    shot(page, "chat-unseen")
    jump.click()
    page.wait_for_function("() => document.activeElement.id === 'chat-input'")
    jump.locator(".unread").wait_for(state="detached")
    assert on_screen(page, "#chat-input")
    page.locator("#chat-log li", has_text="after dinner?").wait_for()
    ada.request("chat", text="in sight")  # the chat on screen: nothing unseen
    page.locator("#chat-log li", has_text="in sight").wait_for()
    assert jump.locator(".unread").count() == 0
    page.set_viewport_size({"width": 1280, "height": 800})
    assert jump.is_hidden()
    for wire in (ada, bo):
        wire.close()


def test_a_host_on_a_phone_finds_the_room_tools_under_the_players_and_keeps_one_heading_line(
    open_page, server
):
    """The room's heading on a phone is the code's line and one more (status, Log, Exit): the host's
    End game and Close room wait under the players, where they still work."""
    ada, bo, _ = two_at_a_table(server, "uno", {"target_score": 500})
    page = open_page("/", PHONE)
    take_over(page, ada.token, "Ada")  # Ada is the host
    page.locator('[data-testid="hand"] .ucard').first.wait_for()
    status, log, leave = (page.locator(s).bounding_box() for s in ("#room-status", "#log-toggle", "#leave"))
    assert abs(status["y"] + status["height"] / 2 - (leave["y"] + leave["height"] / 2)) < 8, (status, leave)
    assert abs(log["y"] - leave["y"]) < 8, (log, leave)
    assert page.locator("#host-tools button").first.is_hidden()
    shot(page, "host-phone-heading")
    page.locator("#host-tools-side").get_by_role("button", name="End game").click()
    page.locator("dialog[open]").get_by_role("button", name="End game").click()
    page.locator("#screen-room[data-state='waiting']").wait_for()
    assert page.locator("#host-tools-side").get_by_role("button", name="End game").count() == 0
    assert page.locator("#host-tools-side").get_by_role("button", name="Close room").is_visible()
    ada.close()
    bo.close()


def _move_until_the_others_turn(mover: Wire) -> None:
    """``mover`` plays (a non-Wild card if it has one, else draws or passes) until the turn leaves it
    (a Skip or a Reverse between two players keeps it)."""
    seat = mover.view["turn"]
    while mover.view["turn"] == seat:
        legal = mover.view["legal"]
        plays = [a for a in legal if a["type"] == "play" and a["card"] < 100]
        kinds = {a["type"]: a for a in legal}
        action = (plays or [kinds.get("draw") or kinds.get("pass") or legal[0]])[0]
        if action["type"] == "play" and "color" in action:
            action = {**action, "color": "red"}
        seq = mover.seq
        mover.request("action", action=action)
        mover.catch_up(seq + 1)


def test_a_turn_that_comes_while_the_hand_is_out_of_sight_shows_as_a_toast(open_page, server):
    """A phone player scrolled down to the chat does not see the dock: their turn shows as a toast
    (besides the sound). With the hand in sight the table says it, and no toast does."""
    hand = '[data-testid="hand"] .ucard'
    for scrolled_down in (False, True):
        page = open_page("/", {"width": 390, "height": 640})  # a phone with its browser's bars shown
        toast = page.locator("#toasts .toast", has_text="Your turn")
        ada, bo, code = two_at_a_table(server, "uno", {"target_score": 500})
        watchers = [Wire(server, f"Fan {n}") for n in range(4)]  # a longer list to scroll past
        for watcher in watchers:
            watcher.request("spectate", code=code)
        first, second = (ada, bo) if ada.view["legal"] else (bo, ada)
        take_over(page, second.token, "Bo" if second is bo else "Ada")
        page.locator(hand).first.wait_for()
        if scrolled_down:
            page.evaluate("window.scrollTo(0, document.body.scrollHeight)")  # down at the chat
        assert on_screen(page, hand) != scrolled_down
        record_toasts(page)
        _move_until_the_others_turn(first)
        if scrolled_down:
            toast.wait_for()
            assert toast.get_attribute("aria-hidden") == "true"  # the table's announcement says it
            shot(page, "turn-toast")
        else:
            wait_seq(page, first.seq)
            assert not [t for t in toasts_once_quiet(page) if "Your turn" in t]  # not even queued
        for wire in (ada, bo, *watchers):
            wire.close()


def test_a_game_starts_with_its_table_in_sight_on_a_landscape_phone(open_page, server):
    """A guest scrolled down the waiting room to ready up; the new table was drawn with the page still
    scrolled there, its hand at the top and the pile above the screen."""
    ada = Wire(server, "Ada")
    code = ada.request("create_room", game="uno", settings={"target_score": 0}, capacity=3)["code"]
    page = open_page("/", {"width": 844, "height": 390})
    join_room(page, "Bo", code)
    page.evaluate("window.scrollTo(0, document.body.scrollHeight)")
    page.get_by_role("button", name="I'm ready").click()
    page.evaluate("window.scrollTo(0, document.body.scrollHeight)")  # reading the chat, as people do
    ada.request("start")
    page.locator('[data-testid="hand"]').wait_for()
    page.evaluate("() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))")
    assert page.evaluate("document.querySelector('#stage').getBoundingClientRect().top") >= 0
    assert on_screen(page, ".uno-centre")
    shot(page, "uno-landscape-start")
    ada.close()


@pytest.mark.parametrize(("width", "height", "seats"), [(360, 640, 4), (844, 390, 7)])
def test_a_bots_name_is_not_cut_short_in_a_phones_seat_chips(open_page, server, width, height, seats):
    """The chips stand in columns (two on a 360 × 640 phone, five on one held sideways): a bot on turn
    ("Bot 3", its badge, its cards, the turn's triangle, its points) was cut to "Bo…", read as the
    player Bo beside it, and its points were cut off."""
    bo = Wire(server, "Bo")
    code = bo.request("create_room", game="uno", settings={"target_score": 500}, capacity=seats)["code"]
    for _ in range(seats - 1):
        bo.request("add_bot", level="easy")
    bo.request("start")
    page = open_page(f"/r/{code}", {"width": width, "height": height})  # Cy watches
    page.fill("#name", "Cy")
    page.click("#spectate-btn")
    page.locator(".uno-table").wait_for()
    # A bot on turn: its chip is the fullest. Bo plays when it is theirs (the bots wait for them).
    for _ in range(50):
        if page.locator(".seats .seat.turn", has=page.locator(".badge.bot")).count():
            break
        if bo.view and bo.view["turn"] == bo.view["seat"] and bo.view["legal"]:
            bo.request("action", action=bo.view["legal"][0])
        else:
            bo.until(lambda m: m["type"] in ("game_started", "game"), timeout=5)
    cut = """() => [...document.querySelectorAll('.seats .seat')].flatMap(chip => [...chip.children]
        .filter(c => getComputedStyle(c).position !== 'absolute')
        .filter(c => c.scrollWidth > c.clientWidth + 1
            || c.getBoundingClientRect().right > chip.getBoundingClientRect().right)
        .map(c => chip.querySelector('.seat-name').textContent + ': ' + c.className))"""
    assert page.evaluate(cut) == []
    tops = page.locator(".seats .seat").evaluate_all("chips => chips.map(c => c.offsetTop)")
    assert len(set(tops)) == 2, "two rows"
    shot(page, f"uno-{seats}-bots-phone")
    bo.close()


def test_seven_players_leave_the_card_to_match_above_the_dock_on_a_tall_phone(open_page, server):
    """On a 390 × 844 phone the chips stood one to a row: seven players pushed the top card and the
    colour named under the dock."""
    bo = Wire(server, "Bo")
    bo.request("create_room", game="uno", settings={"target_score": 500}, capacity=7)
    for _ in range(6):
        bo.request("add_bot", level="easy")
    bo.request("start")
    page = open_page("/", PHONE)
    take_over(page, bo.token, "Bo")
    page.locator('[data-testid="hand"] .ucard').first.wait_for()
    page.evaluate("window.scrollTo(0, 0)")
    # Measured in one go: six bots move on, and a box read between two renders was of no element.
    boxes = page.evaluate(
        """() => Object.fromEntries(["dock", "top", "colour", "draw"].map((id) => {
            const box = document.querySelector(`[data-testid="${id}"]`).getBoundingClientRect();
            return [id, { y: box.y, height: box.height }];
        }))"""
    )
    dock = boxes.pop("dock")
    for what, box in boxes.items():
        assert box["y"] + box["height"] <= dock["y"], (what, box, dock)
    shot(page, "uno-seven-tall-phone")


def test_a_rematch_pressed_low_on_a_phone_opens_the_waiting_room_at_its_top(open_page, server):
    """Below the results and the table, Rematch opened the waiting room scrolled halfway down it."""
    (ada, bo), _ = at_a_table(server, "dots", ("Ada", "Bo"), {"width": 3, "height": 3})
    play_to_the_end([ada, bo])
    page = open_page("/", PHONE)
    take_over(page, bo.token, "Bo")
    rematch = page.get_by_role("button", name="Rematch")
    rematch.wait_for()
    # Scrolled down to it: the button at the top of the screen, the results' heading above it.
    rematch.evaluate("b => window.scrollBy(0, b.getBoundingClientRect().top - 20)")
    assert page.evaluate("document.querySelector('#stage').getBoundingClientRect().top") < 0
    rematch.click()
    page.locator(".countdown, button:has-text('Ready')").first.wait_for()
    page.wait_for_function("document.querySelector('#stage').getBoundingClientRect().top > -1")
    ada.close()


def test_cheats_any_rank_picker_has_a_row_of_its_own_in_a_phones_dock(open_page, server):
    """With "any rank" announced, the picker squeezed in beside Place and Cheat!: Cheat! was cut to
    "heat", Place wrapped to four lines, and the page was 9 px wider than a 390-px phone."""
    wires, _ = at_a_table(server, "cheat", ("Ada", "Bo", "Cy"), {"rank_sequence": "any"})
    ada = wires[0]
    for _ in range(10):  # someone else places first: Ada's turn then asks which rank to announce
        for wire in wires:
            wire.catch_up(max(w.seq for w in wires))
        if ada.view["turn"] == ada.view["seat"] and ada.view["last_play"]:
            break
        mover = next(w for w in wires if w.view["turn"] == w.view["seat"])
        mover.request("action", action=next(a for a in mover.view["legal"] if a["type"] == "play"))
    page = open_page("/", PHONE)
    take_over(page, ada.token, "Ada")
    page.locator(".dock .rank-pick select").wait_for()
    tap_card(page.locator('[data-testid="hand"] button.pcard:not([disabled])').first)
    assert no_horizontal_scroll(page)
    place, cheat = (
        page.locator(s).bounding_box() for s in ('[data-testid="place"]', '[data-testid="cheat"]')
    )
    assert cheat["width"] >= 100, "Cheat! whole"
    assert abs(place["y"] - cheat["y"]) < 2, "Place and Cheat! share a row"
    shot(page, "cheat-any-rank-dock")
    for wire in wires:
        wire.close()


def test_a_wild_draw_four_question_stays_above_the_dock_at_a_four_player_phone_table(open_page, server):
    """Four at the table and a Wild Draw Four played on Bo, on a 390 × 844 phone: the question (who
    played it, challenge or accept) is in sight above the dock, not half under it."""
    wires, _ = at_a_table(server, "uno", ("Ada", "Bo", "Cy", "Dionysia Long"), {"target_score": 500})
    bo = wires[1]
    for _ in range(3000):
        for wire in wires:
            wire.catch_up(max(w.seq for w in wires))
        challenge = (bo.view.get("pending") or {}).get("challenge")
        if challenge and challenge["challenger"] == bo.view["seat"]:
            break
        actor = next(w for w in wires if w.view["legal"])
        legal = actor.view["legal"]
        kinds = {a["type"]: a for a in legal}
        hand = {card["id"]: card["type"] for card in actor.view["hand"]}
        plays = [
            a for a in legal if a["type"] == "play" and (actor is not bo or hand[a["card"]] != "wild-draw4")
        ]
        fours = [a for a in plays if hand[a["card"]] == "wild-draw4"]
        action = (
            kinds.get("accept") or (fours or plays or [None])[0] or kinds.get("draw") or kinds.get("pass")
        )
        actor.request("action", action=action or legal[0])
    else:
        raise AssertionError("no Wild Draw Four was played on Bo")
    page = open_page("/", PHONE)
    take_over(page, bo.token, "Bo")
    question = page.locator('[data-prompt="challenge"]')
    question.wait_for()
    page.evaluate("window.scrollTo(0, 0)")
    dock = page.locator('[data-testid="dock"]').bounding_box()
    box = question.bounding_box()
    assert box["y"] + box["height"] <= dock["y"], (box, dock)
    shot(page, "uno-challenge-four-players")
    # Challenge! and Accept share one row, down to a 360 px phone; the UNO button, which could do
    # nothing now, is not beside them.
    assert page.locator('[data-testid="uno"]').count() == 0
    for viewport in (PHONE, NARROW):
        page.set_viewport_size(viewport)
        rows = page.locator('[data-testid="dock"] .controls > button').evaluate_all(
            "bs => bs.map((b) => Math.round(b.getBoundingClientRect().top))"
        )
        assert len(rows) == 2 and rows[0] == rows[1], (viewport, rows)
    for wire in wires:
        wire.close()
