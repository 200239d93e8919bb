"""UNO's pause between rounds in the browser: the round's last card and its points stay on the table
until the next dealer deals (the next round used to be dealt in the same message as the last card)."""

from __future__ import annotations

import re

import pytest
from browser_helpers import PHONE, join_room, shots, take_over, wait_room, wait_seq
from wire import Wire, at_a_table, play_uno_until

pytestmark = pytest.mark.browser


def test_the_table_rests_on_a_rounds_end_until_the_next_dealer_deals(open_page, server):
    names = ("Ada", "Bo", "Cy")
    players, code = at_a_table(server, "uno", names, {"target_score": 500, "round_break": 60})
    watcher = open_page(f"/r/{code}")
    watcher.fill("#name", "Di")
    watcher.click("#spectate-btn")
    watcher.locator(".uno-table").wait_for()
    play_uno_until(players, lambda view: view["dealing"] is not None, 3000)  # the first round, to its pause
    ada = players[0]
    ended = next(e for e in reversed(ada.log) if e["kind"] == "round_over")["event"]
    last = next(e for e in reversed(ada.log) if e["kind"] == "play")["event"]
    dealer = ada.view["dealing"]

    # The spectator sees who won, for how much, on the round's last card, and who deals next, when.
    panel = watcher.locator('[data-testid="round-break"]')
    panel.wait_for()
    text = panel.inner_text()
    assert f"Round 1 went to {names[ended['winner']]}: +{ended['points']} points" in text, text
    assert f"{names[dealer]} deals round 2 in " in text, text
    assert watcher.locator('[data-testid="top"]').get_attribute("data-id") == f"top-{last['card']['id']}"
    assert watcher.locator(".badge.turn", has_text="to play").count() == 0  # nobody is on turn
    assert watcher.locator('[data-testid="deal"]').count() == 0  # nor may a spectator deal
    shots(watcher, "uno-round-break")

    # The dealer, on a phone: offered the deal, and not told it is their turn.
    page = open_page("/", PHONE)
    take_over(page, players[dealer].token, names[dealer])
    deal = page.locator('[data-testid="deal"]')
    deal.wait_for()
    assert "You deal round 2" in page.locator('[data-testid="round-break"]').inner_text()
    held = ada.view["counts"][dealer]
    if held:  # the phone hides the dock's hint line, but not what your cards counted for
        hint = page.locator('[data-testid="hint"]')
        said = f"{held} card{'s' if held > 1 else ''}"
        assert hint.is_visible() and hint.inner_text() == f"Round over: your {said} counted for the winner."
    assert "Your turn" not in page.title()
    shots(page, "uno-round-break-dealer")
    deal.click()
    page.locator('[data-testid="round-break"]').wait_for(state="detached")
    assert page.locator('[data-testid="last-round"]').inner_text().startswith("Round 1 went to ")
    watcher.locator('[data-testid="round-break"]').wait_for(state="detached")
    assert watcher.locator(".match").inner_text().startswith("Round 2")
    for wire in players:
        wire.close()


def test_a_new_uno_room_from_the_form_pauses_between_rounds(open_page):
    """The create form starts UNO with the pause (its `initial`); a room that leaves it out has none."""
    page = open_page("/")
    page.check('#create-form input[name="game"][value="uno"]')
    page.evaluate("document.querySelector('#create-form .create-options').open = true")
    pause = page.locator('select[name="s.round_break"]')
    assert pause.input_value() == "10" and pause.is_visible()
    # A game of one round has no rounds to pause between: the setting is not offered, nor summed up.
    page.select_option('select[name="s.target_score"]', "0")
    assert not pause.is_visible()
    page.select_option('select[name="s.target_score"]', "200")
    assert pause.is_visible()
    page.select_option('select[name="s.target_score"]', "0")
    page.fill("#name", "Ada")
    page.click('#create-form button[type="submit"]')
    wait_room(page)
    summary = page.locator("#stage").inner_text()
    assert "Target score: one round" in summary and "Pause between rounds" not in summary, summary


