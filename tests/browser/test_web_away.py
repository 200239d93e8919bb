"""A player's page closes mid-game, as the others see it: their seat says "offline" (with the seconds
the seat still waits) at once, then "bot playing" when the grace period ends; the bot plays that seat
on its turns and the game goes on to its end, for the players and the spectator alike."""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator

import pytest
from browser_helpers import (
    PHONE,
    create_room,
    drive,
    join_room,
    open_as,
    record_toasts,
    shots,
    start_game,
    take_over,
    toasts_once_quiet,
    wait_room,
)
from conftest import Server
from test_web_uno import uno_step
from wire import Wire, at_a_table, play_to_the_end, two_at_a_table

pytestmark = pytest.mark.browser

# Long enough for the others to see the seat wait (checked with the page's own waits, never a
# sleep), short enough that the bot takes over soon; bots act at once.
GRACE_ENV = {"PARLOUR_GRACE_SECONDS": "6", "PARLOUR_BOT_DELAY": "0"}


@pytest.fixture
def grace_server(tmp_path) -> Iterator[str]:
    proc = Server(tmp_path, env=GRACE_ENV).start()
    yield proc.base
    proc.stop()


def _chip(page, name: str):
    """The seat chip of `name` on the table."""
    chips = page.locator(".table-host .seats .seat")
    return chips.filter(has=page.locator(".seat-name", has_text=re.compile(f"^{name}$")))


def _member(page, name: str):
    """The player's line in the side panel."""
    return page.locator("#players .member").filter(
        has=page.locator(".member-name", has_text=re.compile(f"^{name}$"))
    )


def test_uno_seat_goes_away_then_a_bot_plays_it_to_the_end(open_page, grace_server):
    ada, bo, cy = (open_page(base=grace_server) for _ in range(3))
    code = create_room(ada, "Ada", "uno", {"target_score": 0}, capacity=3)
    join_room(bo, "Bo", code)
    join_room(cy, "Cy", code)
    start_game(ada, [ada, bo, cy])
    watcher = open_page(base=grace_server)
    watcher.fill("#name", "Di")
    watcher.fill("#join-code", code)
    watcher.click('#join-form button[type="submit"]')  # a game is running: joining turns into watching
    wait_room(watcher)
    watcher.locator('[data-testid="top"]').wait_for()
    others = (ada, bo, watcher)
    # Where the players read "Playing", someone with no seat in this game reads that they watch it.
    assert watcher.locator('[data-testid="room-state"]').inner_text() == "Watching"
    assert ada.locator('[data-testid="room-state"]').inner_text() == "Playing"

    # The log so far: nobody moves until the test drives Ada and Bo, and the bot may move the moment it
    # takes over (6 s after Cy goes: read now, as the waits and shots below can take longer on a slow host).
    watcher.locator("#game-log .log-entry").first.wait_for()
    taken_at = int(watcher.locator("#game-log .log-entry").last.get_attribute("data-id")[4:])
    cy.close()  # Cy's tab closes mid-game
    waits = re.compile(r"^offline · bot in \d+ s$")  # and the seconds the seat still waits for Cy
    for page in others:
        _chip(page, "Cy").locator(".badge.off", has_text=waits).wait_for()
        _member(page, "Cy").locator(".badge.off", has_text=waits).wait_for()
        assert _chip(page, "Cy").locator(".badge.bot").count() == 0
    # The host's buttons on Cy's line still look as pressable as they are (only the name fades).
    kick = _member(ada, "Cy").get_by_role("button", name="Kick Cy")
    assert kick.evaluate("e => getComputedStyle(e.closest('.member')).opacity") == "1"
    # No "Make host" for someone away (the server refuses it), and Cy's line keeps to one line.
    assert _member(ada, "Cy").get_by_role("button", name="Make host: Cy").count() == 0
    assert _member(ada, "Bo").get_by_role("button", name="Make host: Bo").count() == 1
    shots(watcher, "away-offline-spectator")
    shots(ada, "away-offline-player")
    heights = [_member(ada, name).evaluate("e => e.getBoundingClientRect().height") for name in ("Bo", "Cy")]
    assert heights[1] <= heights[0] + 1, heights

    for page in others:  # the grace period ends: a bot plays for Cy
        _chip(page, "Cy").locator(".badge.bot", has_text="bot playing").wait_for()
        assert _chip(page, "Cy").locator(".badge.off").count() == 0
    shots(watcher, "away-bot-spectator")
    shots(ada, "away-bot-player")

    drive([ada, bo], lambda page: uno_step(page, calls_uno=True, challenges=False), limit=800)
    for page in others:
        page.locator(".game-over").wait_for()
    assert watcher.locator('[data-testid="results"] tbody tr').count() == 3
    # The results say whose score a bot played part of (Cy's), and nobody else's.
    for page in others:
        stood_in = page.locator('[data-testid="results"] tbody tr:has([data-testid="stood-in"])')
        assert stood_in.count() == 1 and stood_in.inner_text().startswith("Cy")
        # Cy, let go once it was over, is not in the room: the chip says so.
        assert _chip(page, "Cy").locator(".badge.left").inner_text() == "left"
    shots(watcher, "away-results-stood-in")
    cy_moves = [
        text
        for entry in watcher.locator("#game-log .log-entry").all()
        if int(entry.get_attribute("data-id")[4:]) > taken_at
        and (text := entry.locator(".log-text").inner_text()).startswith("Cy ")
    ]
    assert cy_moves, "the bot made no move for Cy"
    # The log marks the moves the bot made for Cy, and nothing from before it took over.
    marked = [
        int(e.get_attribute("data-id")[4:])
        for e in watcher.locator("#game-log .log-entry:has(.log-bot)").all()
    ]
    assert marked and min(marked) > taken_at


