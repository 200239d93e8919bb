"""The page's connection as a player lives with it: a network that goes silent without closing the socket
(a phone out of signal) is noticed and replaced, and a burst of clicks sends one move, not a refusal."""

from __future__ import annotations

import json
import os
import re
import signal

import pytest
from browser_helpers import PHONE, SHOTS, create_room, join_room, shots, start_game, take_over
from wire import at_a_table

pytestmark = pytest.mark.browser

BAD_TOASTS = "() => [...document.querySelectorAll('#toasts .toast.bad')].map(t => t.textContent)"


class Tap:
    """Every websocket the page opens to /api/ws passes through here; ``silence()`` stops the current one
    carrying anything either way while leaving it open, as a dropped mobile network does."""

    def __init__(self, page) -> None:
        self.live: list[dict[str, bool]] = []
        self.errors: list[str] = []  # the codes of the errors the server sent the page
        page.route_web_socket(re.compile(r"/api/ws"), self._route)

    def _route(self, ws) -> None:
        server = ws.connect_to_server()
        state = {"live": True}
        ws.on_message(lambda m: state["live"] and self._forward(server, m))
        server.on_message(lambda m: state["live"] and self._deliver(ws, m))
        self.live.append(state)

    def _deliver(self, ws, message: str | bytes) -> None:
        data = json.loads(message)
        if data.get("type") == "error":
            self.errors.append(data["code"])
        ws.send(message)

    lose_actions = 0
    """How many of the page's next ``action`` frames are lost on the way (as with a cluster node that
    died holding them: never answered)."""

    def _forward(self, server, message: str | bytes) -> None:
        if self.lose_actions and json.loads(message).get("type") == "action":
            self.lose_actions -= 1
            return
        server.send(message)

    def silence(self) -> None:
        self.live[-1]["live"] = False


def test_a_silently_dropped_connection_is_noticed_and_the_game_goes_on(open_page):
    ada = open_page()
    bo = open_page(viewport=PHONE)
    code = create_room(ada, "Ada", "dots", {"width": 3, "height": 3}, capacity=2)
    join_room(bo, "Bo", code)
    tap = Tap(bo)
    bo.reload()  # the page's next socket goes through the tap
    bo.locator('#conn[data-status="online"]').wait_for()
    bo.locator("#screen-room").wait_for()
    start_game(ada, [ada, bo])
    bo.locator('[data-testid="dots-board"]').wait_for()
    sockets = len(tap.live)

    tap.silence()
    # Nothing closes the socket: the page finds it dead by its unanswered ping, says so, and connects again.
    status = bo.wait_for_function(
        "() => { const s = document.querySelector('#conn').dataset.status; return s !== 'online' && s; }",
        timeout=25_000,
        polling=100,
    ).json_value()  # the status it left "online" for (read again, it may be "online" once more)
    assert status in ("offline", "connecting")
    bo.locator('#conn[data-status="online"]').wait_for(timeout=15_000)
    assert len(tap.live) == sockets + 1
    # Back in the same game, on the same seat: Ada moves and Bo sees it, then Bo moves and Ada sees it.
    ada.locator("g.free").first.dispatch_event("pointerup", {"pointerType": "mouse"})
    bo.wait_for_function("() => document.querySelectorAll('line.drawn').length === 1")
    bo.locator(".dots-board.mine").wait_for()
    bo.locator("g.free").first.dispatch_event("pointerup", {"pointerType": "mouse"})
    ada.wait_for_function("() => document.querySelectorAll('line.drawn').length === 2")
    assert bo.evaluate(BAD_TOASTS) == []


def test_a_burst_of_clicks_sends_one_move_and_shows_no_refusal(open_page):
    ada = open_page()
    bo = open_page()
    tap = Tap(ada)
    ada.reload()  # the page's next socket goes through the tap
    code = create_room(ada, "Ada", "dots", {"width": 4, "height": 4}, capacity=2)
    join_room(bo, "Bo", code)
    start_game(ada, [ada, bo])
    ada.locator(".dots-board.mine").wait_for()
    # Five clicks on one line before the first move's reply is back (a double click, a shaky hand).
    ada.locator("g.free").first.evaluate(
        "g => { for (let i = 0; i < 5; i++) g.dispatchEvent(new PointerEvent('pointerup', "
        "{pointerType: 'mouse', bubbles: true})); }"
    )
    bo.locator(".dots-board.mine").wait_for()
    # Ada's socket runs through the tap: her page may draw the move a moment after Bo's does.
    ada.locator(".dots-board:not(.mine)").wait_for()
    # Refusals of the extra clicks would have come right after the move's reply: give them time to come.
    ada.evaluate("() => new Promise(r => setTimeout(r, 300))")
    assert ada.locator("line.drawn").count() == 1
    assert tap.errors == []
    # Clicking on the other's turn says so in words, not by seat number.
    ada.locator(".dots-board").evaluate("b => b.classList.add('mine')")  # as a stale page would
    ada.locator("g.free").first.dispatch_event("pointerup", {"pointerType": "mouse"})
    ada.wait_for_function(f'() => ({BAD_TOASTS})().includes("It\'s not your turn.")')
    assert tap.errors == ["not_your_turn"]


