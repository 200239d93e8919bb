"""Bots in rooms: the ``bot_factory`` the server installs to seat a bot member.

The room hands each bot member a sink (see ``parlour.rooms.members.BotFactory``). This driver keeps
the seat's ``Bot`` behind it: game messages carry the seat's events and view, which is all the bot
is shown; when the seat may act, the driver waits a human-like moment, asks the bot off the event
loop (a worker thread, so a 50 ms Dots search never holds up other rooms), and submits the choice
as an engine action like any client command. A stale choice is simply refused by the room, and the
next game message triggers a fresh one.

It lives in the room layer because it speaks the room's command type: imports point downward only
(games ← bots ← rooms ← net), so the players themselves (``parlour.bots``) import only
``parlour.games`` and this module is where rooms and bots meet.

A driver can also play a human's seat: attach it as that member's sink mid-game and send it the
member's snapshot; it then acts in the wire format, as the member would (a takeover when the
member's disconnect grace runs out needs the room to do exactly that, and to detach it on resume).
"""

from __future__ import annotations

import asyncio
import logging
import random
from collections import deque
from typing import Any

from parlour.bots.base import Bot
from parlour.bots.catalog import bot_levels, make_bot
from parlour.rooms.commands import Command
from parlour.rooms.enums import PLAYING
from parlour.rooms.members import BotFactory

log = logging.getLogger("parlour.bots")

DEFAULT_LEVEL = "easy"
TAKEOVER_LEVEL = "hard"
"""A bot standing in for a dropped player plays their hand as well as it can: it is still their game."""


def bot_level(game: str, requested: str | None, default: str = DEFAULT_LEVEL) -> str:
    """The level a bot asked for at ``requested`` plays ``game`` at (the default, or the game's first)."""
    levels = bot_levels(game)
    level = requested or default
    if level not in levels:
        level = default if default in levels or not levels else levels[0]
    return level


class BotDriver:
    """The sink of one bot member: remembers what its seat saw and acts when the seat may."""

    log = False  # a bot never reads the game log (``Sink``)

    def __init__(
        self, room: Any, member: Any, command: Any = Command, delay: tuple[float, float] = (0.0, 0.0)
    ) -> None:
        self.room = room
        self.member = member
        self.command = command
        self.delay = delay  # seconds (min, max) before acting, drawn uniformly
        self.rng = random.Random()
        self.bot: Bot | None = None
        self.events: deque[list[dict[str, Any]]] = deque()
        self.task: asyncio.Task[None] | None = None
        self.dirty = False  # a message arrived since the current decision began
        self.changed_at = 0.0  # loop time of the last game message: the table's last change
        self.closed = False
        self.last_acted: dict[int, float] = {}  # seat → when an event last named it (its move)

    # The sink protocol: called from the room's task, so nothing here may block.

    def send(self, message: dict[str, Any]) -> None:
        if self.closed:
            return
        kind = message.get("type")
        if kind in ("error", "ok"):  # replies to our own moves: the next game message says what counts
            return
        self.dirty = True
        if kind == "game_started":
            self.bot, self.events = None, deque()
        if kind in ("game_started", "game"):
            self.changed_at = asyncio.get_running_loop().time()
            self.events.append(message["events"])
            self._note_activity(message["events"])
            self._schedule()
        elif kind == "room" and message.get("state") == PLAYING:
            self._schedule()  # a snapshot mid-game: after a restart, or a seat taken over

    def close(self, code: int = 1000, reason: str = "") -> None:
        self.closed = True
        if self.task is not None:
            self.task.cancel()

    def _note_activity(self, events: list[dict[str, Any]]) -> None:
        """Remember when each seat last did something (an event naming it: a slip, such as a play that
        left UNO uncalled, is such an event)."""
        now = asyncio.get_running_loop().time()
        for event in events:
            seat = event.get("seat")
            if type(seat) is int:
                self.last_acted[seat] = now

    def _catch_wait(self, action: Any) -> float:
        """Seconds to hold back an action that punishes a human's slip (``Game.slip_target``: UNO's
        catch): the room's ``bot_catch_delay`` after that human last acted."""
        target = self.room.engine.slip_target(action)
        seats = self.room.seats
        if target is None or not 0 <= target < len(seats):
            return 0.0
        member = self.room.members.get(seats[target]["member"])
        if member is None or member.bot:
            return 0.0
        since = self.last_acted.get(target)
        if since is None:
            return self.room.bot_catch_delay
        return since + self.room.bot_catch_delay - asyncio.get_running_loop().time()

    # Acting.

    def _schedule(self) -> None:
        if self.task is None or self.task.done():
            self.task = asyncio.get_running_loop().create_task(self._act())

    def _seat(self) -> int | None:
        room = self.room
        # Nor while every person seated is away: the room sends a snapshot when one is back.
        if self.closed or room.state != PLAYING or room.game is None or room.all_away:
            return None
        return room.game_seat(self.member)

    def _ensure_bot(self, seat: int) -> Bot:
        if self.bot is None or self.bot.seat != seat:
            default = DEFAULT_LEVEL if self.member.bot else TAKEOVER_LEVEL
            level = bot_level(self.room.game_name, self.member.bot_options.get("level"), default)
            self.bot = make_bot(self.room.game_name, level, seat, self.rng)
        return self.bot

    async def _act(self) -> None:
        """Act until nothing new arrived while we were busy (a message during thinking reschedules)."""
        loop = asyncio.get_running_loop()
        while True:
            self.dirty = False
            low, high = self.delay
            think = self.rng.uniform(low, high) if high > 0 else 0
            # Even with no delay, yield once: the room finishes delivering this command's messages.
            await asyncio.sleep(think)
            # The time to think counts from the table's last change, not from the message that began
            # the wait: a bot whose wait began a move earlier covered that move's card in a blink.
            while (late := self.changed_at + think - loop.time()) > 0:
                await asyncio.sleep(late)
            await self._act_once()
            if not self.dirty:
                return

    async def _act_once(self) -> None:
        seat = self._seat()
        if seat is None:
            return
        bot = self._ensure_bot(seat)
        while self.events:
            bot.observe(self.events.popleft())
        engine, game = self.room.engine, self.room.game
        legal = engine.legal_actions(game, seat)
        if not legal:
            return
        view = engine.view(game, seat)
        try:
            action = await asyncio.get_running_loop().run_in_executor(None, bot.choose, view, legal)
        except Exception:
            log.exception("room=%s bot %s failed to choose", self.room.code, self.member.id)
            action = legal[0] if engine.to_act(game)[:1] == [seat] else None
        if action is None or self._seat() != seat:
            return
        wait = self._catch_wait(action)
        if wait > 0:
            # Give the human the time to press UNO!; then catch only if they still have not.
            await asyncio.sleep(wait)
            if self._seat() != seat or action not in engine.legal_actions(self.room.game, seat):
                self.dirty = True  # decide afresh on what the table looks like now
                return
        # Bot members may send the engine action itself; a human's seat taken over sends the wire form.
        payload = {"engine_action": action} if self.member.bot else {"action": engine.format_action(action)}
        # Sent through this driver: once the seat's human is back (or the bot removed), the room
        # ignores a move that was still on its way.
        await self.room.submit(self.command("action", self.member.session, payload, self))


def bot_factory(delay: tuple[float, float]) -> BotFactory:
    """The ``BotFactory`` the server installs: a driver for each bot member (its
    ``bot_options["level"]``: easy/hard) that waits ``delay`` seconds (``Config.bot_delay``) before acting."""

    def factory(room: Any, member: Any) -> BotDriver:
        return BotDriver(room, member, Command, delay)

    return factory
