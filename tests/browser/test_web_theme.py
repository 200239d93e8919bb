"""Light and dark themes: the system's choice by default, a toggle that overrides it; no meaning
carried by an emoji (a machine without an emoji font shows boxes)."""

from __future__ import annotations

import pytest
from browser_helpers import DESKTOP, create_room, open_as, shot, shots
from wire import at_a_table

pytestmark = pytest.mark.browser

LIGHTNESS = """() => {
    const hex = getComputedStyle(document.documentElement).getPropertyValue("--bg").trim().slice(1);
    return [0, 2, 4].map((i) => parseInt(hex.slice(i, i + 2), 16)).reduce((a, b) => a + b) / 3;
}"""
# WCAG's contrast ratio of two CSS colours.
RATIO = """const ratio = (a, b) => {
    const lum = (css) => {
        const c = css.match(/[\\d.]+/g).slice(0, 3).map((v) => v / 255)
            .map((v) => (v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4));
        return 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2];
    };
    const [hi, lo] = [Math.max(lum(a), lum(b)), Math.min(lum(a), lum(b))];
    return Math.round(((hi + 0.05) / (lo + 0.05)) * 100) / 100;
};"""
# Each element's text against the felt's lightest green (#1f5a3a, the centre of its gradient, which
# axe-core cannot judge); the elements here have no background of their own.
FELT_CONTRAST = f"""(selectors) => {{
    {RATIO}
    const felt = "rgb(31, 90, 58)";
    return selectors.map((s) => [s, ratio(getComputedStyle(document.querySelector(s)).color, felt)]);
}}"""
# The UNO colours as chips and buttons with text on them (the colour named, the log's cards, the
# colour picker's buttons), each drawn on the page (the picker is a dialog, off the felt) and its text
# held against its own fill: the deal shows only some of them.
COLOUR_FILLS = f"""() => {{
    {RATIO}
    const out = {{}};
    for (const kind of ["colour-chip", "log-card", "colour-pick"]) {{
        for (const colour of ["red", "yellow", "green", "blue"]) {{
            const probe = document.createElement(kind === "colour-pick" ? "button" : "span");
            probe.className = `${{kind}} ${{colour}}`;
            probe.textContent = colour;
            document.body.append(probe);
            const style = getComputedStyle(probe);
            out[`${{kind}} ${{colour}}`] = ratio(style.color, style.backgroundColor);
            probe.remove();
        }}
    }}
    return out;
}}"""
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


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_what_is_written_on_the_felt_is_readable_in_both_themes(browser, server, scheme):
    """The middle of the UNO and Cheat tables is dark green felt in both themes. In the light theme the
    draw pile's count, the round, Cheat's pile count and its caption were dark text on it (contrast
    about 2:1); they are light now, at least 4.5:1, and the direction arrow at least 3:1 (large)."""
    tables = {
        "uno": ["[data-testid=draw] .pile-count", ".uno-centre .match"],
        "cheat": ["[data-testid=pile-size]", ".cheat-centre .pile .muted"],
    }
    context = browser.new_context(viewport=DESKTOP, color_scheme=scheme, reduced_motion="reduce")
    try:
        for game, texts in tables.items():
            wires, _ = at_a_table(server, game, ("Ada", "Bo", "Cy"))
            page = context.new_page()
            open_as(page, server + "/", wires[0])
            page.locator(texts[0]).wait_for()
            ratios = dict(page.evaluate(FELT_CONTRAST, texts))
            assert all(r >= 4.5 for r in ratios.values()), (scheme, ratios)
            if game == "uno":
                assert page.evaluate(FELT_CONTRAST, [".uno-centre .direction"])[0][1] >= 3, scheme
                fills = page.evaluate(COLOUR_FILLS)
                assert all(r >= 4.5 for r in fills.values()), (scheme, fills)
            if scheme == "light":
                shot(page, f"{game}-felt-light")
            page.close()
            for wire in wires:
                wire.close()
    finally:
        context.close()
