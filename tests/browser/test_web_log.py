"""The game log: built by the server from the engine's events, so a reload shows the same history."""

from __future__ import annotations

import re

import pytest
from browser_helpers import NARROW, PHONE, on_screen, shot, shots, take_over
from wire import Wire, at_a_table, play_uno_until, two_at_a_table

pytestmark = pytest.mark.browser


def _uno_until_wild_draw4(ada: Wire, bo: Wire) -> None:
    """Play (Wild Draw Fours first, naming blue; never challenging) until one was played and paid."""
    players = [ada, bo]
    for _ in range(3000):
        for p in players:
            p.catch_up(max(q.seq for q in players))
        if any(e["kind"] == "draw" and "Wild Draw Four" in str(e["text"]) for e in ada.log):
            return
        actor = next(p for p in players if p.view["legal"])
        legal = actor.view["legal"]
        plays = [a for a in legal if a["type"] == "play"]
        four = [a for a in plays if a["card"] >= 104]
        pick = (four or [a for a in plays if a["card"] < 100] or plays or [None])[0]
        if pick is not None:
            action = {**pick, "color": "blue"} if pick["card"] >= 100 else pick
        else:
            kinds = {a["type"]: a for a in legal}
            action = kinds.get("accept") or kinds.get("draw") or kinds.get("pass") or legal[0]
        actor.request("action", action=action)
    raise AssertionError("no Wild Draw Four in 3,000 moves")


def _play(players: list[Wire], moves: int) -> None:
    """Whoever is on turn plays their first playable card, or else draws, accepts or passes."""
    for _ in range(moves):
        for p in players:
            p.catch_up(max(q.seq for q in players))
        actor = next(p for p in players if p.view["legal"])
        legal = actor.view["legal"]
        plays = [a for a in legal if a["type"] == "play"]
        if plays:
            action = {**plays[0], "color": "blue"} if plays[0]["card"] >= 100 else plays[0]
        else:
            kinds = {a["type"]: a for a in legal}
            action = kinds.get("accept") or kinds.get("draw") or kinds.get("pass") or legal[0]
        actor.request("action", action=action)


def _texts(page) -> list[str]:
    return page.locator("#game-log .log-entry .log-text").all_inner_texts()


def test_log_shows_wild_draw_four_colour_and_draw_in_order_after_reload(open_page, server):
    ada, bo, _ = two_at_a_table(server, "uno", {"target_score": 2000})
    _uno_until_wild_draw4(ada, bo)
    token = bo.token
    bo.close()
    ada.close()

    page = open_page("/", PHONE)
    take_over(page, token, "Bo")
    page.locator(".table-host").wait_for()
    page.reload()  # a reload mid-game: the history comes back from the snapshot
    page.locator(".table-host").wait_for()
    page.locator("#log-toggle").click()
    page.locator("#game-log .log-entry").first.wait_for()
    texts = _texts(page)
    played = next(i for i, t in enumerate(texts) if "played Wild Draw Four and named blue" in t)
    drew = next(i for i, t in enumerate(texts[played:]) if "drew 4 cards (Wild Draw Four)" in t)
    assert drew > 0, texts[played : played + 3]
    assert any(t.startswith("Round 1") for t in texts[:3]), texts[:3]
    # This tab never saw the game before, and the reload missed nothing: no "while you were away".
    assert page.locator("#game-log .log-back").count() == 0
    assert page.locator("#game-log .log-card.named.blue").count() >= 1  # a Wild: the colour named
    shot(page, "log-drawer")


