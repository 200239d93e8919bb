"""Start screen and waiting room in the browser: create, join, links, markers, chat, host controls."""

from __future__ import annotations

import re

import pytest
from browser_helpers import (
    PHONE,
    create_room,
    join_room,
    no_horizontal_scroll,
    on_screen,
    ready_up,
    record_toasts,
    shot,
    shots,
    take_over,
    toasts_once_quiet,
    wait_room,
)
from wire import Wire, at_a_table, play_to_the_end, two_at_a_table

pytestmark = pytest.mark.browser

XSS = """<script>window.__xss = 1</script><img src=x onerror="window.__xss = 2">"""

LATE_SOCKET = """
(() => {
  // The page's first websocket opens two seconds late, as on a slow network.
  const Real = window.WebSocket;
  let first = true;
  class Late extends EventTarget {
    constructor(url) {
      super();
      this.readyState = Real.CONNECTING;
      const dial = () => {
        this.ws = new Real(url);
        for (const type of ["open", "message", "close", "error"]) {
          this.ws.addEventListener(type, (e) => {
            this.readyState = this.ws.readyState;
            const copy = type === "message" ? new MessageEvent(type, { data: e.data }) : new Event(type);
            this.dispatchEvent(copy);
          });
        }
      };
      if (first) setTimeout(dial, 2000);
      else dial();
      first = false;
    }
    send(data) { this.ws.send(data); }
    close() { this.ws?.close(); }
  }
  Object.assign(Late, { CONNECTING: 0, OPEN: 1, CLOSING: 2, CLOSED: 3 });
  window.WebSocket = Late;
})();
"""


def member_row(page, name: str):
    return page.locator("#players .member, #spectators .member").filter(
        has=page.locator(".member-name", has_text=re.compile(f"^{name}$"))
    )


def badges(page, name: str) -> list[str]:
    return member_row(page, name).locator(".badge").all_inner_texts()


def test_start_screen_public_rooms_and_quick_play(open_page):
    visitor = open_page()
    assert visitor.locator("#screen-start").is_visible()
    shots(visitor, "start-screen")
    visitor.set_viewport_size(PHONE)
    assert no_horizontal_scroll(visitor)

    host = open_page()
    code = create_room(host, "Hosty", "dots", {"width": 5, "height": 5}, capacity=3)
    # The visitor has no session yet: the list still shows the new public room.
    visitor.locator(f'#public-rooms [data-code="{code}"]').wait_for(timeout=8_000)
    assert "Dots & Boxes" in visitor.locator(f'#public-rooms [data-code="{code}"]').inner_text()
    visitor.fill("#name", "Visitor")
    visitor.locator(f'#public-rooms [data-code="{code}"] button', has_text="Join").click()
    assert wait_room(visitor) == code

    # Quick play: two players asking for the same game land in the same room.
    first, second = open_page(), open_page()
    first.fill("#name", "Quick1")
    first.click('[data-quick="cheat"]')
    quick = wait_room(first)
    second.fill("#name", "Quick2")
    second.click('[data-quick="cheat"]')
    assert wait_room(second) == quick
    member_row(first, "Quick2").wait_for()


