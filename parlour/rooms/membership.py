"""Members and seats: joining, leaving, the host role, and a bot taking over a dropped player's seat."""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from parlour.bots.catalog import has_bots
from parlour.rooms import messages, scoreboard
from parlour.rooms.commands import Command, CommandError
from parlour.rooms.enums import PLAYER, PLAYING, LeaveReason, Role
from parlour.rooms.members import Member
from parlour.rooms.state import RoomState

if TYPE_CHECKING:
    from parlour.rooms.room import Room


class Membership(RoomState):
    """Who is in the room, which seat each player has, and who hosts."""

    def member_by_session(self, session: str | None) -> Member | None:
        for member in self.members.values():
            if member.session == session:
                return member
        return None

    def require_member(self, cmd: Command) -> Member:
        member = self.member_by_session(cmd.session)
        if member is None:
            raise CommandError("not_in_room", "you are not in this room")
        return member

    def require_host(self, cmd: Command) -> Member:
        member = self.require_member(cmd)
        if member.id != self.host:
            raise CommandError("not_host", "only the host may do that")
        return member

    def players(self) -> list[Member]:
        return sorted((m for m in self.members.values() if m.is_player), key=lambda m: m.seat or 0)

    def free_seat(self) -> int:
        taken = {m.seat for m in self.members.values() if m.is_player}
        return next(s for s in range(self.capacity + 1) if s not in taken)

    def add_member(self, session: str, name: str, role: Role, bot: bool = False) -> Member:
        self.member_count += 1
        member = Member(f"m{self.member_count}", session, name, role=role, bot=bot)
        if role == PLAYER:
            member.seat = self.free_seat()
        self.members[member.id] = member
        if self.host is None and not bot:
            self.host = member.id
        if not bot:
            self.joined.add(session)
            self.hooks.membership(session, cast("Room", self))
            scoreboard.rejoined(self.scoreboard, session, member.id)
        return member

    def remove_member(self, member: Member, reason: LeaveReason, at: float) -> None:
        """Take a member out; mid-game a seated player's departure goes through the game's leave rule."""
        seat = self.game_seat(member)
        del self.members[member.id]
        if not self.replaying:
            self._removed.append(member)
        self.grace.pop(member.id, None)
        if member.replaced:
            member.replaced = False
            if member.sink is not None and not self.replaying:
                member.sink.close()  # the bot that played the seat
            member.sink = None
        if not member.bot:
            self.hooks.membership(member.session, None)
        self.broadcast(messages.member_left(member.id, reason))
        if member.id == self.host:
            self.pass_host()
        if self.state == PLAYING and seat is not None:
            self.seats[seat]["left"] = True
            if reason is LeaveReason.KICKED:
                self.seats[seat]["kicked"] = True  # the results say "kicked", not "left"
            elif reason is LeaveReason.TIMEOUT:
                self.seats_lost[member.session] = False
            self.game_events(self.engine.on_leave(self.game, seat), at, None)
            if not member.bot:
                self.check_deserted(at)
        self.update_countdown(at)
        self.update_idle(at)
        self.check_away(at)

    def can_take_over(self, member: Member) -> bool:
        """Whether a bot takes ``member``'s seat now that its grace ran out (instead of the leave rule)."""
        seat = self.game_seat(member)
        return (
            self.bots_take_over
            and self.bot_factory is not None
            and has_bots(self.game_name)
            and self.state == PLAYING
            and seat is not None
            and not self.seats[seat].get("left")
        )

    def take_over(self, member: Member, at: float) -> None:
        """A bot plays ``member``'s seat until they resume (``reconnect``) or the game ends."""
        member.replaced = True
        self.grace.pop(member.id, None)
        if self.bot_factory is not None and not self.replaying:
            member.sink = self.bot_factory(self, member)
            self.send(member, self.snapshot(member))
        self.broadcast(messages.member_updated(member, self.host), exclude=member)
        if member.id == self.host and any(m.connected and not m.bot for m in self.members.values()):
            self.pass_host()

    def hand_back(self, member: Member) -> None:
        """``member`` resumed: its bot stops (the caller attaches the member's own sink)."""
        member.replaced = False
        if member.sink is not None and not self.replaying:
            member.sink.close()
        member.sink = None

    def release_replaced(self, at: float) -> None:
        """The game is over: seats still played by a bot were given up when grace ran out (each
        player, back while the results are up, is told so and shown them, as one back mid-game is)."""
        for member in [m for m in self.members.values() if m.replaced]:
            self.seats_lost[member.session] = True
            self.remove_member(member, LeaveReason.TIMEOUT, at)

    def pass_host(self) -> None:
        """The host role goes to the longest-present connected human, players first."""
        humans = [m for m in self.members.values() if not m.bot]
        ranked = sorted(humans, key=lambda m: (not m.connected, not m.is_player))
        self.host = ranked[0].id if ranked else None
        self.broadcast(messages.host_changed(self.host))

    def game_seat(self, member: Member) -> int | None:
        """The engine seat this member plays in the current (or last) game, if any."""
        seat = member.seat
        if self.game is None or seat is None or not member.is_player or seat >= len(self.seats):
            return None
        return seat if self.seats[seat]["member"] == member.id else None

    def check_away(self, at: float, exclude: Member | None = None) -> None:
        """Note whether every person seated in the game is away (gone offline, or a bot playing for
        them): then nobody moves for them until one is back, neither the turn clock nor the bots. Four
        bots had played a match out alone for a quarter of an hour, and its result counted. Back, the
        seat on turn gets its clock again in full; everyone is sent the clock as it is now."""
        seated = [m for m in self.members.values() if not m.bot and self.game_seat(m) is not None]
        away = self.state == PLAYING and bool(seated) and not any(m.connected for m in seated)
        if away == self.all_away:
            return
        self.all_away = away
        if not away:
            self.restart_clock(at)
        self.broadcast_snapshots(exclude)

    def update_idle(self, at: float) -> None:
        if any(m.connected and not m.bot for m in self.members.values()):
            self.idle = None
        elif self.idle is None:
            self.idle = at + self.timings.empty_room