def test_log_says_you_for_the_viewers_own_moves(open_page, server):
    ada, bo, _ = two_at_a_table(server, "connect_four")
    ada_first = ada.view["turn"] == 0
    if not ada_first:
        bo.request("action", action={"type": "drop", "column": 0})

    page = open_page("/")  # Ada's page takes her session over
    take_over(page, ada.token, "Ada")
    page.locator(".table-host").wait_for()
    page.locator(f'.c4-col[data-column="{0 if ada_first else 1}"]').click()
    if ada_first:
        bo.until(lambda m: m["type"] == "game")
        bo.request("action", action={"type": "drop", "column": 1})
    page.locator("#game-log .log-entry").nth(1).wait_for()
    order = ["Ada", "Bo"] if ada_first else ["Bo", "Ada"]
    lines = [f"{name} dropped a disc in column {c}" for c, name in enumerate(order, 1)]
    assert _texts(page) == [line.replace("Ada", "You") for line in lines]
    shots(page, "log-you")
    # The server's log stays in the third person: one log is shared by everyone.
    bo.catch_up(2)
    assert [e["text"] for e in bo.log] == lines
    bo.close()


def test_while_you_were_away_marks_only_what_happened_while_away(open_page, server):
    """The marker stands before the moves made while this tab was gone, and only when there were any."""
    ada, bo, _ = two_at_a_table(server, "connect_four")
    ada_first = ada.view["turn"] == 0
    page = open_page("/")  # Bo's page takes his session over
    take_over(page, bo.token, "Bo")
    page.locator(".table-host").wait_for()
    if ada_first:
        ada.request("action", action={"type": "drop", "column": 0})
    page.locator('.c4-col[data-column="1"]').click()  # Bo moves: Ada is next
    page.locator("#game-log .log-entry").nth(1 if ada_first else 0).wait_for()
    ada.catch_up(2 if ada_first else 1)
    back = page.locator("#game-log .log-back")

    page.reload()  # away and back, and nothing happened meanwhile
    page.locator(".table-host").wait_for()
    page.locator("#game-log .log-entry").first.wait_for()
    assert back.count() == 0
    seen = len(_texts(page))

    page.goto("about:blank")  # away; Ada moves meanwhile
    ada.until(lambda m: m["type"] == "member_updated" and not m["member"]["connected"])
    ada.request("action", action={"type": "drop", "column": 2})
    page.goto(server + "/")  # back: the same tab resumes the session
    page.locator("#game-log .log-entry").nth(seen).wait_for()
    assert back.count() == 1
    after = back.evaluate("e => e.nextElementSibling.querySelector('.log-text').textContent")
    assert after == "Ada dropped a disc in column 3"
    # And said: back within the grace, nothing else told of what happened meanwhile.
    page.locator("#toasts .toast", has_text="While you were away: Ada dropped a disc in column 3").wait_for()
    before = back.evaluate("e => e.previousElementSibling.querySelector('.log-text').textContent")
    assert before == "You dropped a disc in column 2"
    shots(page, "log-away")

    # The tab closed, and another opened later in the same browser: told too (the marker went with
    # the closed tab).
    page.locator('.c4-col[data-column="3"]').click()
    page.locator("#game-log .log-text", has_text="You dropped a disc in column 4").wait_for()
    tab = page.context.new_page()
    page.close()
    ada.until(lambda m: m["type"] == "member_updated" and not m["member"]["connected"])
    ada.request("action", action={"type": "drop", "column": 4})
    tab.goto(server + "/")
    tab.locator("#toasts .toast", has_text="While you were away: Ada dropped a disc in column 5").wait_for()
    ada.close()


PERSONAL = """async (cases) => {
    const { personal } = await import("/gamelog.js");
    return cases.map(([text, event]) => personal({ text, event }, 0, "Ada"));
}"""


