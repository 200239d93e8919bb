"""Turn alerts and keyboard play: the tab title says "Your turn" (and counts chat that came while
the tab was hidden); a card is played with the keyboard alone, focus stays on a control, and the
aria-live region reads what happened."""

from __future__ import annotations

import pytest
from browser_helpers import create_room, join_room, seq, shots, start_game, wait_seq

pytestmark = pytest.mark.browser

HIDE = """hidden => {
    Object.defineProperty(document, "hidden", { value: hidden, configurable: true });
    document.dispatchEvent(new Event("visibilitychange"));
}"""


def test_turn_title_unread_chat_and_keyboard_play(open_page):
    ada, bo = open_page(), open_page()
    code = create_room(ada, "Ada", "uno", capacity=2)
    join_room(bo, "Bo", code)
    start_game(ada, [ada, bo])
    ada.locator(".uno-table .seat.turn").wait_for()
    mover, other = (ada, bo) if ada.locator(".uno-table .seat.me.turn").count() else (bo, ada)
    mover.wait_for_function("document.title.startsWith('Your turn')")
    assert not other.title().startswith("Your turn")
    # The first turn of a game is announced too, not only the turns after a move.
    assert "Your turn." in mover.locator("#announce").inner_text()
    assert "Your turn." not in other.locator("#announce").inner_text()

    # Chat while the other player's tab is hidden: counted in its title until it is shown again.
    other.evaluate(HIDE, True)
    mover.fill("#chat-input", "your move soon")
    mover.press("#chat-input", "Enter")
    other.wait_for_function("document.title.startsWith('(1) ')")
    other.evaluate(HIDE, False)
    other.wait_for_function("!document.title.startsWith('(')")

    # Keyboard only: focus a card (or the draw button) and press Enter.
    playable = mover.locator('[data-testid="hand"] button.playable')
    target = playable.first if playable.count() else mover.locator('.controls button:has-text("Draw")')
    before = seq(mover)
    target.focus()
    mover.keyboard.press("Enter")
    if mover.locator("dialog[open]").count():  # a Wild: the colour by keyboard too
        mover.keyboard.press("Enter")
    wait_seq(mover, before + 1)
    assert mover.evaluate("document.activeElement !== document.body")
    said = mover.locator("#announce").inner_text()
    assert "You played" in said or "You drew" in said, said  # the viewer's own move, in the second person


def test_game_event_toasts_show_the_latest_move_not_a_backlog(open_page):
    """Moves come faster than toasts can be read: the one on screen stays readable, the next shown is
    the newest move (older ones are in the game log), and a notice that is not a move still waits."""
    page = open_page()
    shown = page.evaluate(
        """async () => {
          const { toast } = await import('/ui.js');
          toast('move 1', 'info', 2500, true);
          for (const n of [2, 3, 4, 5]) toast(`move ${n}`, 'info', 2500, true);
          toast('Bo joined', 'info', 1000);
          toast('move 6', 'info', 2500, true);
          const seen = [];
          const start = Date.now();
          while (Date.now() - start < 9000 && seen.length < 3) {
            const text = document.querySelector('#toasts .toast:not(.gone)')?.textContent;
            if (text && text !== seen.at(-1)) seen.push(text);
            await new Promise(r => setTimeout(r, 50));
          }
          return seen;
        }"""
    )
    assert shown == ["move 1", "Bo joined", "move 6"], shown


def test_a_refused_chat_line_stays_in_the_box_and_says_why_at_once(open_page):
    """Over the chat limit (10 lines in 10 s) a line is not lost: it goes back into the box, and the
    reason shows under it at once, not in the toast queue behind the table's news."""
    page = open_page()
    create_room(page, "Ada", "dots", capacity=2)
    box, error = page.locator("#chat-input"), page.locator("#chat-error")
    # Eleven lines in one go (typed one by one, a slow machine let the limit refill in between).
    page.evaluate(
        """() => { const box = document.querySelector('#chat-input');
            const form = document.querySelector('#chat-form');
            for (let n = 0; n < 10; n++) { box.value = `line ${n}`; form.requestSubmit(); }
            box.value = 'one too many'; form.requestSubmit(); }"""
    )
    page.locator("#chat-log li", has_text="line 9").wait_for()
    error.wait_for()
    assert "Too many messages" in error.inner_text()
    assert box.input_value() == "one too many"
    assert page.locator("#chat-log li", has_text="one too many").count() == 0
    shots(page, "chat-refused")
    # The reason goes once the wait it asks for is over (it stayed up for the rest of the game), and the
    # line then goes through.
    error.wait_for(state="hidden", timeout=8000)
    page.press("#chat-input", "Enter")
    page.locator("#chat-log li", has_text="one too many").wait_for()
    assert error.is_hidden()
