"""Helpers the browser tests share: screenshots, layout checks and UI steps."""

from __future__ import annotations

import json
import re
from pathlib import Path
from urllib.parse import urljoin

from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

ROOT = Path(__file__).resolve().parents[2]
SHOTS = ROOT / "artifacts" / "screenshots"
DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}
NARROW = {"width": 360, "height": 740}


def shot(page, name: str) -> None:
    """Save a screenshot of the page as it is now, named by screen and viewport width."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    width = page.viewport_size["width"]
    page.screenshot(path=str(SHOTS / f"{name}-{width}.png"), full_page=True)


def shots(page, name: str) -> None:
    """Screenshots at desktop and phone width; at phone widths (390 and 360 px) nothing may scroll
    sideways. The page is back at desktop size afterwards."""
    for viewport in (DESKTOP, PHONE, NARROW):
        page.set_viewport_size(viewport)
        page.wait_for_timeout(50)
        if viewport is not DESKTOP:
            assert no_horizontal_scroll(page), f"{name} scrolls sideways at {viewport['width']} px"
        if viewport is not NARROW:
            shot(page, name)
    page.set_viewport_size(DESKTOP)


def on_screen(page, selector: str) -> bool:
    """Whether the first element ``selector`` finds is wholly in the viewport as the page is scrolled now."""
    return page.locator(selector).first.evaluate(
        """e => { const r = e.getBoundingClientRect();
            return r.width > 0 && r.top >= 0 && r.bottom <= window.innerHeight
                && r.left >= 0 && r.right <= window.innerWidth; }"""
    )


def heading_lines(page) -> int:
    """How many lines the room's heading (code, game, state, Log, Exit) is laid out on."""
    return page.evaluate(
        """() => {
            const middles = [...document.querySelectorAll('.room-head > :not(.code-box), .code-box > *')]
                .filter((e) => e.getClientRects().length)
                .map((e) => { const r = e.getBoundingClientRect(); return (r.top + r.bottom) / 2; })
                .sort((a, b) => a - b);
            return middles.filter((m, i) => i === 0 || m - middles[i - 1] > 12).length;
        }"""
    )


def no_horizontal_scroll(page) -> bool:
    return page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")


def take_over(page, token: str, name: str) -> None:
    """The page becomes the session of ``token`` (a wire client's), as the same browser coming back:
    opened again, it brings that session's room and table. The token is stored from a page of the same
    origin that runs no client: stored under the running client, it was read by that client's own
    first connection when it opened late, which resumed the session once before the page was opened
    again (and what that resume showed was lost with the page)."""
    url = page.url
    page.goto(urljoin(url, "/favicon.svg"))
    page.evaluate(
        "([t, n]) => { localStorage.setItem('parlour.token', t); localStorage.setItem('parlour.name', n); }",
        [token, name],
    )
    page.goto(url)


def open_as(page, url: str, wire) -> None:
    """Open ``url`` in a fresh page as the browser of ``wire``'s player (its token, name and guest
    profile), stored before the client's script runs, so no session of the page's own can race it."""
    stored = json.dumps(
        {"parlour.token": wire.token, "parlour.name": wire.name, "parlour.profile": json.dumps(wire.profile)}
    )
    page.add_init_script(f"for (const [k, v] of Object.entries({stored})) localStorage.setItem(k, v);")
    page.goto(url)


def wait_drawn(page) -> None:
    """Wait until the page (after a navigation too) has drawn its first screen: while the next
    document loads there may be no ``body`` yet, so the check must not read through it."""
    page.wait_for_function("document.body?.dataset.ready")


def wait_room(page) -> str:
    """Wait for the room screen and return the room code shown on it."""
    page.locator("#screen-room").wait_for(state="visible")
    # The code read in the same check that found it (read after, it could be mid-redraw: '').
    found = page.wait_for_function("document.querySelector('#room-code').textContent.trim() || false")
    return found.json_value()


def create_room(page, name: str, game: str, settings: dict | None = None, capacity: int | None = None) -> str:
    """Fill the start screen's create form like a person would and return the new room's code."""
    page.fill("#name", name)
    page.check(f'#create-form input[name="game"][value="{game}"]')
    if settings or capacity is not None:  # the rules and room options fold away above the Create button
        page.evaluate("document.querySelector('#create-form .create-options').open = true")
    for key, value in (settings or {}).items():
        field = page.locator(f'#create-form [name="s.{key}"]')
        if isinstance(value, bool):
            field.set_checked(value)
        elif field.evaluate("e => e.tagName") == "SELECT":
            field.select_option(str(value))
        else:
            field.fill(str(value))
    if capacity is not None:
        page.fill('#create-form [name="capacity"]', str(capacity))
    page.click('#create-form button[type="submit"]')
    return wait_room(page)


def join_room(page, name: str, code: str) -> None:
    page.fill("#name", name)
    page.fill("#join-code", code)
    page.click('#join-form button[type="submit"]')
    wait_room(page)


def ready_up(page) -> None:
    page.get_by_role("button", name="I'm ready").click()
    page.get_by_role("button", name="✓ Ready — click to unready").wait_for()


def hand_ids(page) -> list[str]:
    return page.locator('[data-testid="hand"] [data-id]').evaluate_all(
        "cards => cards.map(c => c.dataset.id)"
    )


