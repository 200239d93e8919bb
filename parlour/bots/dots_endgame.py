"""Dots & Boxes analysis: safe lines, chains and loops, and the endgame search.

The board is read as *strings and coins*: each uncaptured box is a coin, each free line a string
joining two coins (or a coin and the ground, at the border). A box with three sides drawn is
capturable; a line is *safe* when it gives no box its third side. Once no safe line is left, every
move hands the opponent a chain or a loop, and the game is decided by who keeps control:
the controller takes all but the last two boxes of a chain (all but four of a loop) and leaves them,
forcing the other player to open the next one (double-dealing).

``choose_line`` picks a move for the player to move. Small boards are searched exactly
(negamax with alpha-beta and a transposition table over the "restricted" game: forced captures,
a double-dealing choice only at the end of a chain, safe lines only while they exist). Positions
made only of independent chains and loops are valued in closed form (``open_value``), which is
what keeps the search small. Larger boards, or searches that run out of time, fall back to the
same rules without lookahead, so every move stays within its time budget on 50×50 dots.
"""

from __future__ import annotations

import random
import time
from collections import Counter
from functools import lru_cache

from parlour.games.dots import line_id

GROUND = -1
_INF = 10**6


class Grid:
    """Static tables for one board size (``width`` × ``height`` dots); shared, never mutated.

    Lines are indexed by the engine's line id (``y*100 + x*2 + d``), so moves need no translation.
    """

    __slots__ = ("adj", "box_lines", "height", "lines", "nboxes", "size", "width")

    def __init__(self, width: int, height: int) -> None:
        self.width = width
        self.height = height
        bw = width - 1
        self.nboxes = bw * (height - 1)
        self.lines: list[int] = []
        self.size = line_id(width - 1, height - 1, 0) + 1
        self.adj: list[tuple[int, ...]] = [()] * self.size
        box_lines: list[list[int]] = [[] for _ in range(self.nboxes)]
        for y in range(height):
            for x in range(width):
                for d in (0, 1):
                    if (d == 0 and x == width - 1) or (d == 1 and y == height - 1):
                        continue
                    i = line_id(x, y, d)
                    self.lines.append(i)
                    near = [(x, y), (x, y - 1)] if d == 0 else [(x, y), (x - 1, y)]
                    boxes = tuple(by * bw + bx for bx, by in near if 0 <= bx < bw and 0 <= by < height - 1)
                    self.adj[i] = boxes
                    for b in boxes:
                        box_lines[b].append(i)
        self.box_lines = [tuple(lines) for lines in box_lines]


_GRIDS: dict[tuple[int, int], Grid] = {}


def grid(width: int, height: int) -> Grid:
    """The shared tables for a board size."""
    g = _GRIDS.get((width, height))
    if g is None:
        g = _GRIDS[(width, height)] = Grid(width, height)
    return g