def test_waiting_room_markers_link_chat_and_host_controls(open_page, server):
    ada = open_page()
    ada.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=server)
    code = create_room(ada, "Ada", "cheat", {"decks": 1}, capacity=4)
    assert ada.url.endswith(f"/r/{code}")

    # A friend opens the link: the code is filled in, they type a name and press Enter to join.
    bo = open_page(f"/r/{code}")
    bo.wait_for_function(f"document.querySelector('#join-code').value === '{code}'")
    bo.fill("#name", "Bo")
    bo.press("#name", "Enter")
    wait_room(bo)
    cy = open_page()
    join_room(cy, "Cy", code)

    # Host and "you" are badges of their own, apart from the name; so is readiness.
    member_row(ada, "Cy").wait_for()
    assert badges(ada, "Ada")[:2] == ["♛ host", "you"]
    assert "host" not in " ".join(badges(bo, "Bo"))
    assert "you" in badges(bo, "Bo")
    assert "not ready" in badges(ada, "Bo")
    # The host may start before everyone is ready; the button says who is not (it did not say).
    assert ada.get_by_role("button", name="Start game").inner_text() == "Start game (2 not ready)"
    ready_up(cy)
    ada.get_by_role("button", name="Start game (Bo isn't ready)").click()
    # Asked first: one click had pulled friends still reading the results into the next game.
    asked = ada.locator("dialog[open]")
    assert asked.locator("#dialog-title").inner_text() == "Start without waiting for Bo?"
    asked.get_by_role("button", name="Cancel").click()
    assert ada.locator(".table-host").count() == 0
    # What Bo's game waits for, in words (a greyed "Waiting for the host to start" said only Ada could).
    waits = "The game starts once everyone is ready (not yet: Ada and you), or when Ada starts it."
    assert bo.locator('[data-testid="starts-when"]').inner_text() == waits

    ada.click("#copy-link")
    assert ada.evaluate("navigator.clipboard.readText()") == f"{server}/r/{code}"

    # Chat is text, never markup.
    bo.fill("#chat-input", XSS)
    bo.press("#chat-input", "Enter")
    for page in (ada, bo, cy):
        line = page.locator("#chat-log li").last
        line.wait_for()
        assert line.locator(".chat-text").inner_text() == XSS
        assert page.locator("#chat-log img, #chat-log script").count() == 0
        assert page.evaluate("window.__xss") is None
    # A web address is a link that opens in a new tab; the sentence's full stop is not part of it, and
    # a javascript: address stays text.
    bo.fill("#chat-input", "rules: https://example.com/uno_(rules)?v=2. and javascript:alert(1)")
    bo.press("#chat-input", "Enter")
    link = ada.locator("#chat-log li").last.locator("a")
    link.wait_for()
    assert link.count() == 1
    assert link.get_attribute("href") == "https://example.com/uno_(rules)?v=2"
    assert link.get_attribute("target") == "_blank" and "noopener" in link.get_attribute("rel")
    words = ada.locator("#chat-log li").last.locator(".chat-text").inner_text()
    assert words.endswith("?v=2. and javascript:alert(1)"), words
    shots(ada, "waiting-room")
    ada.set_viewport_size(PHONE)
    assert no_horizontal_scroll(ada)
    ada.set_viewport_size({"width": 1280, "height": 800})

    # Settings: the host changes them; everyone sees the summary change.
    ada.get_by_role("button", name="Settings…").click()
    ada.select_option('#dialog [name="s.rank_sequence"]', "any")
    shots(ada, "settings-dialog")
    ada.click('#dialog button[value="save"]')
    bo.locator(".settings-summary", has_text="Rank sequence: any rank").wait_for()
    # The toast says what changed, not only that something did.
    bo.locator("#toasts .toast", has_text="Room settings changed: Rank sequence: any rank").wait_for()

    # Transfer host, after confirming (the giver cannot take it back): Bo gets the Start button, Ada
    # loses it; both are told.
    member_row(ada, "Bo").get_by_role("button", name="Make host: Bo").click()
    asked = ada.locator("dialog[open]")
    assert asked.locator("#dialog-title").inner_text() == "Make Bo the host?"
    asked.get_by_role("button", name="Cancel").click()
    assert "♛ host" in badges(ada, "Ada")
    member_row(ada, "Bo").get_by_role("button", name="Make host: Bo").click()
    ada.locator("dialog[open]").get_by_role("button", name="Make host").click()
    bo.get_by_role("button", name="Start game").wait_for()
    bo.locator("#toasts .toast", has_text="You are the host now").wait_for()
    # Each page draws the change when its own message arrives: waited for on each.
    member_row(cy, "Bo").locator(".badge", has_text="♛ host").wait_for()
    assert "♛ host" not in badges(cy, "Ada")
    waits = "The game starts once everyone is ready (not yet: Bo, Cy and you), or when Bo starts it."
    ada.locator('[data-testid="starts-when"]', has_text=waits).wait_for()

    # Kick, after confirming.
    member_row(bo, "Cy").get_by_role("button", name="Kick Cy").click()
    bo.locator("dialog[open]").wait_for()
    bo.click('#dialog button[value="yes"]')
    cy.locator("#screen-start").wait_for()
    member_row(bo, "Cy").wait_for(state="detached")

    # The host's Exit says who hosts next.
    bo.click("#leave")
    assert "Ada will host the room." in bo.locator("#dialog-body").inner_text()
    bo.click('#dialog button[value="no"]')

    # Exit asks first; cancelling keeps you in the room.
    ada.click("#leave")
    ada.click('#dialog button[value="no"]')
    assert ada.locator("#screen-room").is_visible()
    ada.click("#leave")
    ada.click('#dialog button[value="yes"]')
    ada.locator("#screen-start").wait_for()
    assert ada.url.endswith("/")
    member_row(bo, "Ada").wait_for(state="detached")

    # The name is remembered on this device.
    ada.reload()  # the name comes back once the client has reconnected and identified
    ada.wait_for_function("document.querySelector('#name').value === 'Ada'")


def test_join_errors_and_passwords(open_page):
    ada = open_page()
    ada.locator("#create-form .create-options summary").click()  # rules and room options
    ada.fill("#create-form [name=password]", "sesame")
    code = create_room(ada, "Ada", "uno", {"target_score": 100}, capacity=3)
    # The invite link does not carry the password: the one who shares it is reminded to pass it on.
    ada.locator('[data-testid="invite-password"]', has_text="tell them it too").wait_for()

    bo = open_page()
    bo.fill("#name", "Bo")
    bo.fill("#join-code", "ZZZZZ")
    bo.click('#join-form button[type="submit"]')
    bo.locator(".toast.bad", has_text="No open room has the code “ZZZZZ” — check it").wait_for()
    assert bo.locator("#screen-start").is_visible()

    bo.fill("#join-code", f"  {code.lower()} ")
    record_toasts(bo)
    bo.click('#join-form button[type="submit"]')
    bo.locator(".toast.bad", has_text="This room has a password").first.wait_for(state="attached")
    # It names the box to type in, on the form as it is (its heading may read "Join room …").
    said = bo.locator(".toast.bad", has_text="This room has a password").first.inner_text()
    assert "Password box" in said and bo.locator("#join-form").get_by_label("Password").count() == 1, said
    bo.fill("#join-password", "nope")
    bo.click('#join-form button[type="submit"]')
    bo.locator(".toast.bad:not(.gone)", has_text="That password is wrong").wait_for()
    # Each answer shows at once, in place of the one before (they queued: a dozen quick wrong passwords
    # were still being answered 20 s later).
    asked, wrong = bo.evaluate("window.seenToasts")[-2:]
    assert asked["text"].startswith("This room has a password") and wrong["text"].startswith("That password")
    assert wrong["at"] - asked["at"] < 1500, "the answer waited behind the toast before it"
    bo.fill("#join-password", "sesame")
    bo.click('#join-form button[type="submit"]')
    assert wait_room(bo) == code
    assert bo.locator("#toasts .toast.bad").count() == 0  # stale errors stay on the start page

    # A full room offers to watch instead.
    for name in ("Cy", "Dee"):
        page = open_page()
        page.fill("#name", name)
        page.fill("#join-code", code)
        page.fill("#join-password", "sesame")
        page.click('#join-form button[type="submit"]')
        if name == "Cy":
            wait_room(page)
    page.locator("#dialog-title", has_text="This room is full").wait_for()
    assert page.locator('#dialog button[value="yes"]').get_attribute("class") == "primary"  # not a danger
    page.click('#dialog button[value="yes"]')
    assert wait_room(page) == code
    page.locator("#spectators .member", has_text="Dee").wait_for()

    nameless = open_page()
    nameless.fill("#join-code", code)
    nameless.click('#join-form button[type="submit"]')
    nameless.locator(".toast.bad", has_text="name").first.wait_for(state="attached")