def start_game(host, players) -> None:
    """Everyone readies up through the UI; the host then starts without waiting for the countdown."""
    for page in players:
        ready_up(page)
    host.locator(".countdown .timer-text", has_text=re.compile(r"^[1-5]$")).wait_for()
    # A stalled machine may let the countdown run out first: the game then starts all the same.
    click_if_still_there(host.get_by_role("button", name="Start game"))
    for page in players:
        page.locator(".table-host").wait_for()


STALE_CLICK_MS = 3000
"""How long a step's click waits for what it saw a moment before: a bot's move or the game's end can
arrive between the look and the click, and the control is gone (the step then says it made no move)."""


CORNER = {"x": 9, "y": 14}
"""Where a thumb taps a card in a phone's fanned hand: its corner, the part the next card leaves bare."""


def tap_card(card) -> None:
    """Tap ``card`` (a locator) by its corner, as a person does in a fanned hand: its middle lies under
    the next card, and a click there is that card's."""
    card.click(position=CORNER)


def click_if_still_there(locator) -> bool:
    """Click ``locator`` (the first match) if it is still on the page; False if the table moved on."""
    try:
        locator.first.click(timeout=STALE_CLICK_MS, no_wait_after=True)
    except PlaywrightTimeoutError:
        return False
    return True


def seq(page) -> int:
    """The sequence number of the last game message the page has rendered."""
    return int(page.locator("#stage").get_attribute("data-seq") or -1)


def wait_seq(page, at_least: int) -> None:
    page.wait_for_function(f"Number(document.querySelector('#stage').dataset.seq) >= {at_least}")


def page_state(page) -> str:
    """What a person would read on the page: toasts, the hint and the controls (for failure messages)."""
    return page.evaluate(
        """() => [...document.querySelectorAll('#toasts .toast, .hint, .controls, dialog[open]')]
            .map((e) => e.innerText.trim()).join(' | ')"""
    )


SETTLE_JS = """([atLeast, orOver, ms]) => new Promise((resolve, reject) => {
    const deadline = performance.now() + ms;
    const poll = () => {
        const seq = Number(document.querySelector('#stage')?.dataset.seq ?? -1);
        const over = !!document.querySelector('.game-over');
        if (seq >= atLeast || (orOver && over)) resolve([seq, over]);
        else if (performance.now() > deadline) reject(new Error(`seq ${seq} shown, ${atLeast} awaited`));
        else requestAnimationFrame(poll);
    };
    poll();
})"""


def settle(page, at_least: int, or_over: bool = False, timeout_ms: int = 30_000) -> tuple[int, bool]:
    """Wait until the page has rendered game message ``at_least`` (or the game's end, if ``or_over``);
    returns what it shows then: the last rendered sequence number and whether the game is over.

    One round trip, where ``wait_for_function`` and a read of its result take two."""
    seq, over = page.evaluate(SETTLE_JS, [at_least, or_over, timeout_ms])
    return int(seq), bool(over)


def drive(pages, step, limit: int, observe=None) -> int:
    """Call ``step(page)`` on the pages in turn until the game is over; returns the moves made.

    ``step`` makes at most one move by clicking and says whether it did. Before a page is asked it has
    rendered the last move seen. The last mover is asked first (after a draw they play or pass; after
    their second-last card they call UNO), then the players after them in page order: a round of looks
    at every page per move made the four-player UNO test minutes long. ``observe(moves)`` runs after
    a move once every page has rendered it (screenshots, mid-game checks).
    """
    moves, first = 0, 0
    now, over = _look(pages)
    while not over:
        mover = None
        for index in [*range(first, len(pages)), *range(first)]:
            shown, over = settle(pages[index], now)
            if over:  # the end can show a moment after the last move's message
                break
            assert moves < limit, f"game not over after {limit} moves"
            if step(pages[index]):
                mover, first = pages[index], index
                break
        if over:
            break
        if mover is None:  # nobody could move (a bot or the clock is on turn): look again
            pages[0].wait_for_timeout(50)
            now, over = _look(pages)
            continue
        moves += 1
        try:
            now, over = settle(mover, shown + 1, or_over=True)
        except Exception as err:
            raise AssertionError(f"move {moves} changed nothing; the page says: {page_state(mover)}") from err
        if observe:
            for page in pages:
                settle(page, now)
            observe(moves)  # it may have reloaded a page or clicked: look again
            now, over = _look(pages)
    return moves


def _look(pages) -> tuple[int, bool]:
    """The latest game message any of the pages has rendered, and whether one shows the game's end."""
    shown = [settle(page, -1) for page in pages]
    return max(seq for seq, _ in shown), any(over for _, over in shown)


RECORD_TOASTS = """() => {
    window.seenToasts = [];
    const box = document.querySelector('#toasts');
    new MutationObserver(() => {
        const shown = box.querySelector('.toast:not(.gone)');
        const text = shown ? shown.textContent : null;
        if (text && window.seenToasts.at(-1)?.text !== text) {
            window.seenToasts.push({text, at: performance.now()});
        }
    }).observe(box, {childList: true, subtree: true});
}"""


def record_toasts(page) -> None:
    """From now on the page keeps each toast it shows, in order, in ``window.seenToasts``: a toast
    waits in a queue behind the one shown, so counting the shown ones cannot say one never came."""
    page.evaluate(RECORD_TOASTS)


def toasts_once_quiet(page) -> list[str]:
    """The toasts shown since :func:`record_toasts`, once none is shown (the queue ran dry)."""
    page.wait_for_function("!document.querySelector('#toasts .toast:not(.gone)')", timeout=20_000)
    return [t["text"] for t in page.evaluate("window.seenToasts")]
