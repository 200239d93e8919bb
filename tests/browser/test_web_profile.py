"""The profile and leaderboard pages: after a game against a bot, the player's page (reached from the
lobby's "Your stats" link) shows it, and the bot's level has a page of its own."""

from __future__ import annotations

import asyncio
import re
from concurrent.futures import ThreadPoolExecutor

import pytest
from browser_helpers import create_room, drive, shot, shots, start_game, take_over
from conftest import Server
from test_web_connect_four import drop_in_a_column
from wire import Wire, play_to_the_end, two_at_a_table

from parlour.store import GameRecord, ProfileRecord
from parlour.store.sqlite import SQLiteStore

pytestmark = pytest.mark.browser


def test_the_profile_page_shows_a_finished_game_against_a_bot(open_page, own_server):
    """On a server of its own: a bot level's totals count every game it played on that server."""
    server = own_server.base
    ada = open_page(base=server)
    create_room(ada, "Ada", "connect_four", capacity=2)
    ada.get_by_role("button", name="Add hard bot").click()
    ada.locator("#players .member", has=ada.locator(".badge.bot")).wait_for()
    start_game(ada, [ada])
    drive([ada], drop_in_a_column, limit=21)
    ada.locator(".game-over").wait_for()
    over = ada.locator("#over-title").inner_text()
    won = "Ada wins" in over

    # The browser keeps its profile; the lobby's "Your stats" link leads to its page.
    profile = ada.evaluate("JSON.parse(localStorage.getItem('parlour.profile'))")
    assert re.fullmatch(r"p_[0-9a-f]{16}", profile["id"]) and len(profile["secret"]) >= 20
    assert ada.locator("#my-stats").get_attribute("href") == f"/p/{profile['id']}"

    ada.goto(f"{server}/p/{profile['id']}")
    ada.locator(".stat-game").wait_for()
    assert re.match(r"Ada\s*you", ada.locator("h1").inner_text())
    panel = ada.locator(".stat-game", has_text="Connect Four")
    figures = dict(
        zip(panel.locator("dt").all_inner_texts(), panel.locator("dd").all_inner_texts(), strict=True)
    )
    assert figures["Played"] == "1" and figures["Won"] == ("1" if won else "0")
    assert figures["Win rate"] == ("100%" if won else "0%") and int(figures["Discs dropped"]) >= 4
    (game,) = ada.locator(".recent-game").all()
    assert "Connect Four" in game.inner_text() and "Ada" in game.inner_text()
    # How Ada did, beside who won: the row had said only "Bot 2 won".
    part = "won" if won else "lost" if "wins" in over else "tied"
    assert game.locator(".badge.part").inner_text() == part
    assert game.get_by_role("link", name="Replay").get_attribute("href").startswith("/g/")
    shots(ada, "profile")

    # The bot's level is a player of its own; the leaderboard waits for five games.
    game.get_by_role("link", name="Bot 2 (hard bot)").click()
    ada.locator("h1", has_text="Bot (hard)").wait_for()
    assert ada.locator(".stat-game dd").first.inner_text() == "1"
    ada.get_by_role("link", name="Connect Four leaderboard →").click()
    ada.locator("h1", has_text="Connect Four leaderboard").wait_for()
    assert "Nobody has finished 5 games" in ada.locator(".board").inner_text()
    assert ada.locator(".board-tabs a").count() == 4
    shots(ada, "leaderboard-empty")
    ada.goto(f"{server}/leaderboard.html")  # the start page's link names no game: the one played last
    ada.locator("h1", has_text="Connect Four leaderboard").wait_for()