def test_second_tab_takes_over_the_session(open_page, server):
    ada = open_page()
    code = create_room(ada, "Ada", "dots", capacity=2)
    tab = ada.context.new_page()
    tab.goto(server + "/")
    assert wait_room(tab) == code, "the stored token resumes straight into the room"
    ada.locator("#conn", has_text="another tab").wait_for()
    # The old tab is covered, not left to look playable; Escape does not uncover it.
    covered = ada.locator("dialog[open]", has_text="You opened this game in another tab")
    covered.wait_for()
    ada.keyboard.press("Escape")
    covered.wait_for()
    shots(ada, "another-tab")
    tab.fill("#chat-input", "still me")
    tab.press("#chat-input", "Enter")
    tab.locator("#chat-log li.mine", has_text="still me").wait_for()
    # Taking it back here: this tab plays again, and the other one is covered in turn.
    covered.get_by_role("button", name="Play here instead").click()
    # Once the other tab is covered, this one has resumed (it showed the room all along, under its cover).
    tab.locator("dialog[open]", has_text="You opened this game in another tab").wait_for()
    covered.wait_for(state="detached")
    assert wait_room(ada) == code
    ada.locator("#chat-log li", has_text="still me").wait_for()


def test_public_list_shows_only_rooms_with_a_connected_human(open_page):
    ada = open_page()
    mine = create_room(ada, "Ada", "uno")
    ada.get_by_role("button", name="Add easy bot").click()
    ada.locator("#players .member", has_text="bot").first.wait_for()
    ada.get_by_role("button", name="Exit").click()
    ada.click('#dialog button[value="yes"]')
    ada.locator("#screen-start").wait_for()

    bo = open_page()
    theirs = create_room(bo, "Bo", "dots")
    listed = ada.locator(f'#public-rooms [data-code="{theirs}"]')
    listed.wait_for()
    assert "host: Bo" in listed.inner_text()
    # Ada's room has only a bot left: not listed.
    assert ada.locator(f'#public-rooms [data-code="{mine}"]').count() == 0
    bo.close()  # Bo's tab closes: nobody who could welcome a visitor is there any more
    listed.wait_for(state="detached")


def test_a_public_room_with_a_free_seat_after_its_game_is_listed_to_join(open_page, server):
    """After a game one player left and the host waited alone: the room was gone from the public list,
    and nobody could find it. With a seat free it is listed, "between games", and Join seats the
    visitor in its waiting room."""
    ada, bo = Wire(server, "Ada"), Wire(server, "Bo")
    code = ada.request(
        "create_room", game="dots", settings={"width": 2, "height": 2}, public=True, capacity=2
    )["code"]
    bo.request("join", code=code)
    ada.request("start")
    bo.until(lambda m: m["type"] == "game_started")
    play_to_the_end([ada, bo])
    page = open_page()
    listed = page.locator(f'#public-rooms [data-code="{code}"]')
    page.locator("#public-rooms").wait_for()
    assert listed.count() == 0  # both seats taken: the table is its players' own
    bo.request("leave")
    listed.wait_for()
    assert "1/2 · between games" in listed.inner_text() and "host: Ada" in listed.inner_text()
    shots(page, "lobby-between-games")
    page.fill("#name", "Cy")
    listed.get_by_role("button", name="Join").click()
    assert wait_room(page) == code
    page.locator("#players .member", has_text="Cy").wait_for()
    assert page.locator("#players .member").count() == 2
    ada.close()


def test_the_join_box_takes_a_pasted_invite_link_or_a_code_in_halves(open_page, server):
    """A link pasted whole into the code box, or a code read out in halves ("97k7-cyw4"), was "not a
    room code": each joins its room."""
    ada = Wire(server, "Ada")
    code = ada.request("create_room", game="uno", capacity=3)["code"]
    assert len(code) == 8
    for name, typed in (("Bo", f"{server}/r/{code}"), ("Cy", f"{code[:4].lower()}-{code[4:].lower()}")):
        page = open_page()
        join_room(page, name, typed)
        assert wait_room(page) == code, typed
        page.locator("#players .member", has_text=name).wait_for()
    ada.close()


def test_the_logo_in_a_room_asks_to_leave_it(open_page):
    """The logo, a link home, reloaded the page in a room, and the page came back into the room: it
    seemed to do nothing. It asks to leave the room, as Exit does; kept, the room stays."""
    page = open_page()
    code = create_room(page, "Ada", "uno")
    page.locator(".brand").click()
    dialog = page.locator("#dialog[open]", has_text="Leave this room?")
    dialog.get_by_role("button", name="Cancel").click()
    assert wait_room(page) == code and page.url.endswith(f"/r/{code}")
    page.locator(".brand").click()
    dialog.get_by_role("button", name="Leave").click()
    page.locator("#screen-start").wait_for()
    assert page.url.endswith("/")


