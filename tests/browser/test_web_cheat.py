"""Cheat in the browser: three players place cards and call Cheat by clicking until someone wins."""

from __future__ import annotations

import re

import pytest
from browser_helpers import (
    PHONE,
    create_room,
    drive,
    join_room,
    on_screen,
    record_toasts,
    seq,
    shot,
    shots,
    start_game,
    take_over,
    toasts_once_quiet,
    wait_seq,
)
from wire import Wire, at_a_table

pytestmark = pytest.mark.browser


def cheat_enabled(page) -> bool:
    return page.locator('[data-testid="cheat"]').is_enabled()


def place_cards(page, count: int = 4) -> bool:
    """On your turn: select up to ``count`` cards from the sorted hand and place them."""
    cards = page.locator('[data-testid="hand"] button.pcard:not([disabled])')
    if not cards.count():
        return False
    for i in range(min(count, cards.count())):
        cards.nth(i).click()
    page.locator('[data-testid="place"]').click()
    return True


def hand_ranks(page) -> list[str]:
    return page.locator('[data-testid="hand"] .pc-rank').all_inner_texts()


ORDER = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]


def test_cheat_game_with_calls_to_the_end(open_page):
    pages = [open_page() for _ in range(3)]
    ada, bo, cy = pages
    code = create_room(ada, "Ada", "cheat", {"rank_sequence": "ascending"}, capacity=3)
    join_room(bo, "Bo", code)
    join_room(cy, "Cy", code)
    shots(ada, "cheat-waiting-room")
    start_game(ada, pages)

    for page in pages:
        page.locator('[data-testid="hand"]').wait_for()
        ranks = hand_ranks(page)
        assert ranks == sorted(ranks, key=ORDER.index), "hand is sorted by rank"
        assert len(ranks) in (17, 18)
        assert not cheat_enabled(page), "nothing to call before the first play"
    assert "Ace" in ada.locator(".next-rank").inner_text()

    # The player on turn selects cards: at most four stay selected.
    placer = next(p for p in pages if p.locator('[data-testid="hand"] button.pcard:not([disabled])').count())
    cards = placer.locator('[data-testid="hand"] button.pcard')
    cards.nth(0).click()  # the button said "Place 1 as Ace"
    assert placer.locator('[data-testid="place"]').inner_text() == "Place 1 card as an Ace"
    for i in range(1, 6):
        cards.nth(i).click()
    assert placer.locator('[data-testid="hand"] .pcard.selected').count() == 4
    # The fifth is not taken, and the page says why (it did nothing, the phone's hint hidden).
    placer.locator("#toasts .toast", has_text="You place 4 cards at most").wait_for()
    assert cards.nth(5).get_attribute("aria-pressed") == "false"
    assert placer.locator('[data-testid="place"]').inner_text() == "Place 4 as Aces"
    shots(placer, "cheat-selecting")
    # A mouse over a card raises it; on a touch screen (its :hover stays on the card last tapped) none is.
    lifted = "c => getComputedStyle(c).transform"
    cards.nth(6).hover()
    assert cards.nth(6).evaluate(lifted) != "none"
    touch = placer.context.new_cdp_session(placer)
    touch.send("Emulation.setTouchEmulationEnabled", {"enabled": True, "maxTouchPoints": 5})
    assert placer.evaluate("matchMedia('(hover: none)').matches")
    assert cards.nth(6).evaluate(lifted) == "none"
    touch.send("Emulation.setTouchEmulationEnabled", {"enabled": False})
    cards.nth(3).click()  # unselect one
    others = [p for p in pages if p is not placer]
    for page in others:
        record_toasts(page)
    before = seq(placer)
    placer.locator('[data-testid="place"]').click()
    for page in pages:
        wait_seq(page, before + 1)

    # Everyone but the placer may call now — and sees what was just placed, on the table (a toast
    # saying it too held the next one back, trailing a quick table).
    for page in pages:
        assert cheat_enabled(page) == (page is not placer)
        assert "3 × Aces" in page.locator('[data-testid="just-placed"]').inner_text()
        assert page.locator('[data-testid="pile-size"]').inner_text() == "3"
    for page in others:
        assert not [text for text in toasts_once_quiet(page) if "placed" in text]
    shots(next(p for p in pages if p is not placer), "cheat-table")

    caller = next(p for p in pages if p is not placer)
    before = seq(caller)
    caller.locator('[data-testid="cheat"]').click()
    for page in pages:
        wait_seq(page, before + 1)
        reveal = page.locator('[data-testid="reveal"]')
        assert reveal.locator(".pcard").count() == 3, "the challenged cards are shown to everyone"
        assert "picked up 3 cards" in reveal.inner_text()
        assert re.search(r"called Cheat on (your|\w+'s) 3 × \S+", reveal.inner_text())  # the claim, again
        assert page.locator('[data-testid="pile-size"]').inner_text() == "0"
        assert not cheat_enabled(page)
        # The empty pile says who took it ("No cards placed yet" read as if the game had just begun):
        # "You" on the taker's own page, as the reveal says it.
        taker = re.search(r"(\w+) picked up 3 cards", reveal.inner_text()).group(1)
        assert page.locator(".claim .just-placed").inner_text() == f"{taker} picked up the pile"
    reveals = [p.locator('[data-testid="reveal"]').inner_text() for p in pages]
    takers = {re.search(r"(\w+) picked up 3", text).group(1) for text in reveals}
    assert len(takers) == 2 and "You" in takers, takers
    # A reload just after the call shows the revealed cards again, and who took the pile.
    taker = re.search(r"(\w+) picked up 3", caller.locator('[data-testid="reveal"]').inner_text()).group(1)
    caller.reload()
    caller.locator('[data-testid="reveal"] .pcard').nth(2).wait_for()
    assert caller.locator(".claim .just-placed").inner_text() == f"{taker} picked up the pile"
    shots(caller, "cheat-reveal")

    # Then play on — four cards a turn, with a call now and then — until someone wins.
    def step(page) -> bool:
        return place_cards(page)

    def observe(moves: int) -> None:
        if moves % 10 == 0:
            other = next((p for p in pages if cheat_enabled(p)), None)
            if other is not None:
                before = seq(other)
                other.locator('[data-testid="cheat"]').click()
                for page in pages:
                    wait_seq(page, before + 1)

    drive(pages, step, limit=150, observe=observe)
    for page in pages:
        page.locator(".game-over").wait_for()
    headline = ada.locator(".game-over h2").inner_text()
    assert "wins" in headline
    # How: the last cards stood, unchallenged until the next play or found true by a call.
    how = ada.get_by_test_id("how-won").inner_text()
    stood = r"Nobody called Cheat on (your|\w+'s) last cards before (you|\w+) placed: they stood\."
    true = r"(You|\w+) called Cheat on (your|\w+'s) last cards, and they were what was claimed\."
    assert re.fullmatch(stood, how) or re.fullmatch(true, how), how
    assert ada.locator('[data-testid="results"] tbody tr').count() == 3
    shots(ada, "cheat-game-over")
    # On a phone, upright or sideways, a loser's last hand sits under the results, not pinned over them
    # at the screen's foot.
    loser = next(p for p in pages if p.locator('[data-testid="dock"]').count())
    for viewport in (PHONE, {"width": 844, "height": 390}):
        loser.set_viewport_size(viewport)
        assert loser.locator('[data-testid="dock"]').evaluate("d => getComputedStyle(d).position") == "static"
    loser.set_viewport_size(PHONE)
    shot(loser, "cheat-game-over-hand")