def test_you_in_every_kind_of_line(open_page):
    """The client's rewrite of the server's lines, in the page's own module: verbs agree with "You",
    a possessive becomes "your", and a line that names someone else's seat is left alone."""
    page = open_page()
    cases = [
        ("Ada is skipped", {"seat": 0}, "You are skipped"),
        (
            "Bo challenged Ada's Wild Draw Four: guilty",
            {"seat": 1, "offender": 0},
            "Bo challenged your Wild Draw Four: guilty",
        ),
        (
            "Bo called Cheat on Ada: it was a lie; Ada picks up 5 cards",
            {"caller": 1, "placer": 0, "picked_up_by": 0},
            "Bo called Cheat on you: it was a lie; you pick up 5 cards",
        ),
        (  # a call's toast: a new sentence after "Cheat!" (it read "Cheat! you were cheating")
            "Bo called Cheat! Ada was cheating — Ada picks up 1.",
            {"caller": 1, "placer": 0, "picked_up_by": 0},
            "Bo called Cheat! You were cheating — you pick up 1.",
        ),
        ("Ada got rid of every card and wins", {"winner": 0}, "You got rid of every card and win"),
        ("Round 2: Ada deals", {"dealer": 0}, "Round 2: you deal"),
        ("Ada and Bo tie with 4 boxes", {"winners": [0, 1]}, "You and Bo tie with 4 boxes"),
        ("Adam played Red 5", {"seat": 0}, "Adam played Red 5"),  # another name that starts the same
        ("Bo played Red 5", {"seat": 1}, "Bo played Red 5"),
    ]
    got = page.evaluate(PERSONAL, [[text, event] for text, event, _ in cases])
    assert got == [want for _, _, want in cases]


TOASTS = """async (events) => {
    const { onEvent } = await import("/uno.js");
    return events.map((event) => onEvent(event, (s) => ["Ada", "Bo"][s], 0).text);
}"""


def test_a_moves_popup_words_the_card_as_its_log_line_does(open_page):
    """The pop-up and the game log name a card alike ("played red 6", not "Red 6" in one of them)."""
    from parlour.games.uno import describe_event

    page = open_page()
    wild = {"color": "wild", "type": "wild-draw4", "value": None}
    plays = [
        {
            "type": "play",
            "seat": 1,
            "card": card,
            "color": "green",
            "jump_in": False,
            "uno": False,
            "count": left,
        }
        for card, left in (
            ({"color": "red", "type": "number", "value": 6}, 3),
            ({"color": "blue", "type": "draw2", "value": None}, 3),
            (wild, 3),
            (wild, 0),  # the last card: the round is over, and no colour was named
        )
    ]
    toasts = page.evaluate(TOASTS, plays)
    lines = [describe_event(event, ["Ada", "Bo"]) for event in plays]
    assert toasts[:2] == lines[:2] == ["Bo played red 6", "Bo played blue Draw Two"]
    assert toasts[2] == "Bo played Wild Draw Four → green"
    assert lines[2] == "Bo played Wild Draw Four and named green"
    assert toasts[3] == lines[3] == "Bo played Wild Draw Four"
    # A card played with its UNO call says so, as the log does (the pop-up left the call out).
    called = [{**plays[0], "uno": True}]
    said = ["Bo played red 6 — UNO!"]
    assert page.evaluate(TOASTS, called) == [describe_event(called[0], ["Ada", "Bo"])] == said


def test_a_challenges_popup_is_good_news_for_whoever_won_it(open_page):
    """ "You challenged: Bo was bluffing" was red, as bad news, for the player who had just won it."""
    page = open_page()
    kinds = page.evaluate(
        """async (cases) => {
            const { onEvent } = await import("/uno.js");
            return cases.map(([event, seat]) => onEvent(event, (s) => ["Ada", "Bo", "Cy"][s], seat).kind);
        }""",
        [
            [{"type": "challenge", "seat": 0, "offender": 1, "guilty": guilty}, viewer]
            for guilty in (True, False)
            for viewer in (0, 1, 2)
        ],
    )
    assert kinds == ["good", "bad", "info", "bad", "good", "info"]


def _lines_shown(page, selector: str) -> float:
    """How many of the list's shortest (one-line) items its visible height holds."""
    return page.locator(selector).evaluate(
        "list => list.clientHeight / Math.min(...[...list.children].map(e => e.offsetHeight))"
    )


