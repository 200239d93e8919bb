"""Nothing vanishes, and the table moves: toasts queue (two at once show in order, the first long
enough to read), a plain play is told by the pile rather than a toast, and the last UNO card slides
onto the pile unless the visitor asked for reduced motion."""

from __future__ import annotations

import pytest
from browser_helpers import DESKTOP, record_toasts, shots, toasts_once_quiet, wait_drawn, wait_room
from wire import Wire, two_at_a_table

pytestmark = pytest.mark.browser


def _uno(server: str) -> tuple[str, list[Wire]]:
    ada, bo, code = two_at_a_table(server, "uno", {"target_score": 2000})
    return code, [ada, bo]


def _turn(players: list[Wire]) -> Wire:
    seq = max(p.seq for p in players)
    for p in players:
        p.catch_up(seq)
    return players[players[0].view["turn"]]


def _until_draw_two(players: list[Wire]) -> tuple[Wire, dict]:
    """Play on (never a Draw Two) until the player on turn can play one that leaves them two cards or
    more: a last card's penalty is drawn "(for the winning card)", and a last card but one calls UNO,
    which is news of its own (CI once met it: "Ada played red Draw Two — UNO! · Bo drew 2"). Returns
    them and that play."""
    for _ in range(3000):
        actor = _turn(players)
        legal = actor.view["legal"]
        hand = {card["id"]: card for card in actor.view["hand"]}
        plays = [a for a in legal if a["type"] == "play"]
        two = [a for a in plays if hand[a["card"]]["type"] == "draw2"]
        if two and len(hand) > 2:
            return actor, two[0]
        plain = [a for a in plays if hand[a["card"]]["color"] != "wild" and a not in two]
        wild = [{**a, "color": "red"} for a in plays if hand[a["card"]]["color"] == "wild"]
        kinds = {a["type"]: a for a in legal}
        other = kinds.get("accept") or kinds.get("draw") or kinds.get("pass") or legal[0]
        action = (plain or wild or [other])[0]
        actor.request("action", action=action)
    raise AssertionError("no Draw Two in 3,000 moves")


def _watch(page, code: str) -> None:
    page.fill("#name", "Watcher")
    page.fill("#join-code", code)
    page.click("#spectate-btn")
    wait_room(page)
    page.locator('[data-testid="top"]').wait_for()


def test_a_plain_play_is_on_the_pile_and_its_penalty_is_a_toast(open_page, server):
    """One message brings the play of a Draw Two, the draw of two and the skip. The pile names who
    played the card, and only the draw is a toast: a toast for every play trailed a quick table by a
    move, each holding the next for a moment to read."""
    code, players = _uno(server)
    actor, draw_two = _until_draw_two(players)
    mover, victim = ("Ada", "Bo") if actor is players[0] else ("Bo", "Ada")
    watcher = open_page()
    _watch(watcher, code)
    record_toasts(watcher)
    actor.request("action", action=draw_two)
    watcher.locator(f'[data-testid="top"][data-id="top-{draw_two["card"]}"]').wait_for()
    assert watcher.locator('[data-testid="played-by"]').inner_text() == f"Played by {mover}"
    assert toasts_once_quiet(watcher) == [f"{victim} drew 2 (Draw Two)"]
    log = watcher.locator("#game-log li").all_inner_texts()
    assert any(f"{mover} played" in line and "Draw Two" in line for line in log), log
    shots(watcher, "uno-played-by")
    watcher.reload()  # the pile's words come back from the game log
    watcher.locator(f'[data-testid="top"][data-id="top-{draw_two["card"]}"]').wait_for()
    assert watcher.locator('[data-testid="played-by"]').inner_text() == f"Played by {mover}"
    for p in players:
        p.close()


QUEUE = """async () => {
    const { toast } = await import("/ui.js");
    toast("Bo drew 2 (Draw Two)", "info", 2500, true);
    toast("Bo: UNO!", "good");
}"""


def test_two_toasts_at_once_show_in_order_the_first_long_enough_to_read(open_page):
    """A newer toast waits behind the one shown: it neither hides it at once nor drops it."""
    page = open_page()
    record_toasts(page)
    page.evaluate(QUEUE)
    page.wait_for_function("window.seenToasts.length >= 2")
    first, second = page.evaluate("window.seenToasts")
    assert [first["text"], second["text"]] == ["Bo drew 2 (Draw Two)", "Bo: UNO!"]
    assert second["at"] - first["at"] >= 1500


def test_a_rounds_winner_is_told_though_the_next_deal_comes_with_it(open_page, server):
    """The round's last play, its end and the next deal come in one message: the deal's toast (a
    move's, making way for newer ones) replaced the winner's before anyone read it."""
    code, players = _uno(server)
    watcher = open_page()
    _watch(watcher, code)
    record_toasts(watcher)
    for _ in range(3000):
        actor = _turn(players)
        legal = actor.view["legal"]
        hand = {card["id"]: card for card in actor.view["hand"]}
        plays = [a for a in legal if a["type"] == "play"]
        plays = [{**a, "color": "red"} if hand[a["card"]]["color"] == "wild" else a for a in plays]
        kinds = {a["type"]: a for a in legal}
        actor.request(
            "action",
            action=(plays or [kinds.get("accept") or kinds.get("draw") or kinds.get("pass") or legal[0]])[0],
        )
        last = next(m for m in reversed(actor.messages) if m.get("type") == "game")
        ended = next((e for e in last["events"] if e["type"] == "round_over"), None)
        if ended:
            break
    else:
        raise AssertionError("no round ended in 3,000 moves")
    winner = ["Ada", "Bo"][ended["winner"]]
    watcher.wait_for_function(
        f"window.seenToasts.some((t) => t.text.includes('{winner} won round 1'))", timeout=20_000
    )
    for p in players:
        p.close()