def test_quick_play_panel_says_one_thing_at_a_time(open_page):
    first, second = open_page(), open_page(viewport=PHONE)
    first.fill("#name", "Quick1")
    first.click('[data-quick="dots"]')
    code = wait_room(first)
    panel = first.locator("#stage .waiting")
    panel.locator('[data-testid="quick-note"]').wait_for()
    alone = panel.inner_text()
    assert "Starting in" not in alone
    assert first.locator('[data-testid="room-state"]').inner_text() == "Waiting for players"
    # The first one in is the room's host, so may seat bots now.
    assert panel.locator(".needs-players").get_by_role("button", name="Add easy bot").count() == 1
    shots(first, "quick-play-alone")
    second.fill("#name", "Quick2")
    second.click('[data-quick="dots"]')
    assert wait_room(second) == code
    for page in (first, second):
        counting = page.locator("#stage .waiting")
        counting.locator(".countdown .timer-text", has_text=re.compile(r"^\d+$")).wait_for()
        text = counting.inner_text()
        assert "Starting in" in text
        # The room's heading says so too: it read "Waiting for players" beside "Starting in 2 s".
        assert page.locator('[data-testid="room-state"]').inner_text() == "Starting soon"
        for stale in ("I'm ready", "Ready — click to unready", "The game starts once", "Start game"):
            assert stale not in text and stale not in alone, (stale, text)
        assert "ready" not in page.locator("#players").inner_text()  # no ready badges either
        # Dots seats two: nobody else may still join (it said more might, for 10 s).
        note = counting.locator('[data-testid="quick-note"]').inner_text()
        assert note == "Quick play: every seat is taken.", note
    shots(second, "quick-play-countdown")
    # Ending the game: the host is told quick play's clock starts the next one (it read as a pause).
    first.locator(".dots-board").wait_for(timeout=15_000)
    first.get_by_role("button", name="End game").first.click()
    said = first.locator("#dialog-body").inner_text()
    assert "Quick play then starts a new game after its countdown." in said, said
    first.locator("dialog[open]").get_by_role("button", name="Cancel").click()


def test_public_rooms_on_a_phone_read_alike_with_their_buttons_aside(open_page, server):
    """At 390 px each listed room reads as one block — what it is on the left, wrapping as needed,
    Join and Watch on the right, in the same place on every row — however long its host's name."""
    hosts = [Wire(server, name) for name in ("Ada", "Hostwithalongnam", "Cy")]
    codes = [
        host.request("create_room", game=game, public=True)["code"]
        for host, game in zip(hosts, ("connect_four", "uno", "dots"), strict=True)
    ]
    page = open_page("/", PHONE)
    rows = [page.locator(f'#public-rooms [data-code="{code}"]') for code in codes]
    for row in rows:
        row.locator("button", has_text="Watch").wait_for()
    watch_right = set()
    for row in rows:
        join = row.get_by_role("button", name="Join").bounding_box()
        watch = row.get_by_role("button", name="Watch").bounding_box()
        words = row.locator(".room-game, code, .room-host").evaluate_all(
            "es => es.map(e => e.getBoundingClientRect().right)"
        )
        assert len(words) == 3 and max(words) <= join["x"], "the room's words stay left of its buttons"
        assert abs(join["y"] - watch["y"]) < 1, "Join and Watch side by side"
        watch_right.add(round(watch["x"] + watch["width"]))
    assert len(watch_right) == 1, f"the buttons move from row to row: {watch_right}"
    assert no_horizontal_scroll(page)
    shots(page, "lobby-public-rooms")
    # Watch, pressed low on the page, opens the room at its top: its code in sight.
    page.fill("#name", "Di")
    page.evaluate("scrollTo(0, document.body.scrollHeight)")
    rows[-1].get_by_role("button", name="Watch").click()
    wait_room(page)
    assert page.evaluate("scrollY") == 0 and on_screen(page, "#room-code")
    for host in hosts:
        host.close()


def test_watch_pressed_before_the_connection_is_up_still_gets_in(open_page, server):
    """On a slow network the page is drawn before its websocket opens: Watch pressed then waits for
    the connection and lets the visitor in, instead of failing with "not connected"."""
    host = Wire(server, "Ada")
    code = host.request("create_room", game="uno")["code"]
    page = open_page(f"/r/{code}", init_script=LATE_SOCKET)
    assert page.locator("#conn").get_attribute("data-status") == "connecting"
    page.fill("#name", "Watcher")
    page.click("#spectate-btn")
    assert wait_room(page) == code
    page.locator("#spectators .member-name", has_text="Watcher").wait_for()
    assert "Watcher" not in page.locator("#players").inner_text()  # the invite link did not seat them
    assert page.locator(".toast.bad").count() == 0
    host.close()


def test_a_name_typed_before_the_connection_is_up_leaves_the_choice_to_the_visitor(open_page, server):
    """The invite link joins a returning visitor by itself; one who is typing a name while the socket
    is still opening means to press Join or Watch, and must not find themselves seated when it opens."""
    host = Wire(server, "Ada")
    code = host.request("create_room", game="uno")["code"]
    page = open_page(f"/r/{code}", init_script=LATE_SOCKET)
    page.fill("#name", "Watcher")
    page.fill("#join-password", "")  # leaving the name field stores the name, as a person's next click does
    page.locator('#conn[data-status="online"]').wait_for()
    page.wait_for_timeout(300)  # the connection's own start-up: resume, identify, the link
    assert page.locator("#screen-start").is_visible(), "the link seated the visitor before they chose"
    page.click("#spectate-btn")
    assert wait_room(page) == code
    page.locator("#spectators .member-name", has_text="Watcher").wait_for()
    assert "Watcher" not in page.locator("#players").inner_text()
    host.close()


def _watched_to_the_end(open_page, server) -> tuple[Wire, Wire, object]:
    """Ada and Bo play a 3×3 Dots game (a seat left free) to its end; a watcher's page shows the results."""
    ada, bo = Wire(server, "Ada"), Wire(server, "Bo")
    code = ada.request("create_room", game="dots", settings={"width": 3, "height": 3}, capacity=3)["code"]
    bo.request("join", code=code)
    watcher = open_page(f"/r/{code}")
    watcher.fill("#name", "Watcher")
    watcher.click("#spectate-btn")
    wait_room(watcher)
    ada.request("start")
    play_to_the_end([ada, bo])
    watcher.locator(".game-over").wait_for()
    return ada, bo, watcher


