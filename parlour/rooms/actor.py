"""The room actor: each room runs its commands one at a time, without a task of its own.

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
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, cast

import orjson

from parlour.games import IllegalAction, InvalidSettings
from parlour.rooms import messages
from parlour.rooms.commands import Command, CommandError
from parlour.rooms.enums import CLOSED, PLAYING, EndReason, Phase
from parlour.rooms.state import FORWARDED_HISTORY, RoomState
from parlour.store import Fenced

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
    """The queue, the command cycle, and replay: how commands reach the handlers and their effects the world.

    No task of its own: a command is handled in its sender's call (a connection's read, a bot, a
    timer) up to the store append, and the rest of it — delivery, the reply, the timers — runs as
    the continuation the store calls once the append has committed. Commands that arrive
    meanwhile wait in ``_queue`` and run, in order, from that continuation. A task per room cost
    two task steps (its wake-up and the append's future) and two loop passes per command.
    """

    def start(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._busy = False
        self._drain()

    def submit(self, cmd: Command) -> asyncio.Future[str | None]:
        """Queue a command; the future resolves to None (accepted) or the error code once handled."""
        done: asyncio.Future[str | None] = (self._loop or asyncio.get_running_loop()).create_future()
        if self.state == CLOSED:
            _send_error(cmd, "room_closed", "the room is closed")
            done.set_result("room_closed")
        elif self._halted:
            self._not_run(cmd, done)
        else:
            self._put((cmd, done))
        return done

    def submit_nowait(self, cmd: Command) -> None:
        """Queue a command whose outcome the caller does not wait for (its sink still gets any error)."""
        if self.state == CLOSED:
            _send_error(cmd, "room_closed", "the room is closed")
        elif self._halted:
            self._not_run(cmd, None)
        else:
            self._put((cmd, None))

    def _put(self, item: tuple[Command, asyncio.Future[str | None] | None] | None) -> None:
        self._queue.append(item)
        if not self._busy:
            self._drain()

    async def stop(self) -> None:
        """Stop after the commands already queued (server shutdown)."""
        self._timers.cancel_all()
        if self._loop is not None and not self._halted:  # started, still running
            if self._stopped is None:
                self._stopped = self._loop.create_future()
                self._put(None)
            await self._stopped
        if self._closing is not None:
            await self._closing

    def _drain(self) -> None:
        """Run queued commands until one waits for its commit (its continuation drains on)."""
        if self._draining:  # a continuation the store ran inline, inside this loop: it goes on
            return
        self._draining = True
        queue = self._queue
        try:
            while queue and not self._busy:
                item = queue.popleft()
                if item is None:
                    self._halt()
                    break
                self._begin(*item)
        finally:
            self._draining = False

    def _begin(self, cmd: Command, done: asyncio.Future[str | None] | None) -> None:
        """Handle ``cmd`` up to its append; a command that logs nothing finishes here."""
        self._busy, self._started = True, time.perf_counter()
        if self._failed and _fingerprint(cmd) in self._failed:
            self._refuse(cmd, done, "command_failed", "this request failed before and is refused")
            return
        self._out, self._reply, self._record = [], None, None
        if self._removed:
            self._removed.clear()
        records_before, count_before = self.records, len(self.records)
        state_before = self.state
        payload = cmd.payload.copy()  # as sent: handlers may add to it before they fail
        try:
            accepted = self._apply(cmd)
        except (CommandError, IllegalAction, InvalidSettings) as exc:
            self._refuse(cmd, done, exc.code, exc.message)
            return
        except Exception as exc:
            self._remember_failure(Command(cmd.kind, cmd.session, payload))
            self._fail(cmd, done, exc)
            return
        if not accepted:
            self._deliver(cmd, done, accepted, state_before)
            return
        self._waiting = (cmd, done, state_before, records_before, count_before)
        try:
            self.store.append_then(self.code, self.records[-1], self._record, self._committed)
        except Exception as exc:  # not queued, so never committed: as a failed commit
            self._committed(exc)

    def _refuse(self, cmd: Command, done: asyncio.Future[str | None] | None, code: str, message: str) -> None:
        try:
            _send_error(cmd, code, message)
        except Exception as exc:  # a sink that raised: as a handler that raises
            self._fail(cmd, done, exc)
            return
        self._finish(cmd, done, code)

    @property
    def settled(self) -> bool:
        """No command is between changing the room and its commit: all the room holds is committed.
        (A handler runs, and a failed one is undone, in one call: nothing reads the room meanwhile.)"""
        return self._waiting is None

    def when_settled(self, call: Callable[[], None]) -> None:
        """Run ``call`` once the room is ``settled``: now, or once the command being committed has been
        delivered (or undone, if its commit failed), before the next command runs."""
        if self._waiting is None:
            call()
        else:
            self._settle_calls.append(call)

    def _committed(self, error: BaseException | None) -> None:
        """The store's call once the waiting command's append committed (or failed); then drain on."""
        waiting = self._waiting
        if waiting is None:  # pragma: no cover - the store calls back once per append
            return
        cmd, done, state_before, records_before, count_before = waiting
        if error is None:
            self._waiting = None
            self._deliver(cmd, done, True, state_before)
        else:
            # Not durable, so it never happened: drop the record, then rebuild from the log. The room
            # is settled only once rebuilt (``_fail``): until then its game may show the change.
            del records_before[count_before:]
            self.records = records_before
            self._fail(cmd, done, error)
            self._waiting = None
        if self._settle_calls:
            self._run_settle_calls()
        self._drain()

    def _run_settle_calls(self) -> None:
        calls, self._settle_calls = self._settle_calls, []
        for call in calls:
            try:
                call()
            except Exception:  # a reader's failure is its own: the room goes on
                log.exception("room=%s a call waiting for the commit failed", self.code)

    def _deliver(
        self,
        cmd: Command,
        done: asyncio.Future[str | None] | None,
        accepted: bool | None,
        state_before: Phase,
    ) -> None:
        """Send what the command produced (after its commit, if it logged a record)."""
        try:
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
                # nothing the broadcasts do not (an ``ok`` frame was a fifth of the frames per game
                # action). A quiet command (an in-process adapter's move) is not sent the bare ``ok``
                # it would discard.
                reply = self._reply
                if cmd.request_id is not None:
                    if reply is not None or not cmd.quiet:
                        cmd.sink.send({**(reply or messages.OK), "id": cmd.request_id})
                elif reply is not None:
                    cmd.sink.send(reply)
            if self.state == CLOSED:
                self._closing = (self._loop or asyncio.get_running_loop()).create_task(self._close(cmd, done))
                return
            self._timers.sync(self._deadlines())
        except Exception as exc:
            self._fail(cmd, done, exc)
            return
        self._finish(cmd, done, None)

    async def _close(self, cmd: Command, done: asyncio.Future[str | None] | None) -> None:
        """The command that closed the room finishes once the store has marked it closed."""
        try:
            await self.store.close_room(self.code, self.config.get("closed_reason", "closed"))
        except Exception as exc:
            self._fail(cmd, done, exc)
            return
        self._finish(cmd, done, None)

    def _fail(self, cmd: Command, done: asyncio.Future[str | None] | None, exc: BaseException) -> None:
        """A handler, the append or the delivery raised: answer ``internal_error``, rebuild from the log.

        An append refused because another node owns the room now (``Fenced``: this node was paused or
        cut off) is no fault of the command: it finishes as ``moved``, and a request another node
        forwarded is not answered from here, since that node sends it on to the new owner."""
        fenced = isinstance(exc, Fenced)
        if fenced:
            log.warning(
                "event=command_fenced room=%s command=%s; another node owns the room", self.code, cmd.kind
            )
        else:
            log.error("room=%s command=%s failed; rebuilding from the log", self.code, cmd.kind, exc_info=exc)
        if not (fenced and getattr(cmd.sink, "retried", False)):
            _send_error(cmd, "internal_error", "the server failed handling this request")
        try:
            self._rebuild()
        except Exception:  # the log itself no longer replays: keep serving what we have
            log.exception("room=%s could not be rebuilt from its log", self.code)
        self._finish(cmd, done, "moved" if fenced else "internal_error")

    def _finish(self, cmd: Command, done: asyncio.Future[str | None] | None, error: str | None) -> None:
        if done is not None and not done.done():
            done.set_result(error)
        if cmd.fid is not None:
            self.hooks.forwarded_done(cast("Room", self), cmd, error)
        self.hooks.processed(cast("Room", self), cmd.kind, error, time.perf_counter() - self._started)
        if self.state == CLOSED:
            self._halt()
        else:
            self._busy = False

    def _halt(self) -> None:
        """No command runs any more (closed or stopped): what is still queued is refused."""
        self._busy = self._halted = True
        self._timers.cancel_all()
        queue = self._queue
        while queue:
            item = queue.popleft()
            if item is None:
                continue
            if self.state != CLOSED:
                self._not_run(*item)
                continue
            _send_error(item[0], "room_closed", "the room is closed")
            # A queued bot move's future is cancelled when the room closes its driver.
            if item[1] is not None and not item[1].done():
                item[1].set_result("room_closed")
        if self._stopped is not None and not self._stopped.done():
            self._stopped.set_result(None)

    def _not_run(self, cmd: Command, done: asyncio.Future[str | None] | None) -> None:
        """A command the room stopped before running: the room is not gone, only leaving this server
        (a shutdown, or another node taking it over), so it finishes as ``moved``. A request another
        node forwarded is not answered here (that node sends it on to the next owner, as after a
        fence); anyone else is asked to try again."""
        if not getattr(cmd.sink, "retried", False):
            _send_error(cmd, "room_unavailable", "the room is moving to another server; try again")
        if done is not None and not done.done():
            done.set_result("moved")
        if cmd.fid is not None:
            self.hooks.forwarded_done(cast("Room", self), cmd, "moved")

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
        fid = cmd.fid
        if fid is not None and fid in self.forwarded:
            return None  # applied before this room moved here (and answered then): not again
        in_game = self.state == PLAYING
        changed = handler(self, cmd)
        if changed:
            if fid is not None:
                forwarded = self.forwarded
                forwarded[fid] = None
                if len(forwarded) > FORWARDED_HISTORY:
                    del forwarded[next(iter(forwarded))]
            record = cmd.record()
            # Back in the waiting room the state is small, so a checkpoint replaces the log so far;
            # not when the same command also started the next game (the host's Start in a finished
            # room): a checkpoint holds no game, so the log goes on, replayed through that handler.
            due, self._checkpoint_due = self._checkpoint_due, False
            if due and self.state != PLAYING:
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
        # The connections as they were before the failed command: it may have taken members out.
        sinks = {m.session: m.sink for m in (*self._removed, *self.members.values())}
        self._removed.clear()
        for member in self.members.values():
            if not member.bot:
                self.hooks.membership(member.session, None)
        records, self.records = self.records, []
        self._reset_state()
        self.replay(records)
        for member in self.members.values():
            sink = sinks.get(member.session)
            if (member.bot or member.replaced) and self.bot_factory is not None:
                # A new driver: the failed command may have closed the old one (a kicked bot).
                if sink is not None:
                    sink.close()
                member.sink = self.bot_factory(self, member)
                member.sink.send(self.snapshot(member))
                continue
            member.sink = sink
            if not member.connected and not member.bot and not member.replaced and sink is not None:
                sink.close()  # a takeover the failed command began: its driver goes
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
        # The seat on turn starts its clock again in full: it ran on while the server was down and
        # nobody could move ("Moves wait until it is back"), and the move was made for them as soon
        # as the room came back.
        self.restart_clock(time.time())
        self._timers.sync(self._deadlines())

    def _timer_due(self, name: str, deadline: float) -> None:
        self.submit(Command("timer", None, {"name": name, "deadline": deadline}))

    def _deadlines(self) -> dict[str, float]:
        grace = self.grace
        due: dict[str, float] = {f"grace:{mid}": t for mid, t in grace.items()} if grace else {}
        if self.countdown is not None:
            due["countdown"] = self.countdown[1]
        if self.turn is not None and self.turn[1] is not None and not self.all_away:
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
