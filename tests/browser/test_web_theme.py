"""Light and dark themes: the system's choice by default, a toggle that overrides it; no meaning
carried by an emoji (a machine without an emoji font shows boxes)."""

from __future__ import annotations

import pytest
from browser_helpers import DESKTOP, create_room, shots

pytestmark = pytest.mark.browser

LIGHTNESS = """() => {
    const hex = getComputedStyle(document.documentElement).getPropertyValue("--bg").trim().slice(1);
    return [0, 2, 4].map((i) => parseInt(hex.slice(i, i + 2), 16)).reduce((a, b) => a + b) / 3;
}"""
EMOJI = """() => [...document.body.innerText].filter((c) => c.codePointAt(0) >= 0x1f000)"""


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_theme_follows_the_system_and_the_toggle_overrides_it(browser, server, scheme):
    context = browser.new_context(viewport=DESKTOP, color_scheme=scheme, reduced_motion="reduce")
    try:
        page = context.new_page()
        page.goto(server + "/")
        page.locator("#screen-start").wait_for()
        light = page.evaluate(LIGHTNESS) > 128
        assert light == (scheme == "light")
        # auto → light → dark: one of the two clicks flips this page's theme, and it is remembered.
        page.locator("#theme").click()
        page.locator("#theme").click()
        assert page.evaluate(LIGHTNESS) < 128  # dark
        page.locator("#theme").click()  # back to auto
        assert (page.evaluate(LIGHTNESS) > 128) == (scheme == "light")
        page.locator("#theme").click()  # light
        page.reload()
        assert page.evaluate(LIGHTNESS) > 128
        create_room(page, "Ada", "cheat")
        assert page.evaluate(EMOJI) == []
        if scheme == "light":
            shots(page, "waiting-room-light")
    finally:
        context.close()
