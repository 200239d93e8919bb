"""A player the host kicks mid-game: their seat and the results say "kicked", not "left"; a bot is removed."""

from __future__ import annotations

import re

import pytest
from browser_helpers import create_room, shots, take_over
from wire import Wire

pytestmark = pytest.mark.browser


def test_a_kicked_seat_says_kicked_at_the_table_and_in_the_results(open_page, server):
    ada, bo, cy, di = (Wire(server, name) for name in ("Ada", "Bo", "Cy", "Di"))
    code = ada.request("create_room", game="uno", settings={"target_score": 0}, capacity=4)["code"]
    for p in (bo, cy, di):
        p.request("join", code=code)
    ada.request("start")
    page = open_page("/")
    take_over(page, ada.token, "Ada")  # the host's browser
    page.locator(".table-host").wait_for()
    page.get_by_role("button", name="Kick Bo").click()
    # Mid-game, the dialog says what the kick does to the game: the game's rule for a leaver.
    said = page.locator("#dialog-body").inner_text()
    assert "They leave the game being played. A leaver's cards are shuffled into the draw pile" in said, said
    page.click('#dialog button[value="yes"]')
    page.locator(".seat", has_text="Bo").locator(".badge.left", has_text="kicked").wait_for()
    cy.request("leave")
    page.locator(".seat", has_text="Cy").locator(".badge.left", has_text="left").wait_for()
    # The game's rules log "Bo left"; the log says what the seat chip says.
    page.locator("#game-log .log-entry.player_left").nth(1).wait_for()
    lines = page.locator("#game-log .log-entry.player_left .log-text").all_inner_texts()
    assert [line.split(";")[0] for line in lines] == ["Bo was kicked", "Cy left"], lines
    shots(page, "kicked-seat")
    di.request("leave")  # the host is the last one at the table: the game is over
    results = page.locator('[data-testid="results"]')
    results.wait_for()
    rows = results.locator("tbody tr").all_inner_texts()
    assert any("Bo (kicked)" in row for row in rows), rows
    assert any("Cy (left)" in row for row in rows), rows
    shots(page, "kicked-results")
    for p in (ada, bo, cy, di):
        p.close()


def test_a_bot_is_removed_not_kicked(open_page):
    """A bot was "kicked" with "They will not be able to rejoin this room", which means nothing for it."""
    page = open_page()
    create_room(page, "Ada", "uno", capacity=3)
    page.get_by_role("button", name="Add easy bot").click()
    remove = page.get_by_role("button", name=re.compile("^Remove Bot"))
    remove.click()
    asked = page.locator("dialog[open]")
    assert re.fullmatch(r"Remove Bot \d+\?", asked.locator("#dialog-title").inner_text())
    assert "seat is freed" in asked.inner_text()
    asked.get_by_role("button", name="Remove").click()
    page.locator("#players .member .badge.bot").wait_for(state="detached")
    page.locator("#toasts .toast", has_text=re.compile(r"^Bot \d+ was removed$")).wait_for()


def _bot_seated(host: Wire) -> str:
    """The member id of the bot the host's last ``add_bot`` seated (its ``member_joined`` may have come
    before the reply, or be still on its way)."""
    while True:
        joined = [m for m in host.messages if m["type"] == "member_joined" and m["member"].get("bot")]
        if joined:
            return joined[-1]["member"]["id"]
        host.until(lambda m: True)


def test_the_kicked_are_told_so_at_once_not_the_rooms_queued_news(open_page, server):
    """Kicked just after the host removed two bots, Wendy read "Bot 6 was kicked" on the start page, and
    her own notice only once the room's had gone by."""
    host = Wire(server, "Hana")
    code = host.request("create_room", game="uno", capacity=4)["code"]
    wendy = Wire(server, "Wendy")
    wendy.request("spectate", code=code)
    page = open_page(f"/r/{code}")  # by the room's link: its code is in the Join box on the start page
    take_over(page, wendy.token, "Wendy")  # her browser, watching
    page.locator("#screen-room").wait_for()
    joined = host.until(lambda m: m["type"] == "member_joined" and m["member"]["name"] == "Wendy")
    for _ in range(2):
        host.messages.clear()
        host.request("add_bot")
        host.request("kick", member=_bot_seated(host))
    page.locator("#toasts .toast").first.wait_for()  # the room's news queues up
    host.request("kick", member=joined["member"]["id"])
    page.locator("#screen-start").wait_for()
    toasts = page.locator("#toasts .toast")
    assert toasts.first.inner_text() == "The host removed you from the room"
    # Not left in the Join box, where it led only to "You were removed from this room".
    assert page.locator("#join-code").input_value() == ""
    page.wait_for_timeout(3500)  # as long as a toast stays up: nothing of the room's comes after it
    assert not page.locator("#toasts .toast", has_text="Bot").count()
    host.close()
    wendy.close()


def test_the_public_list_stops_offering_a_room_one_was_removed_from(open_page, server):
    """Kicked, a spectator still saw the room in the public list, whose Join and Watch only answered
    "You were removed from this room". It is left out of their list (after a reload, once refused)."""
    host = Wire(server, "Hana")
    code = host.request("create_room", game="uno", public=True, capacity=4)["code"]
    wendy = Wire(server, "Wendy")
    wendy.request("spectate", code=code)
    page = open_page("/")
    take_over(page, wendy.token, "Wendy")
    page.locator("#screen-room").wait_for()
    joined = host.until(lambda m: m["type"] == "member_joined" and m["member"]["name"] == "Wendy")
    visitor = open_page("/")
    visitor.locator(f'#public-rooms [data-code="{code}"]').wait_for()  # listed for anyone else
    ivo = Wire(server, "Ivo")
    other = ivo.request("create_room", game="uno", public=True, capacity=4)["code"]
    host.request("kick", member=joined["member"]["id"])
    page.locator("#screen-start").wait_for()
    page.locator(f'#public-rooms [data-code="{other}"]').wait_for()  # the list is in
    assert page.locator(f'#public-rooms [data-code="{code}"]').count() == 0
    # A reload forgets it; the first refusal takes it out again.
    page.reload()
    listed = page.locator(f'#public-rooms [data-code="{code}"]')
    listed.get_by_role("button", name="Watch").click()
    page.locator("#toasts .toast", has_text="You were removed from this room").wait_for()
    listed.wait_for(state="detached")
    assert visitor.locator(f'#public-rooms [data-code="{code}"]').count() == 1
    host.close()
    ivo.close()