def test_a_cheat_game_too_few_players_could_finish_says_nobody_won(open_page, server):
    """One of three players left, too few to go on, so nobody won: the results say so, why, and who left."""
    (cy, _, ed), _ = at_a_table(server, "cheat", ("Cy", "Di", "Ed"))
    page = open_page("/")
    take_over(page, cy.token, "Cy")
    page.locator('[data-testid="hand"] .pcard').first.wait_for()
    ed.request("leave")
    page.locator("#over-title").wait_for()
    assert page.locator("#over-title").inner_text() == "Nobody won"  # no winner's star
    assert page.locator('[data-testid="end-reason"]').inner_text() == "Too few players were left to go on."
    rows = page.locator('[data-testid="results"] tbody tr').all_inner_texts()
    assert any(row.startswith("Ed (left)") for row in rows), rows
    assert not any("Di (" in row for row in rows), rows
    shots(page, "cheat-nobody-won")


class HeldDelivery:
    """The page's socket to the server, with the server's messages held back while ``held`` (as a slow
    link delays them): the page acts on a table that has already moved on."""

    def __init__(self, page) -> None:
        self.held = False
        self.queue: list = []
        self.socket = None
        page.route_web_socket(re.compile(r"/api/ws"), self._route)

    def _route(self, ws) -> None:
        server = ws.connect_to_server()
        self.socket = ws
        ws.on_message(server.send)
        server.on_message(lambda m: self.queue.append(m) if self.held else ws.send(m))

    def release(self) -> None:
        self.held = False
        while self.queue:
            self.socket.send(self.queue.pop(0))