def test_log_and_chat_both_fit_a_laptop_screen_mid_game(open_page, server):
    """Four players, a spectator, a long log and a chat: at 1280×800 the newest log lines, the last
    chat lines, the chat's input and the hand are all on the first screen, with no scrolling to talk
    mid-game. Before, the chat got what the log left (a third): one line showed, cut in half."""
    players, code = at_a_table(server, "uno", ("Ada", "Bo", "Cy", "Di"), {"target_score": 2000})
    Wire(server, "Ed").request("spectate", code=code)
    for n, player in enumerate(players * 2):
        player.request("chat", text=f"line {n}")
    _play(players, 30)
    page = open_page("/")  # Ada's page takes her session over
    take_over(page, players[0].token, "Ada")
    page.locator("#game-log .log-entry").nth(25).wait_for()
    page.locator("#spectators .member").first.wait_for()
    for selector in (
        "#chat-input",
        "#chat-form button",
        "#game-log .log-entry:last-child",
        "#players",
        '[data-testid="hand"] .ucard',
    ):
        assert on_screen(page, selector), f"{selector} is below the first screen"
    # Not just the newest line: the last few moves can be read without scrolling the log (four lines
    # of one line each; a long entry takes two).
    assert _lines_shown(page, "#game-log") >= 4
    page.locator("#chat-log li", has_text="line 7").wait_for()
    assert _lines_shown(page, "#chat-log") >= 3
    # And the whole players' panel, the spectator too (its list was cut under "Spectators").
    unseen = """p => p.scrollHeight - p.clientHeight"""
    assert page.locator(".players-panel").evaluate(unseen) <= 1, "the players' panel scrolls"
    # The chat opens at its newest line (it opened at its oldest: sent before this page loaded).
    newest = "l => l.lastElementChild.getBoundingClientRect().bottom - l.getBoundingClientRect().bottom"
    assert page.locator("#chat-log").evaluate(newest) <= 1
    shots(page, "log-chat-laptop")


def test_a_rounds_end_stays_in_sight_through_the_next_round(open_page, server):
    """A match's round ends and the next is dealt in the same message: its toast went in seconds. The
    table says under the round's number who took the last round and for how much, after a reload too."""
    (ada, bo, cy), code = at_a_table(server, "uno", ("Ada", "Bo", "Cy"), {"target_score": 500})
    watcher = open_page(f"/r/{code}")  # sees the round end as it happens
    watcher.fill("#name", "Di")
    watcher.click("#spectate-btn")
    watcher.locator(".uno-table").wait_for()
    players = [ada, bo, cy]
    play_uno_until(players, lambda view: view["round"] == 2 or view["over"], 3000)
    assert ada.view["round"] == 2, "the first round ended"
    ended = next(e for e in reversed(ada.log) if e["kind"] == "round_over")["event"]
    names = ("Ada", "Bo", "Cy")  # by seat: the order they joined

    def said(viewer: int | None) -> str:
        """The line as ``viewer`` reads it: who went out, for how much, and whose cards gave it."""
        name = lambda seat: "you" if seat == viewer else names[seat]  # noqa: E731
        gave = [(s, p) for s, p in enumerate(ended["held"]) if s != ended["winner"] and p > 0]
        parts = f" ({', '.join(f'{name(s)} {p}' for s, p in gave)})" if len(gave) > 1 else ""
        return f"Round 1 went to {name(ended['winner'])}: +{ended['points']} points{parts}"

    live = watcher.locator('[data-testid="last-round"]')
    live.wait_for()
    assert live.inner_text() == said(None)
    page = open_page("/", PHONE)
    take_over(page, ada.token, "Ada")  # a page that never saw the round end: from the log
    line = page.locator('[data-testid="last-round"]')
    line.wait_for()
    assert line.inner_text() == said(0)
    shots(page, "uno-last-round")
    for wire in players:
        wire.close()


LINES_OVER_ONE = """els => els.filter((e) => {
    const text = document.createRange();
    text.selectNodeContents(e);
    return new Set([...text.getClientRects()].map((r) => Math.round(r.top))).size > 1;
}).map((e) => e.textContent)"""