def test_a_spectator_takes_a_free_seat_from_the_results(open_page, server):
    """A game ends: its spectator can sit down for the next one from the results, without waiting for
    a player to ask for a rematch first."""
    ada, bo, watcher = _watched_to_the_end(open_page, server)
    sit = watcher.get_by_role("button", name="Take a seat for the next game")
    sit.click()
    # A player now; it was not their game, so it is not a "rematch" to them. Told so, not only by the
    # button's new words.
    watcher.get_by_role("button", name="Play the next game").wait_for()
    watcher.locator("#toasts .toast", has_text="You have a seat for the next game").wait_for()
    assert watcher.locator("#players .member", has_text="Watcher").count() == 1
    shots(watcher, "results-spectator-seated")
    ada.close()
    bo.close()


def test_a_spectator_sits_down_after_a_rematch_is_asked_and_an_offer_goes_with_its_player(open_page, server):
    """A rematch asked for, its countdown near: the spectator could only go "Back to the room" from the
    results and watched the rematch start without them. And an offer from a player who then left stayed
    up ("Bo asks for a rematch", with an Accept button)."""
    ada, bo, watcher = _watched_to_the_end(open_page, server)
    bo.request("rematch")
    watcher.locator('[data-testid="rematch-offer"]', has_text="Bo asks for a rematch").wait_for()
    # Over the results the heading says what they are ("Waiting for players" had stood there).
    assert watcher.locator('[data-testid="room-state"]').inner_text() == "Game over"
    watcher.get_by_role("button", name="Take a seat for the next game").click()
    watcher.get_by_role("button", name="Accept rematch").wait_for()  # a player now, offered the rematch
    ada.request("ready", ready=True)  # Ada takes it: said under the offer, which had stayed Bo's alone
    watcher.locator('[data-testid="rematch-offer"]', has_text="Bo asks for a rematch. Ada is in.").wait_for()
    shots(watcher, "results-seated-after-rematch-asked")
    bo.request("leave")
    watcher.locator("#players .member", has_text="Bo").wait_for(state="detached")
    assert watcher.locator('[data-testid="rematch-offer"]').count() == 0
    assert watcher.get_by_role("button", name="Play again").count() == 1
    assert watcher.locator('[data-testid="room-state"]').inner_text() == "Game over"
    watcher.get_by_role("button", name="Back to the room").click()
    assert watcher.locator('[data-testid="room-state"]').inner_text() == "Waiting for players"
    ada.close()
    bo.close()


def test_a_guest_sees_the_countdown_and_no_wait_for_the_host(open_page):
    """Everyone ready: "Starting in 4 s" stood beside a greyed "Waiting for the host to start"; and
    before, what the game waits for is said in words, not on a button that cannot be pressed."""
    ada, bo = open_page(), open_page()
    code = create_room(ada, "Ada", "dots")
    join_room(bo, "Bo", code)
    waits = "The game starts once everyone is ready (not yet: Ada and you), or when Ada starts it."
    assert bo.locator('[data-testid="starts-when"]').inner_text() == waits
    assert "Listed in the lobby" in bo.locator(".panel.waiting").inner_text()  # it said "Public room"
    ready_up(bo)
    ready_up(ada)
    bo.locator(".countdown .timer-text", has_text=re.compile(r"^\d+$")).wait_for()
    assert bo.locator('[data-testid="starts-when"]').count() == 0
    shot(bo, "waiting-countdown-guest")


def test_dead_and_mangled_links_say_so_at_once(open_page, server):
    """A closed room's link looked open (a "Join room" panel) until a name was typed and Join pressed;
    a mangled one dropped to the start page without a word; an unknown page was a bare "Not Found"."""
    host = Wire(server, "Host")
    code = host.request("create_room", game="dots")["code"]
    host.request("terminate")
    host.close()
    page = open_page(f"/r/{code}")
    gone = page.locator("#invite-gone")
    gone.wait_for()
    assert gone.inner_text() == f"No open room has the code “{code}”: a room that closed is gone."
    assert page.locator("#join-form h2").inner_text() == "Join a game"
    shots(page, "invite-room-gone")

    mangled = open_page("/r/not-a-code!!")
    mangled.locator("#toasts .toast", has_text="“not-a-code!!” is not a room code").wait_for()
    assert mangled.url == f"{server}/"

    lost = open_page("/nonsense")
    lost.get_by_role("heading", name="There is no page here").wait_for()
    shots(lost, "not-found")
    lost.get_by_role("link", name="Go to the start page").click()
    lost.locator("#screen-start").wait_for()


def test_a_host_alone_on_a_phone_sees_how_to_play_with_bots_without_scrolling(open_page):
    """The words "Connect Four needs at least 2 players", and the Add bot buttons under the invitation,
    below a phone's fold: a visitor alone did not find how to play now."""
    page = open_page("/", PHONE)
    create_room(page, "Ada", "connect_four")
    needs = page.locator(".needs-players")
    assert "or play with bots" in needs.inner_text()
    add = needs.get_by_role("button", name="Add easy bot")
    assert on_screen(page, ".needs-players button"), "Add easy bot is in sight as the room opens"
    shots(page, "waiting-alone-bots")
    add.click()
    page.locator("#players .member", has=page.locator(".badge.bot")).wait_for()
    assert page.locator(".needs-players").count() == 0  # enough players: Start is the next step
    assert page.get_by_role("button", name="Add easy bot").count() == 0  # two seats, both taken