def _until_others_placed(page, wires: dict[int, Wire], bo_seat: int) -> Wire:
    """Play on (the wires place one card, Bo's page places one) until someone other than Bo has just
    placed; a wire that may call that play (not its placer's)."""
    for _ in range(40):
        seen = max(w.seq for w in wires.values())
        for wire in wires.values():
            wire.catch_up(seen)
        view = next(iter(wires.values())).view
        play = view["last_play"]
        if play and play["seat"] != bo_seat and play["callable"]:
            return next(w for seat, w in wires.items() if seat != play["seat"])
        if view["turn"] == bo_seat:
            wait_seq(page, seen)
            place_cards(page, 1)
        else:
            mover = wires[view["turn"]]
            mover.request("action", action=next(a for a in mover.view["legal"] if a["type"] == "play"))
        for wire in wires.values():
            wire.catch_up(seen + 1)
    raise AssertionError("nobody else placed")


def test_a_call_beaten_by_anothers_says_who_called_first_and_your_call_says_you(open_page, server):
    """Two calls on one play: the slower caller read "There is no play to challenge" (or nothing at all).
    And a call's toast spoke of the caller in the third person ("Dan called Cheat! … Dan picks up 2")
    while the log said "you"."""
    (ada, bo, cy), _ = at_a_table(server, "cheat", ("Ada", "Bo", "Cy"))
    page = open_page("/")
    link = HeldDelivery(page)
    take_over(page, bo.token, "Bo")
    page.locator('[data-testid="hand"]').wait_for()
    wires = {ada.view["seat"]: ada, cy.view["seat"]: cy}
    caller = _until_others_placed(page, wires, bo.view["seat"])
    wait_seq(page, caller.seq)
    link.held = True  # Bo's page has yet to hear of the other call when Bo taps Cheat
    caller.request("action", action={"type": "call"})
    page.locator('[data-testid="cheat"]').click()
    page.wait_for_timeout(300)
    link.release()
    late = page.locator("#toasts .toast", has_text=f"Too late: {caller.name} called Cheat first.")
    late.wait_for()
    assert page.locator("#toasts .toast", has_text="no play to challenge").count() == 0
    # Bo's own call, later: said to Bo as "You called Cheat!".
    _until_others_placed(page, wires, bo.view["seat"])
    wait_seq(page, max(w.seq for w in wires.values()))
    page.locator('[data-testid="cheat"]').click()
    page.locator("#toasts .toast", has_text="You called Cheat!").wait_for()
    for wire in (ada, bo, cy):
        wire.close()


RESULT_COLUMNS = """async () => {
    const { resultColumns } = await import("/cheat.js");
    const scores = { 0: "0", 1: "0", 2: "5" };
    const [[title, cardsLeft]] = resultColumns({ winner: 0 }, (seat) => scores[seat]);
    return [title, ...[0, 1, 2].map(cardsLeft)];
}"""


def test_a_loser_whose_last_cards_went_down_as_the_winners_stood_is_told_apart(open_page):
    """Cara's last card stood when Dan placed his own last card: the results showed Cara ★ 0 and Dan 0."""
    page = open_page()
    assert page.evaluate(RESULT_COLUMNS) == ["Cards left", "0", "0 (went down as the winner's stood)", "5"]


REVEAL = """async (view) => {
    const cheat = await import("/cheat.js");
    const names = (s) => ["Ada", "Bo", "Cy"][s];
    const ctx = { seat: 0, you: 0, name: names, act() {}, presence: () => null, rerender() {} };
    const reveal = () => {
        const stage = document.createElement("div");
        cheat.render(stage, view, ctx);
        const box = stage.querySelector('[data-testid="reveal"]');
        return box && [box.querySelector("p").textContent, box.classList.contains("earlier")];
    };
    const cards = view.hand.slice(0, 2);
    cheat.reset();
    const call = { caller: 1, placer: 0, picked_up_by: 0, truthful: false, cards, rank: 0, pile_count: 2 };
    cheat.onEvent({ type: "called", ...call }, names);
    const fresh = reveal();
    cheat.onEvent({ type: "played", seat: 1, count: 2, rank: 1 }, names);  // at once: the reveal stays up
    const later = reveal();
    const stage = document.querySelector("#app");  // shown, to be looked at
    stage.replaceChildren(Object.assign(document.createElement("div"), { className: "table-host" }));
    cheat.render(stage.firstChild, { ...view, last_play: { seat: 1, count: 2, rank: 1 } }, ctx);
    return [fresh, later];
}"""


