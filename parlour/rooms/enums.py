"""The room's fixed vocabularies. ``StrEnum``: each member is its wire string, so messages, logs and
checkpoints read exactly as before, and comparing with a plain string still works."""

from __future__ import annotations

from enum import StrEnum


class Phase(StrEnum):
    """A room's ``state``: waiting → countdown → playing → finished → waiting …, or closed for good."""

    WAITING = "waiting"
    COUNTDOWN = "countdown"
    PLAYING = "playing"
    FINISHED = "finished"
    CLOSED = "closed"


class Role(StrEnum):
    PLAYER = "player"
    SPECTATOR = "spectator"


class CountdownKind(StrEnum):
    """Why a game is about to start: everyone is ready, or quick play's join clock."""

    READY = "ready"
    QUICK_PLAY = "quick_play"


class LeaveReason(StrEnum):
    """``member_left.reason``."""

    LEFT = "left"
    KICKED = "kicked"
    TIMEOUT = "timeout"  # the disconnect grace ran out (or, after a game, a bot stood in until it did)


class EndReason(StrEnum):
    """Why the room ended a game (an abandoned game's ``outcome.reason``) or closed (``room_closed``)."""

    RESET = "reset"
    TERMINATED = "terminated"
    IDLE = "idle"


BETWEEN_GAMES = frozenset({Phase.WAITING, Phase.FINISHED})
BEFORE_START = frozenset({Phase.WAITING, Phase.COUNTDOWN})
OPEN_FOR_PLAYERS = frozenset({Phase.WAITING, Phase.COUNTDOWN, Phase.FINISHED})