def test_the_last_uno_card_slides_onto_the_pile_unless_motion_is_reduced(browser, server):
    code, players = _uno(server)
    pages = {}
    for motion in ("no-preference", "reduce"):
        context = browser.new_context(viewport=DESKTOP, reduced_motion=motion, bypass_csp=True)
        context.set_default_timeout(10_000)
        page = context.new_page()
        page.goto(f"{server}/r/{code}")
        wait_drawn(page)
        _watch(page, code)
        pages[motion] = page
    before = {motion: page.locator('[data-testid="top"]').element_handle() for motion, page in pages.items()}
    actor = _turn(players)
    while not any(a["type"] == "play" for a in actor.view["legal"]):  # draw until a card can be played
        actor.request("action", action={"type": "draw"})
        actor = _turn(players)
    play = next(a for a in actor.view["legal"] if a["type"] == "play")
    actor.request("action", action={**play, "color": "red"} if play["card"] >= 100 else play)
    for motion, page in pages.items():
        page.locator(f'[data-testid="top"][data-id="top-{play["card"]}"]').wait_for()
        assert not before[motion].evaluate("e => e.isConnected"), "a new top card is a new element"
    slide = (
        pages["no-preference"]
        .locator('[data-testid="top"]')
        .evaluate("e => { const s = getComputedStyle(e); return [s.animationName, s.animationDuration]; }")
    )
    assert slide == ["slide-onto-pile", "0.35s"]
    still = pages["reduce"].locator('[data-testid="top"]').evaluate("e => getComputedStyle(e).animationName")
    assert still == "none"
    shots(pages["reduce"], "uno-watch-pile")
    for page in pages.values():
        page.context.close()
    for p in players:
        p.close()


ONE_TOAST = """async (notes) => {
    const { toastAll } = await import("/ui.js");
    toastAll(notes);
}"""


def test_what_one_message_says_is_one_toast(open_page):
    """A challenge and the draw it costs came as two toasts, the second told a moment after the table
    moved on; they are now one, coloured by the worst news in it."""
    page = open_page()
    record_toasts(page)
    page.evaluate(
        ONE_TOAST,
        [
            {"text": "Bo challenged and lost: Ada played fair", "kind": "info"},
            {"text": "Bo drew 6 (lost the challenge)", "kind": "bad"},
        ],
    )
    joined = "Bo challenged and lost: Ada played fair · Bo drew 6 (lost the challenge)"
    shown = page.locator("#toasts .toast")
    shown.wait_for()
    assert "bad" in shown.get_attribute("class")
    assert toasts_once_quiet(page) == [joined]


PILE = """async ([view, events]) => {
    const uno = await import("/uno.js");
    const ctx = { seat: 0, you: 0, name: (s) => ["Ada", "Bo"][s], act() {}, presence: () => null,
                  pause: null };
    const said = () => {
        const stage = document.createElement("div");
        uno.render(stage, view, ctx);
        return stage.querySelector('[data-testid="played-by"]').textContent;
    };
    const play = { type: "play", seat: 1, card: view.top, color: view.color, jump_in: false, count: 5 };
    uno.reset();
    uno.onEvent(play, ctx.name, 0);
    const played = said();
    uno.onEvent({ ...play, seat: 0 }, ctx.name, 0);
    const mine = said();
    uno.onEvent({ type: "first_card", card: view.top }, ctx.name, 0);  // a new round turns up the same card
    const dealt = said();
    uno.reset();
    uno.resume([play, { type: "deal" }]);
    const resumed = said();
    uno.reset();
    uno.resume(events.concat([play]));
    return [played, mine, dealt, resumed, said()];
}"""


def test_the_pile_names_its_cards_player_until_a_new_deal(open_page, server):
    """Card ids come back each round: a round whose first card was the card that won the last one
    named that round's winner as its player."""
    ada, bo, _ = two_at_a_table(server, "uno", {"target_score": 0})
    page = open_page()
    said = page.evaluate(PILE, [ada.view, []])
    assert said == ["Played by Bo", "Played by you", "\u00a0", "\u00a0", "Played by Bo"]
    for p in (ada, bo):
        p.close()


SKIPPED = """async () => {
    const { onEvent } = await import("/uno.js");
    const names = (s) => ["Ada", "Bo", "Cy"][s];
    return [onEvent({ type: "skip", seat: 0 }, names, 0), onEvent({ type: "skip", seat: 2 }, names, 0)];
}"""


def test_the_player_a_skip_hits_is_told(open_page):
    """The pile shows the Skip, not whom it hit, and a phone's log is shut: the one skipped is told."""
    page = open_page()
    mine, theirs = page.evaluate(SKIPPED)
    assert mine["text"] == "You are skipped" and not mine["quiet"]
    assert theirs["quiet"]