def test_a_name_at_its_limit_says_so(open_page):
    """The name field stopped taking letters at 16 without a word: "Alice Queen of Hearts" became
    "Alice Queen of H" unseen."""
    page = open_page()
    limit = page.locator("#name-limit")
    page.locator("#name").press_sequentially("Alice Queen of Hearts")
    assert page.locator("#name").input_value() == "Alice Queen of H"
    assert limit.is_visible() and limit.inner_text() == "A name is 16 characters at most."
    page.locator("#name").press("Backspace")
    assert limit.is_hidden()
    # An emoji built of several (👩‍🚀 is five UTF-16 units) counts as one: sixteen fit, as the server
    # counts them, and the field cuts what comes after.
    astronaut = "👩\u200d🚀"
    page.fill("#name", astronaut * 17)
    assert page.locator("#name").input_value() == astronaut * 16
    assert limit.is_visible()
    page.fill("#name", f"🦄Zoë {astronaut}")
    assert limit.is_hidden()
    create_room(page, f"🦄Zoë {astronaut}", "dots")
    page.locator("#players .member", has_text=f"🦄Zoë {astronaut}").wait_for()


def test_joining_while_a_game_is_on_says_you_are_watching(open_page, server):
    """Join by code while a game runs: the visitor watches, and is told so (the toast that said it was
    cleared as they entered the room)."""
    (ada, bo), code = at_a_table(server, "connect_four", ("Ada", "Bo"), {})
    cy = open_page()
    record_toasts(cy)
    join_room(cy, "Cy", code)
    cy.locator("#spectators .member", has_text="Cy").wait_for()
    assert any("you are watching, and can take a seat when it ends" in t for t in toasts_once_quiet(cy))
    ada.close()
    bo.close()


def test_someone_joining_after_a_game_ended_lands_in_the_waiting_room(open_page, server):
    """A friend who opens the link once a game is over takes the seat a player left, for the next game:
    the waiting room, not the results of a game they did not play with a Rematch button (before)."""
    (ada, bo), code = at_a_table(server, "connect_four", ("Ada", "Bo"), {})
    first, second = (ada, bo) if ada.view["turn"] == 0 else (bo, ada)
    for move in range(7):  # four in column 0 against three in column 1
        mover = first if move % 2 == 0 else second
        mover.request("action", action={"type": "drop", "column": move % 2})
    assert first.view["over"], "four in a row"
    bo.request("leave")  # a seat for Cy
    cy = open_page(f"/r/{code}")
    cy.fill("#name", "Cy")
    cy.press("#name", "Enter")
    wait_room(cy)
    cy.get_by_role("button", name="I'm ready").wait_for()
    assert cy.locator(".game-over").count() == 0
    assert cy.get_by_role("button", name="Rematch").count() == 0
    ada.close()
    bo.close()


def test_the_theme_button_says_what_it_switches_to_and_other_tabs_follow(open_page):
    page = open_page()
    other = page.context.new_page()
    other.goto(page.url)
    theme = page.locator("#theme")
    said = []
    for _ in range(3):
        said.append(theme.get_attribute("aria-label"))
        theme.click()
    assert said == [
        "Theme: auto (follows the system). Switch to light",
        "Theme: light. Switch to dark",
        "Theme: dark. Switch to auto (follows the system)",
    ]
    theme.click()  # light again: the other tab of this browser follows without a reload
    other.wait_for_function("document.documentElement.dataset.theme === 'light'")
    assert other.locator("#theme").inner_text() == "☀ light"


def test_create_room_comes_after_the_options_it_creates_with(open_page):
    """The button stood above the rules and room options: opened on a phone, they were read to their
    end and the button was a scroll back up, past all of them."""
    page = open_page("/", PHONE)
    page.check('#create-form input[name="game"][value="uno"]')
    page.locator("#create-form .create-options summary").click()
    create = page.locator('#create-form button[type="submit"]')
    options = page.locator("#create-form .create-options")
    assert create.bounding_box()["y"] >= options.bounding_box()["y"] + options.bounding_box()["height"]
    create.scroll_into_view_if_needed()
    assert on_screen(page, "#create-form [name=password]")  # the last option, beside the button
    shots(page, "create-options-open")
    page.locator("#create-form .create-options summary").click()
    shots(page, "create-options-closed")


def test_a_host_who_leaves_is_followed_by_who_hosts_now_in_one_toast(open_page):
    """The new host was told "Ada left", and only a toast later, often unseen, that they host now."""
    ada, bo = open_page(), open_page()
    code = create_room(ada, "Ada", "uno", capacity=3)
    join_room(bo, "Bo", code)
    record_toasts(bo)
    ada.click("#leave")
    ada.click('#dialog button[value="yes"]')
    bo.locator("#toasts .toast", has_text="Ada left — you are the host now").wait_for()
    bo.get_by_role("button", name="Start game").wait_for()
    assert not any(text == "Ada left" for text in toasts_once_quiet(bo))


def test_a_spectator_back_in_the_room_is_asked_to_take_a_seat_not_to_ready_up(open_page, server):
    """Back from the results after a rematch was asked for, a spectator was told "ready up to accept"
    (they have no Ready button), and a room between games said "Game over" over its waiting room."""
    ada, bo, watcher = _watched_to_the_end(open_page, server)
    newcomer = open_page(f"/r/{watcher.url.rsplit('/', 1)[1]}")  # arrives after the game: no results
    newcomer.fill("#name", "Newcomer")
    newcomer.click("#spectate-btn")
    wait_room(newcomer)
    assert newcomer.locator(".game-over").count() == 0
    assert "Waiting for players" in newcomer.locator("#room-status").inner_text()
    bo.request("rematch")
    watcher.get_by_role("button", name="Back to the room").click()
    said = watcher.locator("#stage .alert", has_text="asked for a rematch")
    said.wait_for()
    assert said.inner_text() == "Bo asked for a rematch: take a seat to play."
    assert "Waiting for players" in watcher.locator("#room-status").inner_text()
    # An unlisted room's game is listed only to its players: its replay opens for nobody else.
    for page in (watcher, newcomer):
        assert page.locator('[data-testid="recent-games"] li').count() == 0
    ada.close()
    bo.close()


