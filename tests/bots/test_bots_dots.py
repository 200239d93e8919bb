"""Dots & Boxes: the hard bot's rules of play, its chain arithmetic, and the bounds on its search."""

from __future__ import annotations

import random
from typing import Any

import pytest

from parlour.bots import make_bot
from parlour.bots.catalog import get_game
from parlour.bots.dots_endgame import Position, Searcher, choose_line, components, grid, open_value
from parlour.games.dots import line_id, line_xyd

GAME = get_game("dots")


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
def test_large_boards_are_played_by_rule_without_search(size: tuple[int, int]) -> None:
    """The opening, the moment safe lines run out, and the chain endgame after it on boards too large to
    search: every move legal, and the bounded search never runs (its time per move is in
    ``bench/bots.py --only dots-time``)."""
    width, height = size
    rng = random.Random(3)
    bots: list[Any] = [make_bot("dots", "hard", s, random.Random(s)) for s in range(2)]
    state = GAME.setup(GAME.settings({"width": width, "height": height}), 2, rng)
    # Opening move, then fill safe lines at random until none is left (no box is ever captured).
    pos = _random_position(width, height, rng, safe_only=True)
    for i, line in enumerate(i for i in pos.grid.lines if pos.drawn[i]):
        if i == 0:
            _play(bots, state, apply=False)
        GAME.apply(state, GAME.to_act(state)[0], line)
    for _ in range(150):  # the endgame: openings, captures and double-deals
        if GAME.outcome(state) is not None:
            break
        _play(bots, state, apply=True)
    assert [bot.searcher.nodes for bot in bots] == [0, 0]


def _play(bots: list[Any], state: Any, apply: bool) -> None:
    seat = GAME.to_act(state)[0]
    view, legal = GAME.view(state, seat), GAME.legal_actions(state, seat)
    line = bots[seat].choose(view, legal)
    assert line in legal
    if apply:
        GAME.apply(state, seat, line)


def test_late_game_search_stops_at_its_deadline_and_still_answers() -> None:
    """Searched positions (3×3 and 5×5 boxes, few safe lines left): with its deadline already past, the
    search gives up within 256 positions (it looks at the clock every 256), and the bot still answers
    with a legal line by rule."""
    rng = random.Random(11)
    gave_up = 0
    for width, height in [(4, 4), (6, 6), (5, 4)]:
        for _ in range(6):
            pos = _random_position(width, height, rng, safe_only=True)
            lines = [i for i in pos.grid.lines if pos.drawn[i]]
            for _ in range(rng.randrange(3)):  # back up a little, so a few safe lines remain
                pos.undo(lines.pop(rng.randrange(len(lines))))
            searcher = Searcher()
            found = searcher.best(pos, 0.0)
            assert searcher.nodes <= 256
            assert found is None or found in pos.free_lines()
            gave_up += found is None
            free = pos.free_lines()
            assert choose_line(pos, random.Random(1), Searcher(), 0.0) in free
            bot = make_bot("dots", "hard", 0, random.Random(1))
            assert bot.choose(_view(width, height, lines), free) in free
    assert gave_up > 0  # some of these positions do need more than the deadline allows
