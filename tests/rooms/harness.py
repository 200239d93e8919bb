"""In-process room harness: a ``Manager`` over an in-memory store, clients as ``CallbackSink`` inboxes."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from parlour.rooms import CallbackSink, Manager, Session, Timings
from parlour.store import GameRecord, RoomRecord, SessionRecord


class MemoryStore:
    """A ``Store`` kept in dicts."""

    def __init__(self) -> None:
        self.sessions: dict[str, SessionRecord] = {}
        self.rooms: dict[str, RoomRecord] = {}
        self.closed: dict[str, str] = {}
        self.finished: list[GameRecord] = []
        self._tasks: set[asyncio.Task[None]] = set()

    async def open(self) -> None:
        pass

    async def close(self) -> None:
        pass

    async def save_session(self, session: SessionRecord) -> None:
        self.sessions[session.id] = session

    async def find_session(self, token_hash: str) -> SessionRecord | None:
        return next((s for s in self.sessions.values() if s.token_hash == token_hash), None)

    async def create_room(self, code: str, config: dict[str, Any]) -> bool:
        if code in self.rooms:
            return False
        self.rooms[code] = RoomRecord(code, dict(config))
        return True

    async def append(self, code: str, record: dict[str, Any], game: GameRecord | None = None) -> None:
        self._keep(code, record, game)

    def _keep(self, code: str, record: dict[str, Any], game: GameRecord | None) -> None:
        self.rooms[code].log.append(record)
        if game is not None:
            self.finished.append(game)

    def append_then(
        self,
        code: str,
        record: dict[str, Any],
        game: GameRecord | None,
        then: Callable[[BaseException | None], None],
    ) -> None:
        """Durable at once, so the room continues inline; a store that overrides ``append`` (a test's
        slow or failing one) is awaited in a task, as the Redis store does."""
        if getattr(self.append, "__func__", None) is MemoryStore.append:
            self._keep(code, record, game)
            then(None)
            return
        task = asyncio.get_running_loop().create_task(self.append(code, record, game))
        self._tasks.add(task)
        task.add_done_callback(lambda t: (self._tasks.discard(t), then(t.exception())))

    async def close_room(self, code: str, reason: str) -> None:
        self.closed[code] = reason

    async def open_rooms(self) -> list[RoomRecord]:
        return [r for code, r in self.rooms.items() if code not in self.closed]

    async def games(self, room: str) -> list[GameRecord]:
        return [g for g in self.finished if g.room == room]

    async def game(self, game_id: str) -> GameRecord | None:
        return next((g for g in self.finished if g.id == game_id), None)


class GatedStore(MemoryStore):
    """A ``MemoryStore`` whose appends wait, once ``hold`` is called, until ``release`` (or ``fail``)."""

    def __init__(self) -> None:
        super().__init__()
        self.gate: asyncio.Future[None] | None = None
        self.waiting = 0

    def hold(self) -> None:
        self.gate = asyncio.get_running_loop().create_future()

    def release(self) -> None:
        assert self.gate is not None
        self.gate.set_result(None)
        self.gate = None

    def fail(self) -> None:
        assert self.gate is not None
        self.gate.set_exception(OSError("disk full"))
        self.gate = None

    async def append(self, code: str, record: dict[str, Any], game: GameRecord | None = None) -> None:
        gate = self.gate
        if gate is not None:
            self.waiting += 1
            try:
                await gate
            finally:
                self.waiting -= 1
        self._keep(code, record, game)


class ListSink:
    """A plain sink that keeps what it is sent in ``messages``; keyword arguments set its ``Sink``
    attributes (``games``, ``legal``, ``log``, ``views``), as an adapter's or a bot's sink has them."""

    def __init__(self, messages: list[dict[str, Any]] | None = None, **attributes: bool) -> None:
        self.messages: list[dict[str, Any]] = [] if messages is None else messages
        for name, value in attributes.items():
            setattr(self, name, value)

    def send(self, message: dict[str, Any]) -> None:
        self.messages.append(message)

    def close(self, code: int = 1000, reason: str = "") -> None:
        pass


class Inbox:
    """A fake client: a session, its sink, and every message it received."""

    def __init__(self, manager: Manager, session: Session, token: str) -> None:
        self.manager = manager
        self.session = session
        self.token = token
        self.messages: list[dict[str, Any]] = []
        self.sink = CallbackSink(self.messages.append)
        session.sink = self.sink

    def last(self, kind: str) -> dict[str, Any]:
        return next(m for m in reversed(self.messages) if m["type"] == kind)

    def kinds(self) -> list[str]:
        return [m["type"] for m in self.messages]

    async def do(self, kind: str, **payload: Any) -> dict[str, Any]:
        """A room command; returns this inbox's reply (``ok``, a snapshot or an ``error``)."""
        before = len(self.messages)
        await self.manager.command(self.session, self.sink, "r", kind, payload)
        for _ in range(1000):  # game actions are queued without waiting for the room: let it run
            reply = next((m for m in self.messages[before:] if m.get("id") == "r"), None)
            if reply is not None:
                return reply
            await asyncio.sleep(0)
        raise AssertionError(f"no reply to {kind}")


class Harness:
    def __init__(self, timings: Timings | None = None) -> None:
        self.store = MemoryStore()
        self.timings = timings or Timings(ready_countdown=0.05, quick_play_countdown=0.05, grace=0.05)
        self.manager = Manager(self.store, self.timings)  # type: ignore[arg-type]

    async def client(self, name: str) -> Inbox:
        sink = CallbackSink(lambda m: None)
        session, token, _ = await self.manager.identify(sink, name)
        return Inbox(self.manager, session, token)

    async def table(self, game: str, players: int, settings: dict[str, Any] | None = None) -> list[Inbox]:
        """Seated, started: the first inbox is the host."""
        clients = [await self.client(f"P{i}") for i in range(players)]
        host = clients[0]
        await self.manager.create_room(
            host.session, host.sink, "r", game=game, settings=settings, capacity=players
        )
        code = host.last("room")["code"]
        for client in clients[1:]:
            await self.manager.join(client.session, client.sink, "r", code, None, "player")
        await host.do("start")
        return clients

    def restarted(self) -> Manager:
        """A second manager over the same store, as after a crash."""
        return Manager(self.store, self.timings)  # type: ignore[arg-type]


async def until(condition: Callable[[], object], what: str = "the condition") -> None:
    """Let the loop run, up to 2,000 passes, until ``condition`` holds (an append held, a room settled)."""
    for _ in range(2000):
        if condition():
            return
        await asyncio.sleep(0)
    raise AssertionError(f"{what} never happened")
