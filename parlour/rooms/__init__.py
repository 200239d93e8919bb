"""Rooms: one actor per room, plus the manager that owns sessions, codes, lobby and recovery."""

from parlour.rooms.commands import Command, CommandError
from parlour.rooms.manager import Manager, RoomLimits, Session
from parlour.rooms.members import BotFactory, CallbackSink, Member, Sink
from parlour.rooms.room import Room, RoomHooks, Timings

__all__ = [
    "BotFactory",
    "CallbackSink",
    "Command",
    "CommandError",
    "Manager",
    "Member",
    "Room",
    "RoomHooks",
    "RoomLimits",
    "Session",
    "Sink",
    "Timings",
]
