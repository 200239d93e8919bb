"""Nothing vanishes: a Dots turn's every line and box stays marked, and a Cheat reveal outlives the
next play and can be reopened from the game log."""

from __future__ import annotations

import re

import pytest
from browser_helpers import shot, shots, take_over, wait_room
from wire import Wire, at_a_table, two_at_a_table

pytestmark = pytest.mark.browser


def _watch(open_page, code: str):
    page = open_page(f"/r/{code}")
    page.fill("#name", "Watcher")
    page.click("#spectate-btn")
    wait_room(page)
    page.locator(".table-host").wait_for()
    return page


def _on_turn(players: list[Wire]) -> Wire:
    seq = max(p.seq for p in players)
    for p in players:
        p.catch_up(seq)
    return next(p for seat, p in enumerate(players) if p.view["turn"] == seat)


def test_dots_marks_every_line_and_box_of_the_last_turn(open_page, server):
    ada, bo, code = two_at_a_table(server, "dots", {"width": 3, "height": 3})
    watcher = _watch(open_page, code)
    # Two boxes side by side get three sides each; then the middle line takes both, and one more.
    lines = [(0, 0, 0), (1, 0, 0), (0, 0, 1), (2, 0, 1), (0, 1, 0), (1, 1, 0), (1, 0, 1), (0, 1, 1)]
    for x, y, d in lines:
        _on_turn([ada, bo]).request("action", action={"type": "line", "x": x, "y": y, "d": d})
    watcher.wait_for_function(f"Number(document.querySelector('#stage').dataset.seq) >= {ada.seq}")
    marked = watcher.locator(".dots-board line.drawn.last").evaluate_all("ls => ls.map(l => l.dataset.drawn)")
    assert sorted(marked) == ["0,1,1", "1,0,1"]
    assert watcher.locator(".dots-board rect.box.last").count() == 2
    colours = watcher.locator(".dots-board .last").evaluate_all(
        "ns => [...new Set(ns.map(n => n.style.getPropertyValue('--seat')))]"
    )
    assert len(colours) == 1 and colours[0]  # one player's colour
    shots(watcher, "dots-last-turn")
    # A reload (or a spectator who arrives now) marks the same turn, from the snapshot's game log.
    watcher.reload()
    watcher.wait_for_function(f"Number(document.querySelector('#stage').dataset.seq) >= {ada.seq}")
    again = watcher.locator(".dots-board line.drawn.last").evaluate_all("ls => ls.map(l => l.dataset.drawn)")
    assert sorted(again) == ["0,1,1", "1,0,1"] and watcher.locator(".dots-board rect.box.last").count() == 2
    ada.close()
    bo.close()


def test_cheat_reveal_outlives_the_next_play_and_reopens_from_the_log(open_page, server):
    players, code = at_a_table(server, "cheat", ("Ada", "Bo", "Cy"))
    watcher = _watch(open_page, code)

    def play() -> None:
        p = _on_turn(players)
        p.request(
            "action", action={"type": "play", "cards": [p.view["hand"][0]["id"]], "rank": p.view["ranks"][0]}
        )

    play()
    _on_turn(players)  # everyone has seen the play
    caller = next(p for p in players if p.view.get("can_call"))
    caller.request("action", action={"type": "call"})
    play()  # at once: the reveal must still be readable
    # The next play drawn: its player's wire has read it (not Ada's: after the call Bo plays).
    seq = max(p.seq for p in players)
    watcher.wait_for_function(f"Number(document.querySelector('#stage').dataset.seq) >= {seq}")
    assert watcher.locator('[data-testid="reveal"]').is_visible()
    watcher.get_by_role("button", name="Show the revealed cards").click()
    again = watcher.locator('dialog[open] [data-testid="reveal-again"]')
    again.wait_for()
    assert again.locator(".pcard").count() == 1
    # In the table's words, the claim and its count said ("… on Ada, who claimed Aces" had neither).
    words = again.locator("p").first.inner_text()
    assert re.fullmatch(r"\w+ called Cheat on \w+'s one \w+:", words), words
    shots(watcher, "cheat-reveal-again")
    for p in players:
        p.close()


@pytest.mark.parametrize("at_once", [1, 4])
def test_cheat_says_a_last_card_wins_once_the_next_player_plays(open_page, server, at_once):
    """A player's last card went down and the table just went on ("Cy to play"): everyone is now told
    it is the last moment to call Cheat!, and who wins when. Several last cards are said as several."""
    players, code = at_a_table(server, "cheat", ("Ada", "Bo", "Cy"))
    watcher = _watch(open_page, code)
    banner = watcher.locator('[data-testid="last-card"]')
    while True:  # everyone places cards and nobody calls, until a hand is empty (never one card left)
        p = _on_turn(players)
        seat, hand = p.view["seat"], p.view["hand"]
        count = len(hand) if len(hand) <= at_once else at_once - 1 if len(hand) == at_once + 1 else at_once
        cards = [card["id"] for card in hand[: max(count, 1)]]
        p.request("action", action={"type": "play", "cards": cards, "rank": p.view["ranks"][0]})
        if not p.view["hand_sizes"][seat]:
            break
        assert banner.count() == 0
    names = ["Ada", "Bo", "Cy"]
    following = _on_turn(players)
    watcher.wait_for_function(f"Number(document.querySelector('#stage').dataset.seq) >= {p.seq}")
    who, then = names[seat], names[following.view["seat"]]
    last = "last card" if at_once == 1 else f"last {len(cards)} cards"
    assert len(cards) > 1 or at_once == 1
    assert (
        banner.inner_text() == f"{who} placed their {last}: call Cheat! now, or {who} wins when {then} plays."
    )
    shots(watcher, "cheat-last-card")
    following.request(
        "action",
        action={
            "type": "play",
            "cards": [following.view["hand"][0]["id"]],
            "rank": following.view["ranks"][0],
        },
    )
    watcher.locator(".game-over").wait_for()
    assert watcher.locator("#over-title").inner_text() == f"★ {who} wins!"
    assert banner.count() == 0
    for p in players:
        p.close()


def test_a_call_on_a_landscape_phone_brings_its_reveal_into_sight(open_page, server):
    """On a phone held sideways the hand's bar covers the lower half of the screen: the reveal of a call
    sat under it, and only a toast said what the call found. It now comes into sight, clear of the bar."""
    players, _ = at_a_table(server, "cheat", ("Ada", "Bo", "Cy", "Di"))
    placer = _on_turn(players)
    placer.request("action", action={"type": "play", "cards": [placer.view["hand"][0]["id"]], "rank": 0})
    _on_turn(players)  # everyone has seen the play
    caller = next(p for p in players if p is not placer and p.view.get("can_call"))
    # A third player's phone: their own wire is done with (the page takes their session over).
    third = next(p for p in players if p not in (placer, caller))
    page = open_page("/", {"width": 844, "height": 390})
    take_over(page, third.token, third.name)
    page.locator('[data-testid="hand"]').wait_for()
    page.evaluate("window.scrollTo(0, document.body.scrollHeight)")  # down at the chat
    caller.request("action", action={"type": "call"})
    page.locator('[data-testid="reveal"]').wait_for()
    page.wait_for_function(
        """() => { const r = document.querySelector('[data-testid="reveal"]').getBoundingClientRect();
                   const dock = document.querySelector('[data-testid="dock"]').getBoundingClientRect();
                   return r.top >= 0 && r.bottom <= dock.top + 1; }"""
    )
    shot(page, "cheat-landscape-reveal")
    for p in players:
        if p is not third:
            p.close()
