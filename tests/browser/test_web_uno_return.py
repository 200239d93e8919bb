"""UNO in the browser: a player closes the tab mid-game and opens the room again in a new tab."""

from __future__ import annotations

import pytest
from browser_helpers import create_room, hand_ids, join_room, shot, start_game

pytestmark = pytest.mark.browser


def test_closed_tab_comes_back_with_the_same_hand(open_page, server):
    ada, bo = open_page(), open_page()
    code = create_room(ada, "Ada", "uno", {"target_score": 0}, capacity=2)
    join_room(bo, "Bo", code)
    start_game(ada, [ada, bo])
    bo.locator('[data-testid="hand"]').wait_for()
    before = hand_ids(bo)
    context = bo.context
    bo.close()
    again = context.new_page()
    again.goto(server + "/")
    again.locator('[data-testid="hand"]').wait_for()
    assert hand_ids(again) == before, "the hand is the one the closed tab held"
    assert "Bo" in again.locator("#players .member:has(.badge.you)").inner_text()
    shot(again, "playtest-uno-return")
