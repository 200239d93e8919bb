"""Checkpoints: between games the whole room is small, so it replaces the command log so far."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

from parlour.rooms.enums import COUNTDOWN, CountdownKind, Role
from parlour.rooms.members import Member
from parlour.rooms.state import RoomState

if TYPE_CHECKING:
    from parlour.rooms.room import Room


class Checkpoints(RoomState):
    """The room as JSON between games, and loading it back during replay."""

    def checkpoint(self) -> dict[str, Any]:
        """The whole room between games, as JSON: replaying it equals replaying the log before it."""
        return {
            "settings": self.settings_raw,
            "public": self.public,
            "bots_take_over": self.bots_take_over,
            "bot_catch_delay": self.bot_catch_delay,
            "password_hash": self.password_hash,
            "capacity": self.capacity,
            "members": [
                {
                    "id": m.id,
                    "session": m.session,
                    "name": m.name,
                    "role": m.role,
                    "seat": m.seat,
                    "ready": m.ready,
                    "connected": m.connected,
                    "bot": m.bot,
                    "bot_options": m.bot_options,
                    "replaced": m.replaced,
                    "origin": m.origin,
                    "profile": m.profile,
                }
                for m in self.members.values()
            ],
            "member_count": self.member_count,
            "host": self.host,
            "chat": list(self.chat),
            "banned": sorted(self.banned),
            "joined": sorted(self.joined),
            "games_played": self.games_played,
            "scoreboard": self.scoreboard,
            "colours": self.colours,
            "recent_games": list(self.recent_games),
            "grace": self.grace,
            "idle": self.idle,
            "forwarded": list(self.forwarded),
            # Started by the command that checkpoints (a rematch with bots, quick play after End game):
            # without it the replay dropped the countdown's end, and the game it started never was.
            "countdown": None if self.countdown is None else list(self.countdown),
        }

    def restore(self, data: dict[str, Any]) -> None:
        """Load a ``checkpoint`` (replay only: the members' sinks are not part of it)."""
        for member in self.members.values():
            if not member.bot:
                self.hooks.membership(member.session, None)
        self._reset_state()
        self.settings_raw = dict(data["settings"])
        self.rules = self.engine.settings(self.settings_raw)
        self.public, self.password_hash, self.capacity = (
            data["public"],
            data["password_hash"],
            data["capacity"],
        )
        self.bots_take_over = data.get("bots_take_over", self.bots_take_over)
        self.bot_catch_delay = data.get("bot_catch_delay", self.bot_catch_delay)
        self.members = {m["id"]: Member(**{**m, "role": Role(m["role"])}) for m in data["members"]}
        self.member_count, self.host = data["member_count"], data["host"]
        self.chat.extend(data["chat"])
        self.banned = set(data["banned"])
        self.joined = set(data.get("joined", ()))  # a checkpoint older than ``joined``: members only
        self.joined.update(m.session for m in self.members.values() if not m.bot)
        self.games_played, self.grace, self.idle = data["games_played"], dict(data["grace"]), data["idle"]
        self.scoreboard = {mid: dict(line) for mid, line in data.get("scoreboard", {}).items()}
        self.colours = dict(data.get("colours", {}))
        self.recent_games.extend(data.get("recent_games", []))
        self.forwarded = dict.fromkeys(data.get("forwarded", ()))
        if data.get("countdown"):
            kind, deadline = data["countdown"]
            self.countdown, self.state = (CountdownKind(kind), deadline), COUNTDOWN
        for member in self.members.values():
            if not member.bot:
                self.hooks.membership(member.session, cast("Room", self))
