"""A room: one actor per room, put together from its parts (see docs/architecture.md).

- ``state``: the room's data (``RoomState``), ``Timings`` and ``RoomHooks``;
- ``actor``: the command queue, the run loop, replay and rebuild;
- ``membership``: members, seats, the host, bot takeover;
- ``game_flow``: countdown, start, turns, end of a game;
- ``outbound``: sending, broadcasting, snapshots and lobby summaries;
- ``checkpoint``: the room between games as JSON.

The command handlers (``rooms.handlers``) are passed to the room as its ``handlers`` table.
"""

from __future__ import annotations

from parlour.rooms.actor import RoomActor
from parlour.rooms.checkpoint import Checkpoints
from parlour.rooms.game_flow import GameFlow, outcome_json
from parlour.rooms.handlers import HANDLERS
from parlour.rooms.membership import Membership
from parlour.rooms.outbound import Outbound
from parlour.rooms.state import CHAT_HISTORY, RoomHooks, Timings

__all__ = ["CHAT_HISTORY", "Room", "RoomHooks", "Timings", "outcome_json"]


class Room(RoomActor, Membership, GameFlow, Outbound, Checkpoints):
    """One room: configuration, members, chat, the current game, deadlines, and its actor task."""

    handlers = HANDLERS