def test_a_matchs_results_say_what_its_last_round_added(open_page, server):
    """A match's results showed only the totals: what the deciding round was worth was nowhere on them."""
    ada, bo, _ = two_at_a_table(server, "uno", {"target_score": 50})
    play_uno_until([ada, bo], lambda view: view["over"])
    assert ada.view["over"], "the match ended"
    ended = next(e for e in reversed(ada.log) if e["kind"] == "round_over")["event"]
    page = open_page("/", PHONE)
    take_over(page, bo.token, "Bo")
    results = page.locator('[data-testid="results"]')
    results.wait_for()
    headers = results.locator("th").all_inner_texts()
    assert headers == ["Player", "Points", f"Round {ended['round']}", "Cards left"]
    # Each header on one line, the table inside its panel, at 390 and 360 px ("Cards / left" had wrapped).
    for viewport in (PHONE, NARROW):
        page.set_viewport_size(viewport)
        tall = results.locator("th").evaluate_all(LINES_OVER_ONE)
        assert tall == [], (viewport, tall)
        assert page.locator(".game-over").evaluate("p => p.scrollWidth <= p.clientWidth")
    page.set_viewport_size(PHONE)
    rows = [row.locator("td").all_inner_texts() for row in results.locator("tbody tr").all()]
    winner = ended["winner"]
    # Ranked, the winner first whichever seat they had (seat order had put a winning Bo second).
    assert rows[0][0].startswith(("Ada", "Bo")[winner]) and rows[1][0].startswith(("Ada", "Bo")[1 - winner])
    assert rows[0][2] == f"+{ended['points']}" and rows[1][2] == "–"
    assert rows[0][1] == str(ended["scores"][winner]) and ended["scores"][winner] >= 50
    # The winner's chip, at 0 cards, no longer says UNO (called on their last card but one).
    emptied = page.locator(".seats .seat", has=page.locator(".count", has_text=re.compile("^0$")))
    assert emptied.count() == 1 and emptied.locator(".badge.uno").count() == 0
    # Nothing was pressed on this page yet: no focus ring was drawn round Bo's hand, empty or not.
    assert page.evaluate("() => document.activeElement === document.body")
    shots(page, "uno-match-results")
    ada.close()
    bo.close()


def test_a_phones_log_drawer_closes_by_its_button_escape_a_tap_outside_and_your_turn(open_page, server):
    """The drawer lies over the hand: only the Log button, scrolled back up to, closed it, and a turn's
    clock ran out under it."""
    ada, bo, _ = two_at_a_table(server, "connect_four")
    page = open_page("/", PHONE)
    take_over(page, ada.token, "Ada")
    page.locator(".table-host").wait_for()
    toggle, drawer = page.locator("#log-toggle"), page.locator("#log-panel.open")
    closer = page.get_by_role("button", name="Close the game log")
    toggle.click()
    drawer.wait_for()
    assert on_screen(page, "#log-close")
    shot(page, "log-drawer-close")
    closer.click()
    drawer.wait_for(state="hidden")
    assert toggle.get_attribute("aria-expanded") == "false"
    assert page.evaluate("document.activeElement.id") == "log-toggle"
    toggle.click()
    drawer.wait_for()
    page.keyboard.press("Escape")
    drawer.wait_for(state="hidden")
    toggle.click()
    drawer.wait_for()
    page.locator(".room-head .room-title").click()  # anywhere outside the drawer
    drawer.wait_for(state="hidden")
    # Ada opens the room's first game. Opened while Bo thinks, the drawer closes as her turn comes round.
    page.locator(".c4-col.playable").first.click()
    page.locator(".c4-col.playable").first.wait_for(state="detached")
    toggle.click()
    drawer.wait_for()
    bo.catch_up(1)
    bo.request("action", action=bo.view["legal"][0])
    drawer.wait_for(state="hidden")
    page.locator(".c4-col.playable").first.wait_for()
    ada.close()
    bo.close()


