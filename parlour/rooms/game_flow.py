"""The game's lifecycle in a room: the automatic-start countdown, the game, its turn clock and its end."""

from __future__ import annotations

import itertools
from typing import Any

from parlour.games import Event
from parlour.rooms import messages, scoreboard
from parlour.rooms.bot_seats import bot_level
from parlour.rooms.commands import Command, CommandError
from parlour.rooms.enums import BEFORE_START, COUNTDOWN, FINISHED, PLAYING, WAITING, CountdownKind, EndReason
from parlour.rooms.members import Member, Message
from parlour.rooms.state import HURRIED_TURN, HURRY_AFTER, RoomState
from parlour.store import GameRecord


def outcome_json(outcome: Any) -> dict[str, Any]:
    return {
        "winners": list(outcome.winners),
        "scores": {str(k): v for k, v in outcome.scores.items()},
        "reason": outcome.reason,
        "tie": outcome.tie,
    }


class GameFlow(RoomState):
    """waiting → countdown → playing → finished → waiting: starting, advancing and ending a game."""

    def update_countdown(self, at: float, joined: bool = False) -> None:
        """Start, restart or cancel the automatic start (ready-all, or quick play's join clock)."""
        if self.state not in BEFORE_START:
            return
        players = self.players()
        enough = len(players) >= self.engine.min_players
        if self.quick_play:
            # Its clock waits for more players; a full table has nobody left to wait for (two in a
            # Connect Four room sat through 10 s told more might join), so it starts as a ready one does.
            seconds = self.timings.quick_play_countdown
            if len(players) >= self.capacity:
                seconds = min(seconds, self.timings.ready_countdown)
            kind = CountdownKind.QUICK_PLAY if enough else None
        else:
            all_ready = enough and all(p.ready for p in players)
            kind, seconds, joined = (
                (CountdownKind.READY if all_ready else None),
                self.timings.ready_countdown,
                False,
            )
        if kind is None:
            if self.countdown is not None:
                self.countdown, self.state = None, WAITING
                self.broadcast(messages.countdown(None, None, None))
            return
        if self.countdown is None or joined:
            self.countdown, self.state = (kind, at + seconds), COUNTDOWN
            self.broadcast(self.countdown_message())

    def require_players(self) -> None:
        """Refuse a start short of the game's minimum number of seated players."""
        if len(self.players()) < self.engine.min_players:
            raise CommandError(
                "not_enough_players", f"{self.game_name} needs {self.engine.min_players} players"
            )

    def start_game(self, cmd: Command) -> None:
        import random
        import secrets

        self.require_players()
        players = self.players()
        seed = cmd.payload.setdefault("seed", secrets.randbits(63))
        # The first move goes round the table from game to game (a log from before it did has none:
        # its games all opened with seat 0).
        opener = cmd.payload.setdefault("opener", 0 if self.replaying else self.games_played % len(players))
        self.seats, self.seat_sessions, self.seat_tags, self.seats_lost = [], [], {}, {}
        for seat, (member, colour) in enumerate(zip(players, self._colours(players), strict=True)):
            member.seat, member.ready = seat, False
            self.seats.append({"seat": seat, "member": member.id, "name": member.name, "colour": colour})
            self.seat_sessions.append(member.session)
            if member.bot:
                self.seat_tags[seat] = {"bot": bot_level(self.game_name, member.bot_options.get("level"))}
            elif member.profile is not None:
                self.seat_tags[seat] = {"profile": member.profile}
        self.game = self.engine.setup(self.rules, len(players), random.Random(seed), opener)
        self.seed, self.started_at, self.seq = seed, cmd.at, 0
        self.games_played += 1
        self.game_log, self.outcome, self.countdown = [], None, None
        self._new_table_log()
        self.state = PLAYING
        self.turn, self.missed = None, {}
        self.set_turn(cmd.at, None)
        self.all_away = False  # told with the game's start, below, if its seated people are all away
        events = self.engine.start_events(self.game)
        self.broadcast_game("game_started", events)
        self.check_away(cmd.at)
        self.check_over(cmd.at)

    def _colours(self, players: list[Member]) -> list[int]:
        """Each player's colour for the game: the one they had, unless another player had it first (seat
        order), else the lowest no player has."""
        keys = [m.session or m.id for m in players]
        kept: list[int | None] = []
        taken: set[int] = set()
        for key in keys:
            colour = self.colours.get(key)
            kept.append(None if colour is None or colour in taken else colour)
            if colour is not None:
                taken.add(colour)
        free = (c for c in itertools.count() if c not in taken)
        chosen = [next(free) if colour is None else colour for colour in kept]
        self.colours.update(zip(keys, chosen, strict=True))
        return chosen

    def game_events(self, events: list[Event], at: float, actor: int | None, *, by_bot: bool = False) -> None:
        """After the engine changed the game: tell everyone, move the clock, detect the end. ``by_bot``:
        the actor's seat is played by a bot while its player is away (its log entries say so)."""
        self.seq += 1
        self.set_turn(at, actor)
        self.broadcast_game("game", events, actor if by_bot else None)
        self.check_over(at)

    def set_turn(self, at: float, actor: int | None) -> None:
        """The clock restarts when the seat on it changes or that seat acted, and when a pause of the
        game's begins or ends; others acting don't reset it."""
        to_act = self.engine.to_act(self.game) if self.state == PLAYING else []
        if not to_act:
            self.turn = None
            return
        seat = to_act[0]
        pause = self.engine.pause(self.game)
        if self.turn is not None and self.turn[0] == seat and actor != seat and (pause > 0) is self.paused:
            return
        limit = self._turn_limit(seat, pause)
        self.turn, self.paused = (seat, at + limit if limit else None), pause > 0

    def _turn_limit(self, seat: int, pause: int) -> float:
        """Seconds on ``seat``'s clock: the game's pause, else the turn timer, short for a seat that
        let it run out ``HURRY_AFTER`` times in a row (``missed``); 0 for no clock."""
        if pause:
            return pause
        limit = self.engine.turn_timer(self.rules)
        return min(limit, HURRIED_TURN) if limit and self.hurried(seat) else limit

    def hurried(self, seat: int) -> bool:
        """Whether ``seat``'s turns are short: its clock ran out on its last ``HURRY_AFTER`` turns."""
        return self.missed.get(seat, 0) >= HURRY_AFTER

    def restart_clock(self, at: float) -> None:
        """The seat on turn starts its clock again in full (nobody could move for it meanwhile)."""
        if self.turn is not None and self.turn[1] is not None:
            self.turn = (self.turn[0], at + self._turn_limit(self.turn[0], self.engine.pause(self.game)))

    def check_over(self, at: float) -> None:
        outcome = self.engine.outcome(self.game)
        if outcome is None or self.state != PLAYING:
            return
        self.outcome = outcome_json(outcome)
        record = self.end_game(at, self.outcome)
        # Finished by the rules with a winner, the game counts in each seat's stats and on the room's
        # scoreboard. Nobody won Cheat's too-few-players end, nor lost it: like a game the room
        # abandoned, it counts for nobody.
        if outcome.winners:
            for player in record.players:
                player["stats"] = self.engine.player_stats(self.game, outcome, player["seat"])
            scoreboard.record(
                self.scoreboard, self.engine.scores_add_up, self.seats, self.seat_sessions, self.outcome
            )
        board = scoreboard.as_list(self.scoreboard)
        self.broadcast(messages.game_over(self.outcome, self.seats, board, record.id))
        self.release_replaced(at)

    def check_deserted(self, at: float) -> None:
        """A game nobody is playing any more ends: once every person seated in it has left (a bot
        playing for one who dropped out still holds their seat), bots would otherwise play it out
        for the spectators, a result nobody played for. Like a game the host ended, it counts for
        nobody; unlike one, everyone is shown why (``game_over``)."""
        if self.state != PLAYING:
            return
        if any(not m.bot and self.game_seat(m) is not None for m in self.members.values()):
            return
        self.outcome = {"winners": [], "scores": {}, "reason": EndReason.DESERTED, "tie": False}
        record = self.end_game(at, self.outcome)
        self.broadcast(
            messages.game_over(self.outcome, self.seats, scoreboard.as_list(self.scoreboard), record.id)
        )

    def end_game(self, at: float, result: Message) -> GameRecord:
        """Leave ``playing`` and keep the game's record (saved with this command's log entry); the
        room lists it among its recent games (for their replays)."""
        self.state, self.turn, self.all_away = FINISHED, None, False
        players = [{**s, "session": sess} for s, sess in zip(self.seats, self.seat_sessions, strict=True)]
        for seat, tags in self.seat_tags.items():
            players[seat].update(tags)
        record = self._record = GameRecord(
            self.code,
            self.games_played,
            self.game_name,
            self.settings_raw,
            self.seed,
            players,
            result,
            self.started_at,
            at,
            [],
            private=self.password_hash is not None or not self.public,
        )
        names = {s["seat"]: s["name"] for s in self.seats}
        entry: Message = {
            "id": record.id,
            "game": self.game_name,
            "winners": [names[w] for w in result["winners"] if w in names],
            "tie": bool(result.get("tie")),
            "reason": result["reason"],
            "ended_at": at,
        }
        if record.private:
            # Its replay opens only for its players (net/replay.py): listed only to them (``snapshot``).
            entry["players"] = sorted({p["profile"] for p in players if p.get("profile")})
        self.recent_games.append(entry)
        return record

    def to_waiting(self) -> None:
        """Back to the waiting room (rematch, reset): seats renumbered, everyone unready."""
        self.state, self.countdown, self.turn = WAITING, None, None
        self.game, self.outcome, self.seats, self.seat_sessions, self.seat_tags = None, None, [], [], {}
        self.seats_lost = {}
        for seat, member in enumerate(self.players()):
            member.seat, member.ready = seat, member.bot
        self._checkpoint_due = True
