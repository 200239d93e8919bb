"""The profile and leaderboard pages: after a game against a bot, the player's page (reached from the
lobby's "Your stats" link) shows it, and the bot's level has a page of its own."""

from __future__ import annotations

import re

import pytest
from browser_helpers import create_room, drive, shots, start_game
from test_web_connect_four import drop_in_a_column

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
    won = "Ada wins" in ada.locator("#over-title").inner_text()

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