def test_a_move_never_answered_does_not_stop_the_table_taking_clicks(open_page):
    """A move lost with its room's server is never answered: a few seconds on, the next click goes out
    (the page took no more clicks at all until it was reloaded)."""
    ada, bo = open_page(), open_page()
    tap = Tap(ada)
    ada.reload()
    code = create_room(ada, "Ada", "dots", {"width": 3, "height": 3}, capacity=2)
    join_room(bo, "Bo", code)
    start_game(ada, [ada, bo])
    ada.locator(".dots-board.mine").wait_for()
    tap.lose_actions = 1
    line = ada.locator("g.free").first
    line.dispatch_event("pointerup", {"pointerType": "mouse"})
    ada.evaluate("() => new Promise(r => setTimeout(r, 3500))")
    assert tap.lose_actions == 0 and bo.locator("line.drawn").count() == 0
    line.dispatch_event("pointerup", {"pointerType": "mouse"})
    bo.wait_for_function("() => document.querySelectorAll('line.drawn').length === 1")


def test_a_move_whose_answer_is_lost_with_the_connection_says_so(open_page, own_server):
    """A move sent as the link stalled, then broke, was lost without a word (or with a bare "Connection
    lost"): the player is told it may not have been played, and to look at the table once it is back."""
    (ada, bo), _ = at_a_table(own_server.base, "connect_four", ("Ada", "Bo"))
    if ada.view["turn"] != 0:
        bo.request("action", action={"type": "drop", "column": 0})
        ada.until(lambda m: m["type"] == "game")
    page = open_page("/", base=own_server.base)
    take_over(page, ada.token, "Ada")
    column = page.locator(".c4-col.playable").first
    column.wait_for()
    os.kill(own_server.proc.pid, signal.SIGSTOP)  # the server hears nothing more: the move waits
    try:
        column.click()
        page.wait_for_timeout(300)
    finally:
        own_server.kill()  # then the connection breaks, the move unanswered
    said = page.locator("#toasts .toast", has_text="The connection dropped before your move was answered")
    said.wait_for()
    bo.close()


HOLD_MOVES = """
(() => {
  // A slow link: the page's moves (not its pings) leave only after window.__holdMoves milliseconds.
  const send = WebSocket.prototype.send;
  WebSocket.prototype.send = function (data) {
    const hold = window.__holdMoves ?? 0;
    if (hold && String(data).includes('"type":"action"')) setTimeout(() => send.call(this, data), hold);
    else send.call(this, data);
  };
})();
"""


def test_a_move_that_reaches_the_server_after_the_clock_ran_out_says_too_late(open_page, server):
    """Tapped in the last second on a slow link, the move arrived after the clock had moved for the
    player: "You ran out of time", then "It's not your turn." for the card they had tapped."""
    (ada, bo), _ = at_a_table(server, "connect_four", ("Ada", "Bo"), {"turn_timer": 10})
    if ada.view["turn"] != 0:
        bo.request("action", action={"type": "drop", "column": 0})
        ada.until(lambda m: m["type"] == "game")
    page = open_page("/", init_script=HOLD_MOVES)
    take_over(page, ada.token, "Ada")
    column = page.locator(".c4-col.playable").first
    column.wait_for()
    page.evaluate("window.__holdMoves = 11000")  # longer than the 10 s the turn lasts
    column.click()
    page.locator("#toasts .toast", has_text="Too late: your time ran out").wait_for(timeout=20_000)
    assert page.locator("#toasts .toast", has_text="It's not your turn").count() == 0
    bo.close()