class Position:
    """Drawn lines, side counts, safe lines and capturable boxes, kept in step by ``draw``/``undo``.

    Keeping the safe set and the capturable set incrementally is what makes a move on 50×50 dots
    cost time proportional to what changed, not to the board.
    """

    __slots__ = ("capt", "drawn", "grid", "key", "remaining", "safe", "sides")

    def __init__(self, g: Grid, drawn_lines: list[int] | None = None) -> None:
        self.grid = g
        self.drawn = bytearray(g.size)
        self.sides = [0] * g.nboxes
        self.key = 0
        self.remaining = g.nboxes
        self.safe = set(g.lines)
        self.capt: set[int] = set()
        for i in drawn_lines or ():
            self.draw(i)

    def draw(self, i: int) -> int:
        """Draw line ``i``; return how many boxes it completed."""
        self.drawn[i] = 1
        self.key |= 1 << i
        self.safe.discard(i)
        g = self.grid
        sides = self.sides
        got = 0
        for b in g.adj[i]:
            s = sides[b] = sides[b] + 1
            if s == 2:
                self.safe.difference_update(g.box_lines[b])
            elif s == 3:
                self.capt.add(b)
            elif s == 4:
                self.capt.discard(b)
                got += 1
        self.remaining -= got
        return got

    def undo(self, i: int) -> None:
        """Undo ``draw(i)``."""
        self.drawn[i] = 0
        self.key &= ~(1 << i)
        g = self.grid
        sides = self.sides
        recheck = [i]
        for b in g.adj[i]:
            s = sides[b]
            sides[b] = s - 1
            if s == 4:
                self.capt.add(b)
                self.remaining += 1
            elif s == 3:
                self.capt.discard(b)
            elif s == 2:
                recheck.extend(g.box_lines[b])
        drawn = self.drawn
        for line in recheck:
            if not drawn[line] and all(sides[o] < 2 for o in g.adj[line]):
                self.safe.add(line)

    def free_lines(self) -> list[int]:
        """Every undrawn line."""
        drawn = self.drawn
        return [i for i in self.grid.lines if not drawn[i]]

    def free_count(self) -> int:
        """How many lines are still undrawn."""
        return len(self.grid.lines) - self.drawn.count(1)

    def across(self, i: int, b: int) -> int:
        """The box on the other side of line ``i`` from box ``b``, or GROUND."""
        for o in self.grid.adj[i]:
            if o != b:
                return o
        return GROUND

    def other_free(self, b: int, not_line: int) -> int:
        """A free line of box ``b`` other than ``not_line`` (box ``b`` has two free lines)."""
        drawn = self.drawn
        for i in self.grid.box_lines[b]:
            if i != not_line and not drawn[i]:
                return i
        raise AssertionError("box has no other free line")

    def last_free(self, b: int) -> int:
        """The one free line of a capturable box."""
        drawn = self.drawn
        for i in self.grid.box_lines[b]:
            if not drawn[i]:
                return i
        raise AssertionError("box is complete")

    def safe_lines(self) -> list[int]:
        """Every free line that gives no box its third side, in id order."""
        return sorted(self.safe)

    def capturable(self) -> list[int]:
        """Boxes with three sides drawn, in index order."""
        return sorted(self.capt)

    def double_deal_line(self, b: int) -> int | None:
        """For capturable box ``b``: the line that declines its chain's last boxes, if taking is a choice.

        Taking is a choice only when the chain has exactly two boxes left and then ends (at the border or
        at a junction), or when exactly four boxes of an opened loop are left; everywhere else taking the
        box is at least as good as anything else.
        """
        sides = self.sides
        first = self.last_free(b)
        n = self.across(first, b)
        if n == GROUND or sides[n] != 2:
            return None
        m = self.other_free(n, first)
        x = self.across(m, n)
        if x == GROUND or sides[x] < 2:
            return m
        if sides[x] == 3:
            return None
        m2 = self.other_free(x, m)
        y = self.across(m2, x)
        if y != GROUND and sides[y] == 3:
            return m
        return None


# --- Chains and loops ------------------------------------------------------------------------------


def _runs(pos: Position) -> tuple[list[int], list[int], list[bool]]:
    """Runs of two-sided boxes: each box's run id (-1 for other boxes), each run's size and loop flag."""
    sides = pos.sides
    g = pos.grid
    drawn = pos.drawn
    run = [-1] * g.nboxes
    sizes: list[int] = []
    is_loop: list[bool] = []
    for start in range(g.nboxes):
        if run[start] >= 0 or sides[start] != 2:
            continue
        rid = len(sizes)
        run[start] = rid
        stack = [start]
        size = 0
        ends = 0
        while stack:
            b = stack.pop()
            size += 1
            for i in g.box_lines[b]:
                if drawn[i]:
                    continue
                o = pos.across(i, b)
                if o == GROUND or sides[o] != 2:
                    ends += 1
                elif run[o] < 0:
                    run[o] = rid
                    stack.append(o)
        sizes.append(size)
        is_loop.append(ends == 0)
    return run, sizes, is_loop


def components(pos: Position) -> tuple[list[int], list[int], bool]:
    """Chain lengths, loop lengths, and whether that is the whole story (no junctions).

    Boxes with exactly two sides drawn link into chains and loops. A box with fewer sides is a
    junction: the chains touching it are counted as if they ended there, and the position is
    reported as not simple, so callers know the closed-form value is an estimate.
    """
    _, sizes, loop_flags = _runs(pos)
    chains = [k for k, loop in zip(sizes, loop_flags, strict=True) if not loop]
    loops = [k for k, loop in zip(sizes, loop_flags, strict=True) if loop]
    simple = all(s >= 2 for s in pos.sides)
    return chains, loops, simple


def _states(chains: tuple[int, ...], loops: tuple[int, ...]) -> int:
    """How many sub-multisets the exact valuation may visit."""
    n = 1
    for c in (*Counter(chains).values(), *Counter(loops).values()):
        n *= c + 1
    return n


