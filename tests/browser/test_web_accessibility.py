"""Every screen passes axe-core's WCAG 2.2 A/AA and best-practice checks, in the light and the dark
theme: the lobby, a waiting room, each game's table, a game's end, its replay, a profile and a
leaderboard. axe-core (pinned in tests/browser/node) is the checker screen readers' and browsers'
accessibility teams use; what it cannot judge (is the order of a screen sensible?) the keyboard and
screen-reader tests check by hand (test_web_keyboard.py, test_web_log.py)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

import pytest
from browser_helpers import DESKTOP, PHONE, create_room, open_as, shot
from wire import Wire, at_a_table

pytestmark = pytest.mark.browser

AXE = Path(__file__).parent / "node" / "node_modules" / "axe-core" / "axe.min.js"
TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice"]
# One exception: a card (UNO, Cheat), the UNO draw pile or a Connect Four column shows a picture of
# itself (a card's corner index and colour initial, the logo on the card backs, discs), and its name
# says it in words ("Red 7", "Draw pile, 84 cards", "Column 1: empty, 6 free"), as a card is read
# aloud; axe takes the picture's letters for a visible label.
PICTURES = ".ucard, .pcard, .pile-btn, .c4-col"
RUN = """async ([tags, pictures]) => {
    const result = await axe.run(document, { runOnly: { type: "tag", values: tags } });
    for (const v of result.violations) {
        if (v.id === "label-content-name-mismatch") {
            v.nodes = v.nodes.filter((n) => !document.querySelector(n.target[0])?.matches(pictures));
        }
    }
    return result.violations.filter((v) => v.nodes.length).map((v) => ({
        rule: v.id,
        help: v.help,
        where: v.nodes.slice(0, 5).map((n) => `${n.target.join(" ")}: ${n.failureSummary}`),
    }));
}"""


def violations(page) -> list[dict]:
    """What axe-core finds wrong on the page as it is now."""
    if not page.evaluate("typeof axe !== 'undefined'"):
        page.add_script_tag(path=str(AXE))
    return page.evaluate(RUN, [TAGS, PICTURES])


def audited(page, screen: str, found: dict[str, list[dict]]) -> None:
    found[screen] = violations(page)
    scheme = "dark" if page.evaluate("matchMedia('(prefers-color-scheme: dark)').matches") else "light"
    shot(page, f"axe-{screen.replace(' ', '-')}-{scheme}")


@contextlib.contextmanager
def auditing(browser, server: str, viewport: dict[str, int], scheme: str) -> Iterator[tuple]:
    """A visitor in ``scheme`` at ``viewport`` whose first page is on the lobby, audited. Yields its
    browser context, that page, what axe found per screen and a list of wire clients to close; then
    checks that no screen had a problem."""
    context = browser.new_context(
        viewport=viewport, color_scheme=scheme, reduced_motion="reduce", bypass_csp=True
    )
    found: dict[str, list[dict]] = {}
    wires: list[Wire] = []
    try:
        page = context.new_page()
        page.goto(server + "/")
        page.locator("#screen-start #create-form").wait_for()
        audited(page, "lobby", found)
        yield context, page, found, wires
    finally:
        for wire in wires:
            wire.close()
        context.close()
    problems = [
        f"{where}: {v['rule']} ({v['help']}) at {v['where']}" for where, vs in found.items() for v in vs
    ]
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_every_screen_passes_axe_in_both_themes(browser, server, scheme):
    """Before this test, axe found in the light theme: the gold accent text (the brand, the room code,
    links, the rules) at 2.4-2.9:1 on light panels; the blue and red buttons' dark text at 3.8-4.4:1;
    in both themes white on the blue and red buttons at 3.4-3.9:1; the theme button's name without its
    visible word ("auto"); no level-one heading on the room screen."""
    with auditing(browser, server, DESKTOP, scheme) as (context, page, found, wires):
        code = create_room(page, "Ada", "uno")
        guest = Wire(server, "Bo")
        wires.append(guest)
        guest.request("join", code=code)
        page.locator("#players .member", has_text="Bo").wait_for()
        audited(page, "waiting room", found)

        for game, names in (
            ("uno", ("Ada", "Bo", "Cy")),
            ("cheat", ("Ada", "Bo", "Cy")),
            ("dots", ("Ada", "Bo")),
            ("connect_four", ("Ada", "Bo")),
        ):
            seated, _ = at_a_table(server, game, names)
            wires += seated
            page.close()
            page = context.new_page()
            # Ada's browser: her seat's token and her profile (the replay of a private room's game is
            # for the profiles that played it).
            open_as(page, server + "/", seated[0])
            page.locator(".table-host > *").wait_for()
            page.locator("#game-log li").first.wait_for(state="attached")
            audited(page, f"{game} table", found)

        # Connect Four to its end (Ada, in the browser, four in the left column; Bo over the wire), seen
        # by Ada: the results, the replay, her profile and the game's leaderboard.
        ada, bo = seated
        for move in range(4):
            # Bo's wire may move before Ada's page has drawn her last disc: a click on its stale
            # "playable" column would be dropped (her move still on its way). Wait for Bo's disc.
            page.wait_for_function(f"() => document.querySelectorAll('.c4-cell.disc').length === {2 * move}")
            page.locator('.c4-col.playable[data-column="0"]').click()
            if move < 3:
                bo.until(lambda m: m["type"] == "game" and m["view"]["turn"] == 1)
                bo.request("action", action={"type": "drop", "column": 1})
        page.locator(".game-over").wait_for()
        audited(page, "game over", found)
        with page.expect_popup() as opened:
            page.locator('[data-testid="watch-replay"]').click()
        page = opened.value
        page.locator("#replay-title", has_text="Connect Four").wait_for()
        page.locator("#game-log li").first.wait_for()
        # Ada's seat, her turn at the start: a replay says whose turn it was, not "Your turn".
        assert page.locator(".c4-status").inner_text() == "Ada to play."
        audited(page, "replay", found)
        page.goto(f"{server}/p/{ada.profile['id']}")
        page.locator(".stat-game").first.wait_for()
        audited(page, "profile", found)
        page.get_by_role("link", name="Connect Four leaderboard →").click()
        page.locator("h1", has_text="Connect Four leaderboard").wait_for()
        audited(page, "leaderboard", found)
    assert len(found) == 10


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_phone_screens_pass_axe_in_both_themes(browser, server, scheme):
    """At 390 × 844: the lobby, and the UNO and Cheat tables of a player waiting for their turn (every
    card disabled, the hand docked and scrolled sideways), with the log opened. Before: the lobby's
    heading was display:none on phones (no level-one heading), and a waiting Cheat player's hand
    scrolled with nothing in it a keyboard could reach."""
    with auditing(browser, server, PHONE, scheme) as (context, page, found, wires):
        for game in ("uno", "cheat"):
            seated, _ = at_a_table(server, game, ("Ada", "Bo", "Cy"))
            wires += seated
            waiting = next(w for w in seated if w.view["turn"] != w.view["seat"])
            page.close()
            page = context.new_page()
            open_as(page, server + "/", waiting)
            page.locator('[data-testid="hand"]').wait_for()
            audited(page, f"{game} table", found)
            # The keyboard reaches the hand (to scroll it) though no card in it can be played now.
            page.locator("#leave").focus()
            reached = False
            for _ in range(60):
                page.keyboard.press("Tab")
                if page.evaluate("!!document.activeElement.closest('[data-testid=\"hand\"]')"):
                    reached = True
                    break
            assert reached, game
            page.locator("#log-toggle").click()
            page.locator("#game-log li").first.wait_for()
            audited(page, f"{game} table, log open", found)
    assert len(found) == 5
