"""A room's scoreboard across games: wins per player, and points summed over rounds and matches for a
game whose scores add up (UNO's).

Kept by member id (a player who leaves and comes back by the same session keeps their line) and
shown in the waiting room and on the results screen. It is part of the room's checkpoint, so it
survives a restart like the rest of the room.
"""

from __future__ import annotations

from typing import Any

Scoreboard = dict[str, dict[str, Any]]


def record(board: Scoreboard, points: bool, seats: list[dict[str, Any]], outcome: dict[str, Any]) -> None:
    """Add one game its rules finished with a winner (a game the room ended, ``EndReason``, or that
    nobody won never comes here): every seat played it, the winners won it; ``points``: the game's
    scores add up (``Game.scores_add_up``, UNO's points; not Dots' boxes). A tie counts as played, won by
    none of its tied seats."""
    for seat in seats:
        line = board.setdefault(seat["member"], {"name": seat["name"], "games": 0, "wins": 0, "points": 0})
        line["name"] = seat["name"]
        line["games"] += 1
        if seat["seat"] in outcome["winners"] and not outcome.get("tie"):  # a tie is nobody's win
            line["wins"] += 1
        if points:
            line["points"] += int(outcome["scores"].get(str(seat["seat"]), 0))


def as_list(board: Scoreboard) -> list[dict[str, Any]]:
    """The scoreboard as the wire carries it: most wins first, then most points."""
    lines = [{"member": mid, **line} for mid, line in board.items()]
    return sorted(lines, key=lambda line: (-line["wins"], -line["points"], line["name"]))