def test_a_wilds_colour_still_asked_when_the_clock_runs_out_goes_with_the_turn(open_page, server):
    """A Wild tapped in the last seconds asks for its colour; the clock ran out meanwhile, the game drew
    for the player and moved on, and the question stayed up over the table: the colour picked then was
    refused as "not your turn", the card still in hand. The question goes with the turn."""
    # 15 s: room for a loaded machine to open the page and ask for the colour before the clock runs out.
    (ada, bo), _ = at_a_table(server, "uno", ("Ada", "Bo"), {"turn_timer": 15})
    # Both draw (and keep) whenever they can, until Ada is on turn with a Wild she may play.
    for _ in range(400):
        for wire in (ada, bo):
            wire.catch_up(max(ada.seq, bo.seq))
        on_turn = (ada, bo)[ada.view["turn"]]
        legal = on_turn.view["legal"]
        if on_turn is ada and any(a["type"] == "play" and "color" in a for a in legal):
            break
        keep = next((a for a in legal if a["type"] in ("draw", "pass", "accept")), legal[0])
        on_turn.request("action", action=keep)
    else:
        raise AssertionError("Ada never held a Wild on her turn")
    wild = next(a["card"] for a in ada.view["legal"] if a["type"] == "play" and "color" in a)
    page = open_page("/")
    take_over(page, ada.token, "Ada")
    page.locator(f'[data-testid="hand"] .ucard[data-id="{wild}"]').click()
    page.locator("#dialog[open]", has_text="Choose a colour").wait_for()
    page.locator("#toasts .toast", has_text="You ran out of time").wait_for(timeout=20_000)
    page.wait_for_function("!document.querySelector('#dialog').open", timeout=2_000)
    assert page.locator(f'[data-testid="hand"] .ucard[data-id="{wild}"]').count() == 1  # still Ada's
    bo.close()


def test_a_player_whose_clock_ran_out_twice_in_a_row_gets_short_turns_until_they_move(open_page, server):
    """A player who left the page open and went away held the table up for the whole clock every turn.
    After two turns in a row run out, theirs last 5 s, and the page says why, until they move."""
    (ada, bo), _ = at_a_table(server, "connect_four", ("Ada", "Bo"), {"turn_timer": 10})
    if ada.view["turn"] != 0:
        bo.request("action", action={"type": "drop", "column": 0})
        ada.until(lambda m: m["type"] == "game")
    page = open_page("/")
    take_over(page, ada.token, "Ada")
    bar = page.locator(".turn-timer .timer-who")
    for column in (0, 6):  # Ada lets her clock run out; Bo moves
        bar.filter(has_text="Your turn").wait_for()
        assert "short" not in bar.inner_text()
        bo.until(lambda m: m["type"] == "game" and m["view"]["turn"] == 1, timeout=15)
        bo.request("action", action={"type": "drop", "column": column})
    bar.filter(has_text="Your turn (short)").wait_for()
    page.locator("#toasts .toast", has_text="Your clock ran out twice in a row").wait_for()
    assert int(page.locator(".turn-timer").get_attribute("data-total")) == 5
    shots(page, "turn-short")
    page.locator(".c4-col.playable").first.click()  # back
    bo.until(lambda m: m["type"] == "game" and m["view"]["turn"] == 1)
    bo.request("action", action={"type": "drop", "column": 6})
    page.wait_for_function("document.querySelector('.turn-timer')?.dataset.total === '10'")
    assert bar.inner_text().startswith("Your turn ·")
    bo.close()


def test_the_lost_connection_is_said_at_the_top_of_a_scrolled_phone_table(open_page, server):
    """On a phone the hand sits below the fold: scrolled down to it, the player saw dimmed cards that took
    no tap, with the notice (and the top bar's status) scrolled out of sight above."""
    (ada, *others), _ = at_a_table(server, "uno", ("Ada", "Bo", "Cy", "Di"))
    page = open_page("/", viewport=PHONE)
    take_over(page, ada.token, "Ada")
    hand = page.locator('[data-testid="hand"]')
    hand.wait_for()
    hand.scroll_into_view_if_needed()
    page.evaluate("window.scrollTo(0, document.body.scrollHeight)")
    assert page.evaluate("document.querySelector('#stage').getBoundingClientRect().top") < 0
    page.evaluate("dispatchEvent(new Event('offline'))")  # as the phone's network going away
    page.locator("body.disconnected").wait_for()
    # The notice (the stage's own box, over the table) is what lies at the top of the screen. The dimmed
    # table takes no pointer, so elementFromPoint would pass through it to the stage: made to take
    # pointers again for the reading, it is what lies there unless the notice covers it.
    top = """() => {
      const hosts = [...document.querySelectorAll('#stage .table-host')];
      hosts.forEach((h) => h.style.setProperty('pointer-events', 'auto', 'important'));
      const id = document.elementFromPoint(innerWidth / 2, 20)?.id;
      hosts.forEach((h) => h.style.removeProperty('pointer-events'));
      return id;
    }"""
    assert page.evaluate(top) == "stage"
    page.screenshot(path=str(SHOTS / "connection-lost-scrolled-390.png"))  # the screen, as the phone shows it
    page.locator('#conn[data-status="online"]').wait_for(timeout=15_000)
    assert page.evaluate(top) != "stage"
    for wire in (ada, *others):
        wire.close()