def test_the_create_form_remembers_the_last_rooms_game_and_listing(open_page):
    """A group that keeps its rooms unlisted had the next one listed in the lobby: the box was checked
    again on every visit."""
    page = open_page()
    page.check('#create-form input[name="game"][value="cheat"]')
    page.locator("#create-form .create-options summary").click()
    page.uncheck('#create-form [name="public"]')
    create_room(page, "Ada", "cheat", capacity=3)
    page.click("#leave")
    page.click('#dialog button[value="yes"]')
    page.locator("#screen-start").wait_for()
    page.reload()
    page.locator("#create-form").wait_for()
    page.wait_for_function("document.querySelector('#create-form input[value=\"cheat\"]').checked")
    assert not page.locator('#create-form [name="public"]').is_checked()
    assert page.locator('#create-form [name="bots_take_over"]').is_checked()


def test_a_member_renames_without_leaving(open_page, server):
    """A typo in a name could only be fixed by leaving, renaming on the start page and joining again
    (the others saw a newcomer)."""
    ada = open_page()
    code = create_room(ada, "Ada", "uno", capacity=3)
    bo = open_page()
    join_room(bo, "Boo", code)
    member_row(ada, "Boo").wait_for()
    assert member_row(ada, "Boo").get_by_role("button", name="Rename yourself").count() == 0  # only your own
    member_row(bo, "Boo").get_by_role("button", name="Rename yourself").click()
    field = bo.locator('#dialog input[name="new-name"]')
    assert field.input_value() == "Boo"
    shots(bo, "rename-dialog")
    field.fill("Ada")  # someone here is called that
    field.press("Enter")
    # Refused, the dialog says why and keeps what was typed (it had closed, and the name was lost).
    bo.locator("#dialog #rename-error", has_text="already called Ada").wait_for()
    assert bo.locator("#dialog").evaluate("d => d.open")
    assert bo.locator('#dialog input[name="new-name"]').input_value() == "Ada"
    assert bo.locator('#dialog input[name="new-name"]').get_attribute("aria-invalid") == "true"
    shots(bo, "rename-refused")
    field = bo.locator('#dialog input[name="new-name"]')
    # Past the limit the field says so (it had stopped without a word), and the refusal of "Ada" goes
    # once the name changes.
    assert field.evaluate("f => f.selectionStart === 0 && f.selectionEnd === 3")  # "Ada", to type over
    field.press("End")
    field.press_sequentially("-Bartholomew-the-Great")
    assert field.input_value() == "Ada-Bartholomew-"
    bo.locator("#dialog #rename-limit", has_text="16 characters at most").wait_for()
    assert bo.locator("#dialog #rename-error").count() == 0
    # Blank is refused in the dialog, which stays open (it had closed and done nothing).
    field.fill("   ")
    bo.locator("#dialog button", has_text="Rename").click()
    assert bo.locator("#dialog").evaluate("d => d.open")
    assert field.evaluate("f => f.validationMessage") == "A name needs a letter, a digit or an emoji."
    field.fill("Bo")
    bo.locator('#dialog input[name="new-name"]').press("Enter")
    member_row(ada, "Bo").wait_for()
    ada.locator("#toasts .toast", has_text="Boo is now Bo").wait_for()
    assert member_row(ada, "Boo").count() == 0
    # The name stays: on the start page, and for the room after a reload.
    assert bo.evaluate("localStorage.getItem('parlour.name')") == "Bo"
    bo.reload()
    member_row(bo, "Bo").wait_for()
    assert bo.locator("#name").input_value() == "Bo"


def test_the_start_page_says_how_to_play_the_game_picked(open_page):
    """A newcomer found a game's rules only inside a room."""
    page = open_page()
    how = page.locator('[data-testid="start-how-to-play"]')
    how.locator("summary", has_text="How to play UNO").wait_for()
    page.check('#create-form input[name="game"][value="dots"]')
    how.locator("summary", has_text="How to play Dots & Boxes").click()
    assert "Draw the fourth side of a box" in how.inner_text()
    shots(page, "start-how-to-play")


def test_a_rematch_offer_says_what_the_host_changed_since_the_game(open_page, server):
    """The host changed the board between games: those on the results saw only "Ada asks for a rematch"
    and Accept, and played on a board they had not agreed to."""
    ada, bo, _ = two_at_a_table(server, "connect_four")
    play_to_the_end([ada, bo])
    page = open_page("/")
    take_over(page, bo.token, "Bo")  # Bo's browser, on the results
    page.locator('[data-testid="results"]').wait_for()
    ada.request("rematch")
    ada.request("update_settings", settings={"width": 8})
    offer = page.locator('[data-testid="rematch-offer"]')
    offer.filter(has_text="New settings:").wait_for()
    assert "8" in offer.inner_text(), offer.inner_text()
    ada.close()
    bo.close()


def test_an_accepted_rematch_offer_is_no_longer_asked(open_page, server):
    """Ready after a rematch was asked for, Bo still read "Ada asked for a rematch: ready up to accept"
    through the countdown."""
    ada, bo, _ = two_at_a_table(server, "connect_four")
    play_to_the_end([ada, bo])
    page = open_page("/")
    take_over(page, bo.token, "Bo")
    page.locator('[data-testid="results"]').wait_for()
    ada.request("rematch")
    page.get_by_role("button", name="Back to the room").click()
    asked = page.locator("#stage .alert", has_text="asked for a rematch")
    asked.wait_for()
    page.get_by_role("button", name="I'm ready").click()
    page.locator(".countdown").wait_for()  # both ready: the start's countdown, still in the waiting room
    assert asked.count() == 0
    ada.close()
    bo.close()