def test_dots_turn_of_an_absent_player_says_it_waits_for_them(open_page, server):
    """Dots & Boxes names whose turn it is; for a player who dropped out it does not say "thinking", and
    the turn timer's bar says their clock runs on while they are offline."""
    ada, bo, _ = two_at_a_table(server, "dots", {"width": 4, "height": 4, "turn_timer": 60})
    if ada.view["turn"] == 0:  # Ada (seat 0) moves first: her line, then it is Bo's turn
        ada.request("action", action={"type": "line", "x": 0, "y": 0, "d": 0})
    page = open_page("/", PHONE)  # Ada's page takes her session over
    take_over(page, ada.token, "Ada")
    hint = page.locator(".dots-table .hint")
    hint.filter(has_text="Bo is thinking…").wait_for()
    bo.close()
    hint.filter(has_text="Waiting for Bo to come back…").wait_for()
    page.locator(".turn-timer .timer-who", has_text="Bo (offline)").wait_for()
    _chip(page, "Bo").locator(".badge.off", has_text=re.compile(r"^offline · bot in \d+ s$")).wait_for()
    shots(page, "away-dots-waiting")


def test_a_player_back_after_a_bot_kept_their_seat_is_told_so(open_page, grace_server):
    """The seat's score had moved on with nothing said: the returning player now hears that a bot kept
    their seat, and that it is theirs again; the same page reloaded afterwards hears nothing of the kind."""
    ada, bo, _ = two_at_a_table(grace_server, "dots", {"width": 4, "height": 4})
    bo.close()
    ada.until(lambda m: m["type"] == "member_updated" and m["member"]["replaced"], timeout=20)
    back = open_page(base=grace_server)
    take_over(back, bo.token, "Bo")
    told = "A bot kept your seat while you were away — it's yours again"
    back.locator("#toasts .toast", has_text=told).wait_for()
    ada.until(
        lambda m: m["type"] == "member_updated" and m["member"]["connected"] and not m["member"]["replaced"]
    )
    shots(back, "away-seat-taken-back")
    back.reload()
    back.locator('[data-testid="dots-board"]').wait_for()
    back.locator('#conn[data-status="online"]').wait_for()
    assert back.locator("#toasts .toast", has_text=told).count() == 0
    ada.close()


def _cys_seat_given_up(grace_server) -> tuple[Wire, Wire, Wire, str]:
    """Ada, Bo and Cy at a 3×3 Dots table where no bot takes a seat; Cy's grace has run out."""
    ada, bo, cy = (Wire(grace_server, name) for name in ("Ada", "Bo", "Cy"))
    settings = {"width": 3, "height": 3, "max_players": 3}
    code = ada.request("create_room", game="dots", settings=settings, capacity=3, bots_take_over=False)[
        "code"
    ]
    for guest in (bo, cy):
        guest.request("join", code=code)
    ada.request("start")
    cy.close()
    ada.until(lambda m: m["type"] == "member_left" and m["reason"] == "timeout", timeout=20)
    return ada, bo, cy, code


