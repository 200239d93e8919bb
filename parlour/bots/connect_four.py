"""Connect Four bots: ``easy`` wins or blocks when it can, else plays near the middle; ``hard`` searches
a few plies ahead (negamax with alpha-beta) and scores positions by the open lines each side holds."""

from __future__ import annotations

from typing import Any

from parlour.bots.base import Bot

Board = list[list[int]]  # columns of seats, bottom first (as the engine keeps them)


def _board(view: dict[str, Any]) -> Board:
    """Columns bottom-first from the view's rows (top row first)."""
    rows = view["cells"][::-1]
    return [[row[c] for row in rows if row[c] is not None] for c in range(view["width"])]


def _wins(board: Board, height: int, column: int, seat: int) -> bool:
    """Whether ``seat`` dropping into ``column`` makes four in a row."""
    row = len(board[column])
    for dc, dr in ((1, 0), (0, 1), (1, 1), (1, -1)):
        run = 1
        for sign in (1, -1):
            c, r = column + sign * dc, row + sign * dr
            while 0 <= c < len(board) and 0 <= r < len(board[c]) and board[c][r] == seat:
                run += 1
                c, r = c + sign * dc, r + sign * dr
        if run >= 4:
            return True
    return False


def _middle_first(columns: list[int], width: int) -> list[int]:
    return sorted(columns, key=lambda c: abs(2 * c - (width - 1)))


class EasyConnectFourBot(Bot):
    """Wins if it can, blocks an immediate win, else drops near the middle (with a little chance)."""

    game = "connect_four"
    level = "easy"

    def choose(self, view: dict[str, Any], legal: list[Any]) -> Any:
        if not legal:
            return None
        board, height = _board(view), view["height"]
        for seat in (self.seat, 1 - self.seat):
            for column in legal:
                if _wins(board, height, column, seat):
                    return column
        ordered = _middle_first(legal, view["width"])
        return self.rng.choice(ordered[:3])


class HardConnectFourBot(Bot):
    """Negamax to ``depth`` plies, alpha-beta, middle columns first; a position is worth the open
    windows of four each side could still fill, weighted by how many discs they already hold."""

    game = "connect_four"
    level = "hard"
    depth = 4

    def choose(self, view: dict[str, Any], legal: list[Any]) -> Any:
        if not legal:
            return None
        board, height, width = _board(view), view["height"], view["width"]
        best, best_score = legal[0], -(10**9)
        for column in _middle_first(legal, width):
            if _wins(board, height, column, self.seat):
                return column
            board[column].append(self.seat)
            score = -self._negamax(board, height, 1 - self.seat, self.depth - 1, -(10**9), -best_score)
            board[column].pop()
            if score > best_score:
                best, best_score = column, score
        return best

    def _negamax(self, board: Board, height: int, seat: int, depth: int, alpha: int, beta: int) -> int:
        free = _middle_first([c for c in range(len(board)) if len(board[c]) < height], len(board))
        if not free:
            return 0
        for column in free:
            if _wins(board, height, column, seat):
                return 10**6 + depth
        if depth == 0:
            return _score(board, height, seat)
        for column in free:
            board[column].append(seat)
            value = -self._negamax(board, height, 1 - seat, depth - 1, -beta, -alpha)
            board[column].pop()
            if value >= beta:
                return value
            alpha = max(alpha, value)
        return alpha


def _score(board: Board, height: int, seat: int) -> int:
    """Open windows of four: each counts 1, 4 or 16 by the discs one side holds in it (mine minus theirs)."""
    width = len(board)

    def cell(c: int, r: int) -> int | None:
        return board[c][r] if r < len(board[c]) else None

    total = 0
    for c in range(width):
        for r in range(height):
            for dc, dr in ((1, 0), (0, 1), (1, 1), (1, -1)):
                end_c, end_r = c + 3 * dc, r + 3 * dr
                if not (0 <= end_c < width and 0 <= end_r < height):
                    continue
                held = [cell(c + i * dc, r + i * dr) for i in range(4)]
                mine, theirs = held.count(seat), held.count(1 - seat)
                if mine and not theirs:
                    total += 4 ** (mine - 1)
                elif theirs and not mine:
                    total -= 4 ** (theirs - 1)
    return total


BOTS: dict[str, type[Bot]] = {"easy": EasyConnectFourBot, "hard": HardConnectFourBot}