def opened(k: int, loop: bool, rest: int) -> int:
    """The opener's net for opening a k-chain (or loop) when the rest is worth ``rest`` to its opener.

    The controller takes all and opens the rest, or (long chains, loops) keeps control by leaving the
    last 2 (4) boxes; chains of 1 or 2 (the latter opened in the middle) can only be taken.
    """
    if not loop and k <= 2:
        return -k - rest
    return min(-k - rest, (8 if loop else 4) - k + rest)


@lru_cache(maxsize=1 << 17)
def _exact(chains: tuple[int, ...], loops: tuple[int, ...]) -> int:
    if not chains and not loops:
        return 0
    best = -_INF
    for k in sorted(set(chains)):
        rest_list = list(chains)
        rest_list.remove(k)
        best = max(best, opened(k, False, _exact(tuple(rest_list), loops)))
    for k in sorted(set(loops)):
        rest_list = list(loops)
        rest_list.remove(k)
        best = max(best, opened(k, True, _exact(chains, tuple(rest_list))))
    return best


def _canonical(chains: tuple[int, ...], loops: tuple[int, ...]) -> int:
    """Opener's value if components are opened short chains first, then loops, then long chains."""
    order = [(k, False) for k in sorted(chains) if k <= 2]
    order += [(k, True) for k in sorted(loops)]
    order += [(k, False) for k in sorted(chains) if k > 2]
    v = 0
    for k, loop in reversed(order):
        v = opened(k, loop, v)
    return v


def open_value(chains: list[int], loops: list[int]) -> int:
    """Net boxes for the player who must open one of these independent chains/loops, both playing well.

    Opening a chain of 1 or 2 (a 2-chain opened in the middle) hands it over; for a longer chain the
    controller either takes it all and must open next, or keeps control by leaving the last 2 (4 for a
    loop). Exact over the multiset when that is small enough, else the canonical opening order.
    """
    ct, lt = tuple(sorted(chains)), tuple(sorted(loops))
    if _states(ct, lt) <= 2_000:
        return _exact(ct, lt)
    return _canonical(ct, lt)


# --- Search ------------------------------------------------------------------------------------------


class _OutOfTime(Exception):
    pass


_EXACT, _LOWER, _UPPER = 0, 1, 2


class Searcher:
    """Negamax over the restricted game; the transposition table lives as long as the bot (one game)."""

    def __init__(self) -> None:
        self.tt: dict[int, tuple[int, int, int]] = {}
        self.deadline = 0.0
        self.nodes = 0

    def moves(self, pos: Position) -> tuple[list[int], bool]:
        """Candidate lines and whether the position is terminal for search (valued in closed form)."""
        decision: tuple[int, int] | None = None
        for b in pos.capturable():
            dd = pos.double_deal_line(b)
            if dd is None:
                return [pos.last_free(b)], False
            decision = (pos.last_free(b), dd)
        if decision is not None:
            return list(decision), False
        safe = pos.safe_lines()
        if safe:
            return safe, False
        if all(s >= 2 for s in pos.sides):
            return [], True
        return pos.free_lines(), False

    def value(self, pos: Position, alpha: int, beta: int) -> int:
        """Net boxes still to come for the player to move."""
        if pos.remaining == 0:
            return 0
        self.nodes += 1
        if not self.nodes & 255 and time.perf_counter() > self.deadline:
            raise _OutOfTime
        key = pos.key
        hit = self.tt.get(key)
        if hit is not None:
            v, flag, _ = hit
            if flag == _EXACT or (flag == _LOWER and v >= beta) or (flag == _UPPER and v <= alpha):
                return v
        moves, terminal = self.moves(pos)
        if terminal:
            chains, loops, _ = components(pos)
            v = open_value(chains, loops)
            self.tt[key] = (v, _EXACT, -1)
            return v
        if hit is not None and hit[2] in moves:
            moves.remove(hit[2])
            moves.insert(0, hit[2])
        a0 = alpha
        best, best_move = -_INF, moves[0]
        for i in moves:
            got = pos.draw(i)
            try:
                v = got + self.value(pos, alpha - got, beta - got) if got else -self.value(pos, -beta, -alpha)
            finally:
                pos.undo(i)
            if v > best:
                best, best_move = v, i
                alpha = max(alpha, v)
                if alpha >= beta:
                    break
        flag = _UPPER if best <= a0 else _LOWER if best >= beta else _EXACT
        self.tt[key] = (best, flag, best_move)
        return best

    def best(self, pos: Position, budget_s: float) -> int | None:
        """The best line by exact search, or None if it did not finish in time."""
        self.deadline = time.perf_counter() + budget_s
        moves, terminal = self.moves(pos)
        if terminal or len(moves) == 1:
            return None if terminal else moves[0]
        try:
            best, best_move = -_INF, None
            for i in moves:
                got = pos.draw(i)
                try:
                    v = got + self.value(pos, best - got, _INF) if got else -self.value(pos, -_INF, -best)
                finally:
                    pos.undo(i)
                if v > best:
                    best, best_move = v, i
            return best_move
        except _OutOfTime:
            return None