def test_a_spectator_in_a_waiting_room_is_offered_a_seat_first(open_page, server):
    """A spectator's "Take a seat" stood in the last row, under the invitation, the scoreboard and How
    to play: below a phone's fold. It now stands first, where a player's "I'm ready" does."""
    ada = Wire(server, "Ada")
    code = ada.request("create_room", game="uno", capacity=4)["code"]
    page = open_page(f"/r/{code}", PHONE)
    page.fill("#name", "Di")
    page.click("#spectate-btn")
    sit = page.get_by_role("button", name="Take a seat")
    sit.wait_for()
    page.evaluate("window.scrollTo(0, 0)")
    assert on_screen(page, ".waiting button.primary") and sit.count() == 1
    shots(page, "spectator-waiting-room")
    sit.click()
    page.get_by_role("button", name="I'm ready").wait_for()
    assert page.get_by_role("button", name="Take a seat").count() == 0
    ada.close()


def test_a_second_ada_is_numbered_and_told_so(open_page, server):
    """Ada, back on another device while a bot plays her old seat, joined as a second "Ada"."""
    ada = Wire(server, "Ada")
    code = ada.request("create_room", game="uno", capacity=4)["code"]
    page = open_page()
    join_room(page, "Ada", code)
    page.locator(
        "#toasts .toast", has_text="Someone here is already called Ada: you're Ada 2 in this room"
    ).wait_for()
    page.locator("#players .member", has_text="Ada 2").wait_for()
    page.reload()  # told once, on joining
    page.locator("#players .member", has_text="Ada 2").wait_for()
    assert page.locator("#toasts .toast", has_text="already called").count() == 0
    ada.close()


def test_the_host_changes_the_rules_from_the_results_without_offering_a_rematch(open_page, server):
    """The results offered the host Rematch and nothing else: to change the board for the next game
    they had to offer it first, readying themselves and telling everyone. Now Settings… is there, and
    everyone finds the new rules in the waiting room."""
    ada, bo, _ = two_at_a_table(server, "connect_four")
    play_to_the_end([ada, bo])
    host = open_page("/")
    take_over(host, ada.token, "Ada")
    host.locator('[data-testid="results"]').wait_for()
    guest = open_page("/")
    take_over(guest, bo.token, "Bo")
    guest.locator('[data-testid="results"]').wait_for()
    assert guest.get_by_role("button", name="Settings…").count() == 0  # the host's alone
    shots(host, "results-host")
    host.get_by_role("button", name="Settings…").click()
    host.fill('#dialog [name="s.width"]', "8")
    host.click('#dialog button[value="save"]')
    guest.locator("#toasts .toast", has_text="Room settings changed").wait_for()
    assert host.locator('[data-testid="results"]').count() == 1  # still on the results, nothing offered
    assert "asks for a rematch" not in guest.locator(".game-over").inner_text()
    shots(host, "results-host-settings")
    guest.get_by_role("button", name="Back to the room").click()
    guest.locator(".settings-summary", has_text="Columns: 8").wait_for()
    ada.close()
    bo.close()


@pytest.mark.parametrize(
    ("asker", "waits"),
    [
        ("Bo", "it starts once everyone is ready (not yet: Ada), or when Ada starts it."),
        ("Ada", "it starts once everyone is ready (not yet: Bo), or when you start it."),
    ],
)
def test_whoever_asks_for_a_rematch_is_told_what_it_waits_for(open_page, server, asker, waits):
    """Bo, not the host, pressed Rematch: the waiting room said "Waiting for the host to start" on a
    greyed button, then the game began by itself once Ada accepted. The host who pressed it read only
    "Start game (Bo isn't ready)" while Bo was still reading the results."""
    ada, bo, _ = two_at_a_table(server, "connect_four")
    play_to_the_end([ada, bo])
    me, other = (bo, ada) if asker == "Bo" else (ada, bo)
    page = open_page("/")
    take_over(page, me.token, asker)
    page.get_by_role("button", name="Rematch").click()
    page.locator('[data-testid="starts-when"]', has_text=f"You asked for a rematch: {waits}").wait_for()
    if asker == "Ada":
        assert page.get_by_role("button", name="Start game (Bo isn't ready)").is_visible()
    shots(page, f"rematch-asked-{'guest' if asker == 'Bo' else 'host'}")
    other.request("ready", ready=True)  # the other accepts: everyone is ready, and the countdown says when
    page.locator(".countdown").wait_for()
    assert page.locator('[data-testid="starts-when"]').count() == 0
    ada.close()
    bo.close()


def test_join_on_a_listed_password_room_asks_for_the_password(open_page, server):
    """Join on a room the list marks "password" was refused first ("type it in the Password box and
    join again"): it asks for the password, Enter in the box joins, and a wrong one is asked again."""
    ada = Wire(server, "Ada")
    code = ada.request("create_room", game="uno", public=True, password="sesame", capacity=3)["code"]
    bo = open_page(viewport=PHONE)
    bo.fill("#name", "Bo")
    row = bo.locator(f'#public-rooms [data-code="{code}"]')
    row.get_by_role("button", name="Join").click()
    asked = bo.locator("dialog[open]")
    assert asked.locator("#dialog-title").inner_text() == "Join with a password"
    assert "has a password" in asked.inner_text() and "hosted by Ada" in asked.inner_text()
    shots(bo, "public-room-password-asked")
    asked.get_by_role("button", name="Cancel").click()  # nothing sent, nothing refused
    assert bo.locator("#screen-start").is_visible() and bo.locator("#toasts .toast.bad").count() == 0
    row.get_by_role("button", name="Join").click()
    bo.locator("dialog[open] input[type=password]").fill("nope")
    bo.locator("dialog[open] input[type=password]").press("Enter")
    # A wrong one is said in the dialog, which asks again (it closed, for the start page's Password box).
    bo.locator("dialog[open] .alert", has_text="That password is wrong").wait_for()
    bo.locator("dialog[open] input[type=password]").fill("sesame")
    bo.locator("dialog[open] input[type=password]").press("Enter")
    assert wait_room(bo) == code
    ada.close()
