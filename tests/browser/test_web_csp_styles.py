"""Inline styles under the real Content-Security-Policy: the other browser tests bypass the policy
(Playwright's string predicates need eval), so this one plays with it enforced and listens for
violations the way a player's console would show them."""

from __future__ import annotations

import re

import pytest
from browser_helpers import DESKTOP, shot

pytestmark = pytest.mark.browser


def test_dots_board_styles_are_not_blocked_by_the_policy(browser, server):
    violations: list[str] = []
    pages = []
    for _ in range(2):
        context = browser.new_context(viewport=DESKTOP, reduced_motion="reduce")
        context.set_default_timeout(10_000)
        page = context.new_page()
        page.on("console", lambda m: "Content Security Policy" in m.text and violations.append(m.text))
        page.goto(server + "/")
        pages.append(page)
    ada, bo = pages
    ada.fill("#name", "Ada")
    ada.check('#create-form input[name="game"][value="dots"]')
    ada.click('#create-form button[type="submit"]')
    code = ada.locator("#room-code")
    code.filter(has_text=re.compile(r"\w")).wait_for()
    bo.fill("#name", "Bo")
    bo.fill("#join-code", code.inner_text().strip())
    bo.click('#join-form button[type="submit"]')
    for page in pages:
        page.get_by_role("button", name="I'm ready").click()
    ada.get_by_role("button", name="Start game").click()
    board = ada.locator('[data-testid="dots-board"]')
    board.wait_for()
    ada.locator('[data-testid="dots-board"].mine g.free').first.click()
    bo.locator('[data-testid="dots-board"] .drawn.last').wait_for(state="attached")
    shot(ada, "dots-csp")
    # The board's size comes from its custom properties; a blocked style attribute leaves them unset.
    assert board.evaluate("b => b.style.getPropertyValue('--aspect')") != ""
    assert (
        bo.locator('[data-testid="dots-board"] .drawn.last').evaluate(
            "l => l.style.getPropertyValue('--seat')"
        )
        != ""
    )
    assert violations == []


def test_connect_four_table_styles_apply_under_the_policy(browser, server):
    """The Connect Four table brings its own style sheet; a ``<style>`` element written by script is
    blocked by the policy, so the board would show unstyled (it did, until the sheet was constructed)."""
    violations: list[str] = []
    context = browser.new_context(viewport=DESKTOP, reduced_motion="reduce")
    context.set_default_timeout(10_000)
    ada = context.new_page()
    ada.on("console", lambda m: "Content Security Policy" in m.text and violations.append(m.text))
    ada.goto(server + "/")
    ada.fill("#name", "Ada")
    ada.check('#create-form input[name="game"][value="connect_four"]')
    ada.click('#create-form button[type="submit"]')
    ada.locator("#room-code").filter(has_text=re.compile(r"\w")).wait_for()
    ada.get_by_role("button", name="Add hard bot").click()
    ada.locator("#players .member", has=ada.locator(".badge.bot")).wait_for()
    ada.get_by_role("button", name="I'm ready").click()
    ada.get_by_role("button", name="Start game").click()
    board = ada.locator('[data-testid="c4-board"]')
    board.wait_for()
    shot(ada, "c4-csp")
    assert board.evaluate("b => getComputedStyle(b).display") == "grid"
    assert board.evaluate("b => getComputedStyle(b).backgroundColor") == "rgb(27, 79, 156)"  # #1b4f9c
    assert violations == []
