"""A game every person left: the host's bots do not play it out for the spectator watching, and what the
last one to leave, and the spectator, read about it."""

from __future__ import annotations

import pytest
from browser_helpers import PHONE, shots, take_over
from wire import Wire

pytestmark = pytest.mark.browser


def test_the_last_person_to_leave_is_told_it_ends_the_game_and_the_spectator_sees_why(open_page, server):
    hana, ivy, jon = (Wire(server, name) for name in ("Hana", "Ivy", "Jon"))
    settings = {"target_score": 0}
    code = hana.request("create_room", game="uno", settings=settings, capacity=4, spectate=True)["code"]
    for player in (ivy, jon):
        player.request("join", code=code)
    for _ in range(2):
        hana.request("add_bot", level="easy")
    hana.request("start")
    watcher = open_page("/")
    take_over(watcher, hana.token, "Hana")  # the host, watching
    watcher.locator(".table-host").wait_for()
    page = open_page("/", viewport=PHONE)
    take_over(page, jon.token, "Jon")
    page.locator(".table-host").wait_for()

    ivy.request("leave")
    watcher.locator(".seat", has_text="Ivy").locator(".badge.left", has_text="left").wait_for()
    page.locator(".seat", has_text="Ivy").locator(".badge.left").wait_for()
    page.get_by_role("button", name="Exit").click()
    dialog = page.locator("#dialog-body")
    assert dialog.inner_text() == "You are the last person playing: leaving ends the game."
    page.click('#dialog button[value="yes"]')

    results = watcher.locator('[data-testid="results"]')
    results.wait_for()
    assert watcher.locator("#over-title").inner_text() == "Nobody won"
    assert watcher.get_by_test_id("end-reason").inner_text() == "Every player left the game."
    rows = results.locator("tbody tr").all_inner_texts()
    # Their cards went into the draw pile: not "0 cards left", as for one who went out.
    for name in ("Ivy", "Jon"):
        (row,) = [r for r in rows if r.startswith(f"{name} (left)")]
        assert row.split("\t")[-1] == "–", rows
    assert watcher.locator("#stage .badge.turn").count() == 0  # nobody is on turn in a game that is over
    assert watcher.get_by_test_id("log-end").inner_text() == "— Every player left the game. —"
    shots(watcher, "uno-deserted")

    watcher.reload()  # as it was, after a reload
    watcher.get_by_test_id("end-reason").wait_for()
    assert watcher.locator("#stage .badge.turn").count() == 0
    assert watcher.get_by_test_id("log-end").inner_text() == "— Every player left the game. —"
    watcher.get_by_role("button", name="Take a seat for the next game").click()
    # Seated now, the one who only watched it is not offered a "rematch" of it.
    watcher.get_by_role("button", name="Play the next game").wait_for()
    for wire in (hana, ivy, jon):
        wire.close()
