"""A room's scoreboard across games: wins per player, and points summed over rounds and matches for a
game whose scores add up (UNO's).

Kept by member id and shown in the waiting room and on the results screen. A line also holds the
session that played it (never sent): a player who left, or whose seat was given up while they were
away, and who comes back by the same session is a new member, and their line moves over to it
(``rejoined``) instead of a second line under the same name. It is part of the room's checkpoint, so it
survives a restart like the rest of the room.
"""

from __future__ import annotations

from typing import Any

Scoreboard = dict[str, dict[str, Any]]


def record(
    board: Scoreboard,
    points: bool,
    seats: list[dict[str, Any]],
    sessions: list[str],
    outcome: dict[str, Any],
) -> None:
    """Add one game its rules finished with a winner (a game the room ended, ``EndReason``, or that
    nobody won never comes here): every seat played it, the winners won it; ``points``: the game's
    scores add up (``Game.scores_add_up``, UNO's points; not Dots' boxes); ``sessions``: each seat's. A
    tie counts as played, won by none of its tied seats."""
    for seat, session in zip(seats, sessions, strict=True):
        line = board.setdefault(seat["member"], {"name": seat["name"], "games": 0, "wins": 0, "points": 0})
        line["name"], line["session"] = seat["name"], session
        line["games"] += 1
        if seat["seat"] in outcome["winners"] and not outcome.get("tie"):  # a tie is nobody's win
            line["wins"] += 1
        if points:
            line["points"] += int(outcome["scores"].get(str(seat["seat"]), 0))


def rejoined(board: Scoreboard, session: str, member: str) -> None:
    """``session`` is back in the room as ``member``: its line (under the member it was) is now theirs."""
    old = next((mid for mid, line in board.items() if line.get("session") == session), None)
    if old is not None and old != member:
        board[member] = board.pop(old)


def as_list(board: Scoreboard) -> list[dict[str, Any]]:
    """The scoreboard as the wire carries it (no session): most wins first, then most points."""
    lines = [
        {"member": mid, **{key: value for key, value in line.items() if key != "session"}}
        for mid, line in board.items()
    ]
    return sorted(lines, key=lambda line: (-line["wins"], -line["points"], line["name"]))
