"""The room actor: one task per room runs its commands one at a time.

Every change to a room — from any protocol, a bot or a timer — is a ``Command`` on the room's
queue. A command is handled synchronously (``rooms.handlers``), which mutates the room and
collects outbound messages; if it was accepted, its record is appended to the store and only
after that commit are the messages delivered to the members' sinks. Replaying the records
through the same handlers (with delivery switched off) rebuilds the room exactly, which is how
rooms come back after a restart and how a room heals itself if a handler ever raises.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import TYPE_CHECKING, Any, cast

import orjson

from parlour.games import IllegalAction, InvalidSettings
from parlour.rooms import messages
from parlour.rooms.commands import Command, CommandError
from parlour.rooms.enums import CLOSED, PLAYING, EndReason
from parlour.rooms.state import RoomState

if TYPE_CHECKING:
    from parlour.rooms.room import Room

log = logging.getLogger("parlour.rooms")

FAILED_COMMANDS = 64  # fingerprints of failed commands a room remembers


def _fingerprint(cmd: Command) -> str:
    """Who sent which command with what: the same request sent again has the same fingerprint."""
    try:
        payload = orjson.dumps(cmd.payload, option=orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS).decode()
    except TypeError:
        payload = repr(cmd.payload)
    return f"{cmd.kind}\x00{cmd.session}\x00{payload}"


class RoomActor(RoomState):
    """The queue, the run loop, and replay: how commands reach the handlers and their effects the world."""

    def start(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._task = self._loop.create_task(self._run(), name=f"room-{self.code}")

    def submit(self, cmd: Command) -> asyncio.Future[str | None]:
        """Queue a command; the future resolves to None (accepted) or the error code once handled."""
        done: asyncio.Future[str | None] = (self._loop or asyncio.get_running_loop()).create_future()
        if self.state == CLOSED:
            _send_error(cmd, "room_closed", "the room is closed")
            done.set_result("room_closed")
        else:
            self._put((cmd, done))
        return done

    def submit_nowait(self, cmd: Command) -> None:
        """Queue a command whose outcome the caller does not wait for (its sink still gets any error)."""
        if self.state == CLOSED:
            _send_error(cmd, "room_closed", "the room is closed")
        else:
            self._put((cmd, None))

    def _put(self, item: tuple[Command, asyncio.Future[str | None] | None] | None) -> None:
        self._queue.append(item)
        wake = self._wake
        if wake is not None:
            self._wake = None
            if not wake.done():
                wake.set_result(None)

    async def stop(self) -> None:
        """End the task after the commands already queued (server shutdown)."""
        self._timers.cancel_all()
        if self._task is not None and not self._task.done():
            self._put(None)
            await self._task

    async def _run(self) -> None:
        queue = self._queue
        loop = asyncio.get_running_loop()
        room, processed = cast("Room", self), self.hooks.processed  # looked up once, not per command
        perf_counter = time.perf_counter
        while True:
            if not queue:
                wake = self._wake = loop.create_future()
                await wake
                continue
            item = queue.popleft()
            if item is None:
                break
            cmd, done = item
            started = perf_counter()
            error: str | None
            try:
                if self._failed and _fingerprint(cmd) in self._failed:
                    _send_error(cmd, "command_failed", "this request failed before and is refused")
                    error = "command_failed"
                else:
                    error = await self._process(cmd)
            except Exception:
                log.exception("room=%s command=%s failed; rebuilding from the log", self.code, cmd.kind)
                _send_error(cmd, "internal_error", "the server failed handling this request")
                error = "internal_error"
                try:
                    self._rebuild()
                except Exception:  # the log itself no longer replays: keep serving what we have
                    log.exception("room=%s could not be rebuilt from its log", self.code)
            if done is not None and not done.done():
                done.set_result(error)
            processed(room, cmd.kind, error, perf_counter() - started)
            if self.state == CLOSED:
                break
        self._timers.cancel_all()
        while queue:
            item = queue.popleft()
            if item is not None:
                _send_error(item[0], "room_closed", "the room is closed")
                # A queued bot move's future is cancelled when the room closes its driver.
                if item[1] is not None and not item[1].done():
                    item[1].set_result("room_closed")

    async def _process(self, cmd: Command) -> str | None:
        self._out, self._reply, self._record = [], None, None
        records_before, count_before = self.records, len(self.records)
        state_before = self.state
        payload = cmd.payload.copy()  # as sent: handlers may add to it before they fail
        try:
            accepted = self._apply(cmd)
        except CommandError as exc:
            _send_error(cmd, exc.code, exc.message)
            return exc.code
        except IllegalAction as exc:
            _send_error(cmd, exc.code, exc.message)
            return exc.code
        except InvalidSettings as exc:
            _send_error(cmd, exc.code, exc.message)
            return exc.code
        except Exception:
            self._remember_failure(Command(cmd.kind, cmd.session, payload))
            raise
        if accepted:
            try:
                await self.store.append(self.code, self.records[-1], self._record)
            except Exception:
                # Not durable, so it never happened: drop the record; the caller rebuilds from the log.
                del records_before[count_before:]
                self.records = records_before
                raise
        # Registry and lobby first: once a client reads a reply, the manager agrees with it. A game
        # action changes neither who is in the room nor its listing, unless it ends the game.
        if cmd.kind != "action" or self.state != state_before:
            self.hooks.changed(cast("Room", self))
        for send, message in self._out:
            send(message)
        # Free this command's messages now, while their memory is still in the CPU's caches: left
        # to the next command of this room, freeing them was a tenth of the server's CPU under load.
        self._out.clear()
        if cmd.sink is not None and accepted is not None:
            # A bare ``ok`` only answers a request that carries an ``id``: without one it would say
            # nothing the broadcasts do not (an ``ok`` frame was a fifth of the frames per game action).
            # A quiet command (an in-process adapter's move) is not sent the bare ``ok`` it would discard.
            reply = self._reply
            if cmd.request_id is not None:
                if reply is not None or not cmd.quiet:
                    cmd.sink.send({**(reply or messages.OK), "id": cmd.request_id})
            elif reply is not None:
                cmd.sink.send(reply)
        if self.state == CLOSED:
            await self.store.close_room(self.code, self.config.get("closed_reason", "closed"))
        else:
            self._timers.sync(self._deadlines())
        return None

    def _remember_failure(self, cmd: Command) -> None:
        failed = self._failed
        failed[_fingerprint(cmd)] = None
        if len(failed) > FAILED_COMMANDS:
            del failed[next(iter(failed))]

    def _apply(self, cmd: Command) -> bool | None:
        """Handle one command; True if it changed the room (and was logged), False/None if not.

        None means "ignore silently" (a stale timer or disconnect): no reply at all.
        """
        handler = self.handlers.get(cmd.kind)
        if handler is None:
            raise CommandError("unknown_type", f"rooms do not handle {cmd.kind!r}")
        in_game = self.state == PLAYING
        changed = handler(self, cmd)
        if changed:
            record = cmd.record()
            if self._checkpoint_due:
                # Back in the waiting room: the state is small, so it replaces the log so far.
                self._checkpoint_due = False
                self.records = [{"k": "checkpoint", "s": None, "p": self.checkpoint(), "t": cmd.at}]
            else:
                self.records.append(record)
            if in_game or self.state == PLAYING or self._record is not None:
                self.game_log.append(record)
            if self._record is not None:
                self._record.log = self.game_log
        return changed

    def replay(self, records: list[dict[str, Any]]) -> None:
        """Rebuild from logged records without sending anything (startup recovery)."""
        self.replaying = True
        try:
            for record in records:
                self._out, self._reply, self._record = [], None, None
                self._apply(Command.from_record(record))
        finally:
            self.replaying = False
            self._out, self._reply, self._record = [], None, None

    def _rebuild(self) -> None:
        """Make the room equal to its log again after a handler failed half-way."""
        sinks = {m.session: m.sink for m in self.members.values()}
        for member in self.members.values():
            if not member.bot:
                self.hooks.membership(member.session, None)
        records, self.records = self.records, []
        self._reset_state()
        self.replay(records)
        for member in self.members.values():
            member.sink = sinks.get(member.session)
            if not member.connected and not member.bot and not member.replaced and member.sink is not None:
                member.sink.close()  # a takeover the failed command began: its driver goes
                member.sink = None
        self._timers.sync(self._deadlines())

    def after_recovery(self) -> None:
        """Called once the log is replayed at startup: nobody is connected any more."""
        for member in self.members.values():
            if (member.bot or member.replaced) and self.bot_factory is not None:
                member.sink = self.bot_factory(self, member)
                member.sink.send(self.snapshot(member))
            elif not member.bot and not member.replaced:
                self.submit(Command("disconnect", member.session, {"restart": True}))
        self._timers.sync(self._deadlines())

    def _timer_due(self, name: str, deadline: float) -> None:
        self.submit(Command("timer", None, {"name": name, "deadline": deadline}))

    def _deadlines(self) -> dict[str, float]:
        grace = self.grace
        due: dict[str, float] = {f"grace:{mid}": t for mid, t in grace.items()} if grace else {}
        if self.countdown is not None:
            due["countdown"] = self.countdown[1]
        if self.turn is not None and self.turn[1] is not None:
            due["turn"] = self.turn[1]
        if self.idle is not None:
            due["idle"] = self.idle
        return due

    def close(self, reason: EndReason) -> None:
        self.config["closed_reason"] = reason
        self.broadcast(messages.room_closed(reason))
        for member in list(self.members.values()):
            if not member.bot:
                self.hooks.membership(member.session, None)
            if (member.bot or member.replaced) and member.sink is not None and not self.replaying:
                member.sink.close()
        self.state = CLOSED
        self.countdown, self.turn, self.idle = None, None, None
        self.grace.clear()


def _send_error(cmd: Command, code: str, message: str) -> None:
    if cmd.sink is not None:
        cmd.sink.send(messages.error(code, message, cmd.request_id))
