"""Dots & Boxes: the hard bot's rules of play, its chain arithmetic, and its time budget."""

from __future__ import annotations

import gc
import random
import time
from collections.abc import Callable
from typing import Any

import pytest

from parlour.bots import make_bot
from parlour.bots.catalog import get_game
from parlour.bots.dots_endgame import Position, components, grid, open_value
from parlour.games.dots import line_id, line_xyd

GAME = get_game("dots")
BUDGET_S = 0.050


def _view(width: int, height: int, lines: list[int]) -> dict[str, Any]:
    return {"width": width, "height": height, "lines": [list(line_xyd(i)) for i in lines]}


def _free(width: int, height: int, lines: list[int]) -> list[int]:
    return [i for i in grid(width, height).lines if i not in set(lines)]


def _random_position(width: int, height: int, rng: random.Random, safe_only: bool) -> Position:
    """Random lines: only safe ones (until none is left) or any, to a random depth."""
    pos = Position(grid(width, height))
    depth = len(pos.grid.lines) if safe_only else rng.randrange(len(pos.grid.lines))
    for _ in range(depth):
        pool = sorted(pos.safe) if safe_only else pos.free_lines()
        if not pool:
            break
        pos.draw(rng.choice(pool))
    return pos


def test_open_value_matches_the_chain_arithmetic() -> None:
    assert open_value([], []) == 0
    assert open_value([3], []) == -3  # the opener gives all three
    assert open_value([1, 1], []) == 0  # one box each
    assert open_value([3, 3], []) == -2  # controller: 1 + 3, opener: 2
    assert open_value([4], [4]) == 0  # open the loop: 4 each however the controller answers
    assert open_value([2, 3], []) == 1  # hard-hearted 2-chain: they take 2, then must open the 3


def test_components_reads_chains_and_loops() -> None:
    # 2 rows of 4 boxes with every horizontal line drawn: two independent 4-chains.
    g = grid(5, 3)
    horizontals = [line_id(x, y, 0) for y in range(3) for x in range(4)]
    assert components(Position(g, horizontals)) == ([4, 4], [], True)
    # Every line of a 2×2-box block except the four inner ones: a loop of four.
    g = grid(3, 3)
    border = [line_id(x, y, 0) for x in range(2) for y in (0, 2)] + [
        line_id(x, y, 1) for x in (0, 2) for y in range(2)
    ]
    assert components(Position(g, border)) == ([], [4], True)


def test_hard_takes_all_but_two_and_double_deals_to_keep_control() -> None:
    """Two 4-chains; the opponent opened the first. Take two, leave two, then win the second chain."""
    width, height = 5, 3
    lines = [line_id(x, y, 0) for y in range(3) for x in range(4)] + [line_id(0, 0, 1)]
    bot = make_bot("dots", "hard", 0, random.Random(1))
    drawn = []
    for _ in range(3):
        line = bot.choose(_view(width, height, lines + drawn), _free(width, height, lines + drawn))
        drawn.append(line)
    assert drawn == [line_id(1, 0, 1), line_id(2, 0, 1), line_id(4, 0, 1)]


def test_hard_never_gives_a_third_side_while_a_safe_line_exists_and_takes_offered_boxes() -> None:
    rng = random.Random(5)
    for _ in range(150):
        width, height = rng.randint(2, 7), rng.randint(2, 7)
        pos = _random_position(width, height, rng, safe_only=False)
        lines = [i for i in pos.grid.lines if pos.drawn[i]]
        free = pos.free_lines()
        if not free:
            continue
        line = make_bot("dots", "hard", 0, random.Random(2)).choose(_view(width, height, lines), free)
        assert line in free
        capturable = pos.capturable()
        if capturable and pos.safe:
            assert any(pos.sides[b] == 3 for b in pos.grid.adj[line]), "an offered box was left"
        elif pos.safe:
            assert line in pos.safe, "gave a third side while a safe line existed"


@pytest.mark.parametrize("size", [(50, 50), (50, 2), (20, 35)])
def test_moves_on_large_boards_stay_within_budget(size: tuple[int, int]) -> None:
    """The opening, the moment safe lines run out, and the chain endgame after it, in CPU time."""
    width, height = size
    rng = random.Random(3)
    bots = [make_bot("dots", "hard", s, random.Random(s)) for s in range(2)]
    state = GAME.setup(GAME.settings({"width": width, "height": height}), 2, rng)
    worst = 0.0
    # Opening move, then fill safe lines at random until none is left (no box is ever captured).
    pos = _random_position(width, height, rng, safe_only=True)
    for i, line in enumerate(i for i in pos.grid.lines if pos.drawn[i]):
        if i == 0:
            worst = max(worst, _timed(bots, state))
        GAME.apply(state, GAME.to_act(state)[0], line)
    for _ in range(150):  # the endgame: openings, captures and double-deals
        if GAME.outcome(state) is not None:
            break
        worst = max(worst, _timed(bots, state, apply=True))
    assert worst <= BUDGET_S, f"slowest move took {worst * 1000:.1f} ms of CPU"


def _cpu(choose: Callable[[], int]) -> tuple[int, float]:
    """The bot's move and the CPU time it took, the collector held off: a full collection of this
    test process's heap (hundreds of ms late in a suite run) is not the bot's cost, and ``serve``
    runs with a frozen heap and high thresholds."""
    gc.collect()
    gc.disable()
    try:
        start = time.thread_time()
        line = choose()
        return line, time.thread_time() - start
    finally:
        gc.enable()


def _timed(bots: list[Any], state: Any, apply: bool = False) -> float:
    seat = GAME.to_act(state)[0]
    view, legal = GAME.view(state, seat), GAME.legal_actions(state, seat)
    line, took = _cpu(lambda: bots[seat].choose(view, legal))
    if apply:
        GAME.apply(state, seat, line)
    return took


def test_late_game_search_on_small_boards_stays_within_budget() -> None:
    """Searched positions (3×3 and 5×5 boxes, few safe lines left) answer within the budget."""
    rng = random.Random(11)
    worst = 0.0
    for width, height in [(4, 4), (6, 6), (5, 4)]:
        for _ in range(6):
            pos = _random_position(width, height, rng, safe_only=True)
            lines = [i for i in pos.grid.lines if pos.drawn[i]]
            for _ in range(rng.randrange(3)):  # back up a little, so a few safe lines remain
                pos.undo(lines.pop(rng.randrange(len(lines))))
            bot = make_bot("dots", "hard", 0, random.Random(1))
            view, free = _view(width, height, lines), pos.free_lines()
            worst = max(worst, _cpu(lambda bot=bot, view=view, free=free: bot.choose(view, free))[1])
    assert worst <= BUDGET_S, f"slowest move took {worst * 1000:.1f} ms of CPU"
