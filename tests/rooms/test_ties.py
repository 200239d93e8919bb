"""A tie is played by its seats and won by none of them: the room's scoreboard and a player's totals
(history, profile, leaderboard) both count it so, whatever the game names its tied seats."""

from __future__ import annotations

from parlour.rooms import scoreboard
from parlour.store import GameRecord
from parlour.store.base import player_games

SEATS = [{"seat": 0, "member": "m1", "name": "Ada"}, {"seat": 1, "member": "m2", "name": "Bo"}]


def outcome(winners: list[int], tie: bool) -> dict:
    return {"winners": winners, "scores": {"0": 2, "1": 2 if tie else 1}, "reason": "finished", "tie": tie}


def test_the_scoreboard_counts_a_tie_as_played_and_a_win_only_when_won() -> None:
    board: scoreboard.Scoreboard = {}
    scoreboard.record(board, False, SEATS, ["s1", "s2"], outcome([0, 1], tie=True))
    assert [(line["name"], line["games"], line["wins"]) for line in scoreboard.as_list(board)] == [
        ("Ada", 1, 0),
        ("Bo", 1, 0),
    ]
    scoreboard.record(board, False, SEATS, ["s1", "s2"], outcome([0], tie=False))
    assert [(line["name"], line["games"], line["wins"]) for line in scoreboard.as_list(board)] == [
        ("Ada", 2, 1),
        ("Bo", 2, 0),
    ]


def record(result: dict) -> GameRecord:
    players = [
        {"seat": 0, "name": "Ada", "profile": "p_ada", "stats": {"boxes": 2}},
        {"seat": 1, "name": "Bot 2", "bot": "hard", "stats": {"boxes": result["scores"]["1"]}},
    ]
    return GameRecord("ABCDE", 1, "dots", {}, 7, players, result, 0.0, 1.0, [])


def test_a_players_totals_count_a_tie_as_played_not_won() -> None:
    tied = player_games(record(outcome([0, 1], tie=True)))
    assert [(p.profile, p.counted, p.won) for p in tied] == [
        ("p_ada", True, False),
        ("bot-dots-hard", True, False),
    ]
    won = player_games(record(outcome([0], tie=False)))
    assert [(p.profile, p.won) for p in won] == [("p_ada", True), ("bot-dots-hard", False)]