# --- Move choice without lookahead --------------------------------------------------------------------


def _cheapest_opening(pos: Position, rng: random.Random) -> int:
    """With no safe line left: the line handing over the fewest boxes (a 2-chain in the middle)."""
    run, sizes, _ = _runs(pos)
    best: float = _INF
    cands: list[int] = []
    for i in pos.free_lines():
        boxes = pos.grid.adj[i]
        rids = {run[b] for b in boxes if run[b] >= 0}
        cost: float = sum(sizes[r] for r in rids)
        if len(boxes) == 2 and len(rids) == 1 and cost == 2:
            cost = 1.5  # a 2-chain opened in the middle cannot be double-dealt
        if cost < best:
            best, cands = cost, [i]
        elif cost == best:
            cands.append(i)
    return rng.choice(cands)


def _take_or_decline(pos: Position, take: int, decline: int) -> int:
    """At the end of a chain: keep control (decline) when the rest is worth more to whoever opens it."""
    g = pos.grid
    keep = 4 if len(g.adj[decline]) == 2 and all(pos.sides[b] == 2 for b in g.adj[decline]) else 2
    taken: list[int] = []
    # Take everything that can be taken, to see what the rest of the board looks like.
    while cap := pos.capturable():
        i = pos.last_free(cap[0])
        pos.draw(i)
        taken.append(i)
    try:
        if pos.remaining == 0 or pos.safe_lines():
            return take
        chains, loops, _ = components(pos)
        v = open_value(chains, loops)
    finally:
        for i in reversed(taken):
            pos.undo(i)
    # Take: ``keep`` boxes, then we must open the rest (v). Decline: they get ``keep`` and open (-v).
    return decline if -keep - v > keep + v else take


SEARCH_MAX_BOXES = 25
SEARCH_MAX_FREE = 26


def choose_line(pos: Position, rng: random.Random, searcher: Searcher | None, budget_s: float) -> int:
    """The hard bot's line: search when small, else the rules of good play without lookahead."""
    cap = pos.capturable()
    decision: tuple[int, int] | None = None
    for b in cap:
        dd = pos.double_deal_line(b)
        if dd is None:
            return pos.last_free(b)
        decision = (pos.last_free(b), dd)
    free = pos.free_count()
    if searcher is not None and pos.grid.nboxes <= SEARCH_MAX_BOXES and free <= SEARCH_MAX_FREE:
        line = searcher.best(pos, budget_s)
        if line is not None:
            return line
    if decision is not None:
        return _take_or_decline(pos, *decision)
    safe = pos.safe_lines()
    if safe:
        return rng.choice(safe)
    chains, loops, simple = components(pos)
    if simple and (chains or loops):
        return _open_simple(pos, chains, loops, rng)
    return _cheapest_opening(pos, rng)


def _open_simple(pos: Position, chains: list[int], loops: list[int], rng: random.Random) -> int:
    """Open the component whose opening is best by ``open_value`` (2-chains in the middle)."""
    best_k, best_loop, best_v = 0, False, -_INF
    for k, loop in {(k, False) for k in chains} | {(k, True) for k in loops}:
        rc, rl = list(chains), list(loops)
        (rl if loop else rc).remove(k)
        val = opened(k, loop, open_value(rc, rl))
        if val > best_v:
            best_k, best_loop, best_v = k, loop, val
    run, sizes, loop_flags = _runs(pos)
    cands: list[int] = []
    for i in pos.free_lines():
        boxes = pos.grid.adj[i]
        rids = {run[b] for b in boxes}
        if len(rids) != 1 or -1 in rids:
            continue
        r = rids.pop()
        if sizes[r] != best_k or loop_flags[r] != best_loop:
            continue
        if not best_loop and best_k == 2 and len(boxes) != 2:
            continue  # open a 2-chain in the middle, so it cannot be double-dealt
        cands.append(i)
    return rng.choice(cands) if cands else _cheapest_opening(pos, rng)