def test_a_reveal_left_up_under_a_new_claim_says_it_was_the_last_call(open_page, server):
    """The reveal stays up for a moment to be read, even when the next cards are placed at once: under
    "Just placed by Bo: 2 × 2s" it read as the verdict on that new claim."""
    seated, _ = at_a_table(server, "cheat", ("Ada", "Bo", "Cy"))
    page = open_page()
    fresh, later = page.evaluate(REVEAL, seated[0].view)
    assert fresh == ["Bo called Cheat on your 2 × Aces", False]  # the claim, gone with the pile
    assert later == ["Last call: Bo called Cheat on your 2 × Aces", True]
    shots(page, "cheat-reveal-earlier")
    for wire in seated:
        wire.close()


CALL_NEWS = """async () => {
    const cheat = await import("/cheat.js");
    const names = (s) => ["Ada", "Bo", "Cy"][s];
    // Bo calls Cheat on Ada, who was cheating: she picks up the pile.
    const call = {
        type: "called", caller: 1, placer: 0, picked_up_by: 0, truthful: false,
        cards: [], rank: 0, pile_count: 4,
    };
    return [0, 1, 2, null].map((seat) => { cheat.reset(); return cheat.onEvent(call, names, seat).kind; });
}"""


def test_a_call_seen_sideways_leaves_the_pile_and_the_next_rank_in_sight(open_page, server):
    """On a phone held sideways the reveal is scrolled into sight above the dock, past the top bar,
    and the call's toast lay over the pile and "Next:" for seconds, saying what the reveal in sight
    says. The reveal alone tells it there; the pile's count and the next rank stay uncovered."""
    (ann, ben, cal), _ = at_a_table(server, "cheat", ("Ann", "Ben", "Cal"))
    page = open_page("/", {"width": 844, "height": 390})
    take_over(page, ann.token, "Ann")
    page.locator('[data-testid="hand"] .pcard').first.wait_for()
    record_toasts(page)
    others = [ben, cal]  # Ann's wire gave way to her page
    placer = next((w for w in others if w.view["legal"]), None)
    if placer is None:  # Ann is on turn: she places, then Ben does
        before = ben.seq
        assert place_cards(page, 1)
        for wire in others:
            wire.catch_up(before + 1)
        placer = next(w for w in others if w.view["legal"])
    placer.request("action", action=next(a for a in placer.view["legal"] if a["type"] == "play"))
    caller = next(w for w in others if w is not placer)
    caller.catch_up(placer.seq)
    caller.request("action", action={"type": "call"})
    page.locator('[data-testid="reveal"] .pcard').first.wait_for()
    page.wait_for_function(  # the reveal's scroll, on the next frame
        """() => { const r = document.querySelector('[data-testid="reveal"]').getBoundingClientRect();
            return r.top >= 0 && r.bottom <= innerHeight; }"""
    )
    assert on_screen(page, '[data-testid="reveal"]')
    # A toast lets taps through (pointer-events: none), so what covers is told by the boxes.
    uncovered = """e => { const r = e.getBoundingClientRect();
        const over = [...document.querySelectorAll('#toasts .toast:not(.gone)')]
            .map((t) => t.getBoundingClientRect())
            .filter((t) => t.height && t.left < r.right && r.left < t.right
                && t.top < r.bottom && r.top < t.bottom);
        return r.top >= 0 && !over.length; }"""
    for selector in ('[data-testid="pile-size"]', ".next-rank"):
        assert page.locator(selector).evaluate(uncovered), f"{selector} is covered or out of sight"
    assert not [t for t in toasts_once_quiet(page) if "called Cheat" in t]
    shot(page, "cheat-call-sideways")
    for wire in others:
        wire.close()


def test_a_calls_news_is_bad_for_whoever_picks_up_the_pile(open_page):
    """A cheater caught read "… you pick up 4" in green, the colour of good news."""
    page = open_page()
    assert page.evaluate(CALL_NEWS) == ["bad", "good", "info", "info"]  # Ada, Bo, Cy, a spectator