def test_a_player_back_after_their_seat_was_given_up_is_told_so(open_page, grace_server):
    """No bot takes seats in this room: Cy's ran out while away. Back by the room's link, Cy is seated
    as a spectator; the page says why (it only showed Cy's seat as left)."""
    ada, bo, cy, code = _cys_seat_given_up(grace_server)
    page = open_page(base=grace_server)
    open_as(page, f"{grace_server}/r/{code}", cy)
    page.locator("#toasts .toast", has_text="Your seat was given up while you were away").wait_for()
    page.locator("#spectators .member", has_text="Cy").wait_for()
    shots(page, "away-seat-lost")
    ada.close()
    bo.close()


def test_back_after_the_game_ended_without_you_shows_its_results(open_page, grace_server):
    """Cy's seat was given up, then the game ended. Back by the room's link, Cy saw a waiting room as a
    newcomer does ("I'm ready", under "Game over") and never the results of the game they played in."""
    ada, bo, cy, code = _cys_seat_given_up(grace_server)
    play_to_the_end([ada, bo])
    page = open_page(base=grace_server)
    open_as(page, f"{grace_server}/r/{code}", cy)
    page.locator("#toasts .toast", has_text="and the game ended meanwhile").wait_for()
    page.locator(".game-over").wait_for()
    assert "(left)" in page.locator('[data-testid="results"]').inner_text()  # their own seat, as it ended
    shots(page, "away-back-after-the-end")
    ada.close()
    bo.close()


def test_back_after_a_bot_played_your_seat_to_the_end_says_so(open_page, grace_server):
    """A bot took Bo's seat and played it until the game ended. Back, Bo read "Your seat was given up
    while you were away" over results that said "a bot stood in": the bot had kept the seat."""
    ada, bo, code = two_at_a_table(grace_server, "dots", {"width": 3, "height": 3})
    bo.close()
    ada.until(lambda m: m["type"] == "member_updated" and m["member"]["replaced"], timeout=20)
    while not ada.view["over"]:
        if ada.view["legal"]:
            ada.request("action", action=ada.view["legal"][0])
        else:
            ada.until(lambda m: m["type"] in ("game", "game_over"))
    page = open_page(base=grace_server)
    open_as(page, f"{grace_server}/r/{code}", bo)
    page.locator("#toasts .toast", has_text="A bot finished the game for you while you were away").wait_for()
    assert "(a bot stood in)" in page.locator('[data-testid="results"]').inner_text()
    assert page.locator("#toasts .toast", has_text="given up").count() == 0
    # Bo is back (a new member, the old one let go at the end): Bo's chip over the results no longer
    # says "left".
    assert _chip(page, "Bo").locator(".badge").count() == 0
    shots(page, "away-bot-finished")
    ada.close()


def test_a_table_whose_players_are_all_away_waits_for_one(open_page, grace_server):
    """Every person seated gone, bots had played the game out for them, for a spectator to watch (and
    its result counted). The table waits now, and says so; one back, its clock runs again."""
    ada, bo, code = two_at_a_table(grace_server, "dots", {"width": 3, "height": 3, "turn_timer": 60})
    watcher = open_page(base=grace_server)
    watcher.fill("#name", "Cy")
    watcher.fill("#join-code", code)
    watcher.click("#spectate-btn")
    wait_room(watcher)
    watcher.locator(".turn-timer").wait_for()
    seq = watcher.locator("#stage").get_attribute("data-seq")
    ada.close()
    bo.close()
    note = watcher.locator('[data-testid="all-away"]')
    note.wait_for()
    assert note.inner_text() == "Every player is away: the game waits until one of them is back."
    assert watcher.locator(".turn-timer").count() == 0
    # Their grace runs out (6 s): a bot holds each seat, and still nobody moves for them.
    watcher.locator("#players .member", has_text="bot playing").nth(1).wait_for(timeout=20_000)
    watcher.wait_for_timeout(500)
    assert watcher.locator("#stage").get_attribute("data-seq") == seq
    shots(watcher, "away-all-players")
    back = open_page(base=grace_server)
    take_over(back, ada.token, "Ada")
    note.wait_for(state="detached")
    watcher.locator(".turn-timer").wait_for()