def test_five_players_and_nobody_watching_fit_the_players_panel_mid_game(open_page, server):
    """Five players and the host's buttons filled the panel at 1280 × 800: "Spectators" and "nobody
    watching" were cut off half-way. Mid-game an empty audience is not listed; a spectator still is."""
    players, code = at_a_table(server, "uno", ("Ada", "Bo", "Cy", "Di", "Ed"), {"target_score": 2000})
    page = open_page("/")
    take_over(page, players[0].token, "Ada")  # the host, whose rows have buttons
    page.locator('[data-testid="hand"] .ucard').first.wait_for()
    assert page.locator("#spectators-title").is_hidden()
    unseen = """p => p.scrollHeight - p.clientHeight"""
    assert page.locator(".players-panel").evaluate(unseen) <= 1, "the players' panel scrolls"
    watcher = Wire(server, "Fay")
    watcher.request("spectate", code=code)
    page.locator("#spectators .member", has_text="Fay").wait_for()
    assert page.locator("#spectators-title").is_visible()
    for wire in (*players, watcher):
        wire.close()


def test_a_matchs_results_list_every_round(open_page, server):
    """The results' round column is the last round's: the rounds before it were nowhere on them."""
    ada, bo, _ = two_at_a_table(server, "uno", {"target_score": 150})
    players = [ada, bo]
    play_uno_until(players, lambda view: view["over"])
    assert ada.view["over"], "the match ended"
    ends = [e["event"] for e in ada.log if e["kind"] == "round_over"]
    page = open_page("/")
    take_over(page, ada.token, "Ada")
    page.locator('[data-testid="results"]').wait_for()
    rounds = page.locator('[data-testid="rounds"]')
    if len(ends) < 2:  # a match won in its first round has its one round in the table already
        assert rounds.count() == 0
    else:
        said = " · ".join(f"{e['round']}: {('Ada', 'Bo')[e['winner']]} +{e['points']}" for e in ends)
        assert rounds.inner_text() == f"Rounds — {said}"
        shots(page, "uno-match-rounds")
    for wire in players:
        wire.close()


def test_the_log_keeps_its_newest_line_in_sight_when_its_panel_shrinks(open_page, server):
    """The log's panel shrank (the players' panel above it grew at a game's end; here the window is
    made shorter): its newest lines slid out of sight below, the log left scrolled where it was."""
    players, _ = at_a_table(server, "uno", ("Ada", "Bo", "Cy"), {"target_score": 2000})
    _play(players, 30)
    page = open_page("/")  # Ada's page takes her session over
    take_over(page, players[0].token, "Ada")
    page.locator("#game-log .log-entry").nth(25).wait_for()
    hidden_below = "l => l.lastElementChild.getBoundingClientRect().bottom - l.getBoundingClientRect().bottom"
    assert page.locator("#game-log").evaluate(hidden_below) <= 1
    before = page.locator("#game-log").evaluate("l => l.clientHeight")
    page.set_viewport_size({"width": 1280, "height": 640})
    page.wait_for_function(f"document.querySelector('#game-log').clientHeight < {before} - 60")
    page.evaluate("() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))")
    assert page.locator("#game-log").evaluate(hidden_below) <= 1
    # Scrolled up by the reader, it stays where they put it.
    page.locator("#game-log").evaluate("l => { l.scrollTop = 0; }")
    page.set_viewport_size({"width": 1280, "height": 800})
    page.evaluate("() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))")
    assert page.locator("#game-log").evaluate("l => l.scrollTop") == 0
    for wire in players:
        wire.close()


def test_losers_tied_on_points_are_ranked_by_the_cards_they_kept(open_page, server):
    """A round's losers all score 0 in UNO: the results listed them in seat order, a player left with
    17 cards above one with 2. Fewer cards left now ranks higher among them."""
    players, _ = at_a_table(server, "uno", ("Ada", "Bo", "Cy", "Di"), {"target_score": 0})
    play_uno_until(players, lambda view: view["over"])
    page = open_page("/", PHONE)
    take_over(page, players[0].token, "Ada")
    results = page.locator('[data-testid="results"]')
    results.wait_for()
    headers = results.locator("th").all_inner_texts()
    rows = [row.locator("td").all_inner_texts() for row in results.locator("tbody tr").all()]
    points, cards_left = headers.index("Points"), headers.index("Cards left")
    losers = [(int(row[points]), int(row[cards_left])) for row in rows[1:]]
    assert len(losers) == 3
    assert losers == sorted(losers, key=lambda loser: (-loser[0], loser[1])), rows
    for wire in players:
        wire.close()