def test_a_keyboard_dealer_is_taken_to_the_deal_when_the_round_ends(open_page, server):
    """A dealer playing by keyboard: focus stayed in the hand after the round's end, and Deal, in the
    dock before it, was ten Tabs away (through the log, the chat and the header). The pause's panel now
    takes the focus, is read out, and the next Tab reaches Deal."""
    ada = Wire(server, "Ada")
    code = ada.request(
        "create_room", game="uno", settings={"target_score": 500, "round_break": 60}, capacity=2
    )["code"]
    page = open_page("/")
    join_room(page, "Bo", code)
    for _ in range(20):  # Bo (seat 1) deals the second round only if Ada dealt the first
        before = len(ada.messages)
        ada.request("start")
        if not any(m["type"] == "game_started" for m in ada.messages[before:]):
            ada.until(lambda m: m["type"] == "game_started")
        if ada.view["dealer"] == 0:
            break
        ada.request("reset")
    assert ada.view["dealer"] == 0
    page.locator(".uno-table").wait_for()
    for _ in range(600):
        ada.catch_up(ada.seq)
        if ada.view["dealing"] is not None:
            break
        if ada.view["turn"] == 0 or ada.view["legal"]:
            legal = ada.view["legal"]
            plays = [a for a in legal if a["type"] == "play" and a.get("uno", True)]
            kinds = {a["type"]: a for a in legal}
            action = (plays or [None])[0] or kinds.get("accept") or kinds.get("draw") or kinds.get("pass")
            ada.request("action", action=action or legal[0])
            continue
        wait_seq(page, ada.seq)
        _bo_moves(page)
        ada.until(lambda m: m["type"] == "game")
    else:
        raise AssertionError("the first round did not end")
    panel = page.locator('[data-testid="round-break"]')
    panel.wait_for()
    page.wait_for_function("document.activeElement?.dataset.testid === 'round-break'")
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.dataset.testid") == "deal"
    page.keyboard.press("Enter")
    panel.wait_for(state="detached")
    ada.until(lambda m: m["type"] == "game" and m["view"]["round"] == 2)
    ada.close()


def _bo_moves(page) -> None:
    """Bo's turn, by keyboard as far as it goes: a playable card (a Wild names red), else keep the card
    drawn, accept a Wild Draw Four, or draw."""
    card = page.locator('[data-testid="hand"] .ucard.playable').first
    if card.count():
        card.focus()
        page.keyboard.press("Enter")
        colour = page.locator("dialog[open] button", has_text="Red")
        if colour.count() or page.locator("dialog[open]").count():
            colour.click()
        return
    for name in ("Keep & pass", re.compile("^Accept"), re.compile("^Draw")):
        button = page.get_by_role("button", name=name)
        if button.count():
            button.first.focus()
            page.keyboard.press("Enter")
            return
    page.locator('[data-testid="draw"]').focus()
    page.keyboard.press("Enter")


LAST_WILD = """async (legal) => {
    const uno = await import("/uno.js");
    const stage = document.createElement("div");
    document.body.append(stage);
    const sent = [];
    const wild = { id: 100, color: "wild", type: "wild", value: null };
    const view = {
        game: "uno", players: 2, active: [true, true], counts: [1, 3], uno_called: [true, false],
        catchable: null, top: { id: 0, color: "red", type: "number", value: 0 }, color: "red",
        direction: 1, turn: 0, draw_pile: 50, discard_pile: 1, scores: [0, 0], round: 1,
        target_score: 0, dealer: 1, dealing: null, over: false, winners: [], settings: {}, seat: 0,
        pending: { draw_stack: 0, stack_kind: null, challenge: null, drawn_card_playable: false },
        hand: [wild], legal,
    };
    const ctx = { seat: 0, you: 0, name: (s) => ["Ada", "Bo"][s], act: (a) => sent.push(a),
                  presence: () => null, absent: () => false, rerender: () => {}, pause: null };
    uno.render(stage, view, ctx);
    stage.querySelector('[data-testid="hand"] .ucard.playable').click();
    await new Promise((done) => setTimeout(done, 100));
    const asked = document.querySelector("dialog[open]") !== null;
    stage.remove();
    return { sent, asked };
}"""


def test_a_wild_that_is_the_last_card_asks_for_no_colour(open_page):
    """Going out with a Wild ended the round only after a colour was picked, and the log named it."""
    page = open_page("/")
    legal = [{"type": "play", "card": 100, "color": c} for c in ("red", "yellow", "green", "blue")]
    result = page.evaluate(LAST_WILD, [*legal, {"type": "draw"}])
    assert result == {"sent": [legal[0]], "asked": False}