TURN_MOVES = {"play", "draw", "pass", "accept", "challenge", "deal"}


def _drain(wire: Wire) -> None:
    """Read what ``wire`` has been sent so far (its view is then the latest)."""
    with contextlib.suppress(TimeoutError):
        while True:
            wire.until(lambda m: False, timeout=0.1)


def _move(wires: tuple[Wire, ...], page=None) -> None:
    """Whoever is on turn makes a move: one of ``wires``, or the person at ``page``; a bot's turns are
    waited out."""
    for _ in range(200):
        for wire in wires:
            _drain(wire)
        mover = next((w for w in wires if any(a["type"] in TURN_MOVES for a in w.view["legal"])), None)
        if mover is not None:
            legal = [a for a in mover.view["legal"] if a["type"] in TURN_MOVES]
            plays = [a for a in legal if a["type"] == "play" and a.get("uno", True)]
            mover.request("action", action=(plays or legal)[0])
            return
        if page is not None and page.locator(".uno-table .seat.me.turn").count():
            uno_step(page, calls_uno=True, challenges=False)
            return
    raise AssertionError("nobody came on turn")


def test_the_table_hears_when_a_player_a_bot_stood_in_for_is_back(open_page, grace_server):
    """The table is told "A bot plays for Cy until they are back", and then that Cy is back, though the
    others and the bot move on meanwhile: a move's news had taken its place (CI saw "Cy drew 2 (Draw
    Two)", "Bo drew 2 (Draw Two)" and no "Cy is back")."""
    (ada, bo, cy), code = at_a_table(grace_server, "uno", ("Ada", "Bo", "Cy"), {"target_score": 500})
    watcher = open_page(base=grace_server)
    watcher.fill("#name", "Di")
    watcher.fill("#join-code", code)
    watcher.click('#join-form button[type="submit"]')  # a game is running: joining turns into watching
    watcher.locator('[data-testid="top"]').wait_for()
    cy.close()
    ada.until(lambda m: m["type"] == "member_updated" and m["member"]["replaced"], timeout=20)
    watcher.locator("#toasts .toast", has_text="A bot plays for Cy until they are back").wait_for()
    record_toasts(watcher)
    _move((ada, bo))  # a move's toast is up when Cy comes back, and another move follows at once
    back = open_page(base=grace_server)
    take_over(back, cy.token, "Cy")
    back.locator('[data-testid="hand"]').wait_for()
    _move((ada, bo), back)
    seen = toasts_once_quiet(watcher)
    assert any(t.startswith("Cy is back") for t in seen), seen


def test_a_quick_reload_is_not_news_but_a_longer_absence_is(open_page, server):
    """Bo reloaded his page: in its half second away the whole table read "Bo lost connection", and its
    "is back" could be lost behind the next move. A reload now says nothing; a real absence says both."""
    ada_wire, bo_wire, _ = two_at_a_table(server, "dots", {"width": 4, "height": 4})
    ada = open_page("/")
    take_over(ada, ada_wire.token, "Ada")
    bo = open_page("/")
    take_over(bo, bo_wire.token, "Bo")
    for page in (ada, bo):
        page.locator('[data-testid="dots-board"]').wait_for()
        page.locator('#conn[data-status="online"]').wait_for()
    record_toasts(ada)
    bo.reload()
    bo.locator('#conn[data-status="online"]').wait_for()
    ada.wait_for_timeout(2500)  # past the moment a loss is said
    assert not [t for t in toasts_once_quiet(ada) if "Bo " in t], ada.evaluate("window.seenToasts")
    record_toasts(ada)
    bo.close()
    ada.locator("#toasts .toast", has_text="Bo lost connection").wait_for()
    back = open_page("/")
    take_over(back, bo_wire.token, "Bo")
    ada.locator("#toasts .toast", has_text="Bo is back").wait_for()
    ada_wire.close()
    bo_wire.close()