def _seed_games(data) -> None:
    """Five finished games of Dots & Boxes and of Cheat between Ada and Bartholomew, stored as the
    server stores them: enough for both to be on each leaderboard."""

    async def fill() -> None:
        store = SQLiteStore(data)
        await store.open()
        for profile, name in (("p_ada", "Ada"), ("p_bartholomew", "Bartholomew")):
            await store.save_profile(ProfileRecord(profile, name, "not-a-secret", 0.0))
        for n in range(10):
            game = "dots" if n % 2 else "cheat"
            stats = [{"boxes": 3}, {"boxes": 1}] if game == "dots" else [{"calls": 2, "calls_right": 1}, {}]
            players = [
                {"seat": seat, "name": name, "profile": profile, "stats": stats[seat]}
                for seat, (profile, name) in enumerate((("p_ada", "Ada"), ("p_bartholomew", "Bartholomew")))
            ]
            result = {
                "winners": [n % 3 and 1],
                "scores": {"0": 3, "1": 1},
                "reason": "finished",
                "tie": False,
            }
            record = GameRecord(
                "SEEDS", n + 1, game, {}, n, players, result, 1000.0 + n, 1100.0 + n, [], False
            )
            await store.append("SEEDS", {"k": "action", "s": None, "p": {}, "t": 0.0}, record)
        await store.close()

    with ThreadPoolExecutor(1) as thread:  # the sync Playwright API holds this thread's event loop
        thread.submit(asyncio.run, fill()).result()


def test_a_leaderboard_on_a_small_phone_fits_or_says_it_scrolls(open_page, tmp_path):
    """At 360 px Dots' five columns were cut off at "Win rat" with nothing to say the table scrolls:
    they now fit; Cheat's eight cannot, and the edge with more beyond it fades until scrolled there."""
    _seed_games(tmp_path)
    server = Server(tmp_path).start()
    try:
        page = open_page("/leaderboard/dots", {"width": 360, "height": 740}, base=server.base)
        page.locator(".board-table tbody tr").nth(1).wait_for()
        scroll = page.locator(".board-scroll")
        assert scroll.evaluate("s => s.scrollWidth <= s.clientWidth"), "Dots' table fits"
        assert "more-right" not in scroll.get_attribute("class")
        shots(page, "leaderboard-dots")
        page.get_by_role("link", name="Cheat").click()
        page.locator("h1", has_text="Cheat leaderboard").wait_for()
        page.set_viewport_size({"width": 360, "height": 740})
        page.locator(".board-table tbody tr").nth(1).wait_for()
        scroll = page.locator(".board-scroll.more-right")
        scroll.wait_for()
        assert "more-left" not in scroll.get_attribute("class")
        shot(page, "leaderboard-cheat-scrolls")
        scroll.evaluate("s => s.scrollTo({ left: s.scrollWidth })")
        page.locator(".board-scroll.more-left:not(.more-right)").wait_for()
        assert page.evaluate("document.documentElement.scrollWidth <= innerWidth"), (
            "the page never scrolls sideways"
        )
    finally:
        server.stop()


def test_a_spectator_is_not_offered_stats_for_a_game_they_only_watched(open_page, server):
    """ "Your stats" on the results led a spectator to an empty page: it is for those who played."""
    ada, bo, code = two_at_a_table(server, "connect_four")
    cy = Wire(server, "Cy")
    cy.request("spectate", code=code)
    watcher = open_page("/")
    take_over(watcher, cy.token, "Cy")
    watcher.locator('[data-testid="c4-board"]').wait_for()
    play_to_the_end([ada, bo])
    watcher.locator('[data-testid="results"]').wait_for()
    assert watcher.locator('[data-testid="your-stats"]').count() == 0
    for wire in (ada, bo, cy):
        wire.close()


def test_a_stranger_reads_why_a_players_private_games_are_not_listed(open_page, server):
    """Ada's one game was in an unlisted room: a stranger read "Played 1", then "Recent games: None to
    show", with nothing to say why."""
    ada, bo = Wire(server, "Ada"), Wire(server, "Bo")
    code = ada.request("create_room", game="connect_four", public=False)["code"]
    bo.request("join", code=code)
    ada.request("start")
    bo.until(lambda m: m["type"] == "game_started")
    play_to_the_end([ada, bo])
    page = open_page(f"/p/{ada.profile['id']}")
    page.locator(".stat-game").wait_for()
    said = page.get_by_test_id("no-recent").inner_text()
    assert said == "None to show: games in unlisted or password rooms are shown to their players only."
    shot(page, "profile-private-games")
    ada.close()
    bo.close()
