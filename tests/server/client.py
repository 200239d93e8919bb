"""A small async client for the native protocol, for tests against a real ``parlour serve``.

It records every frame (for leak scans) and tracks what a UI would: the last room snapshot,
the current game view, whose turn it is, and the outcome. ``play_game`` drives a whole game
between several clients, each choosing from the moves its view lists (``first_legal``).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
from collections.abc import Callable
from typing import Any

import websockets

Message = dict[str, Any]
Chooser = Callable[[Message], Message]


class Client:
    """One websocket connection speaking the native protocol."""

    _ids = itertools.count(1)

    def __init__(self, ws: Any, url: str) -> None:
        self.ws = ws
        self.url = url
        self.frames: list[str] = []
        self.messages: list[Message] = []
        self.cursor = 0
        self.token: str | None = None
        self.name: str | None = None
        self.room: Message | None = None
        self.member: str | None = None
        self.seat: int | None = None
        self.view: Message | None = None
        self.turn: Message | None = None
        self.seq = -1
        self.game_over: Message | None = None
        self.closed: Any = None
        self._arrived = asyncio.Event()
        self._reader = asyncio.get_running_loop().create_task(self._read())

    @classmethod
    async def open(cls, url: str, name: str | None = None, headers: dict[str, str] | None = None) -> Client:
        client = cls(await websockets.connect(url, max_size=1 << 22, additional_headers=headers), url)
        if name is not None:
            await client.identify(name)
        return client

    async def _read(self) -> None:
        try:
            async for frame in self.ws:
                self.frames.append(frame if isinstance(frame, str) else frame.decode())
                message = json.loads(frame)
                self._track(message)
                self.messages.append(message)
                self._arrived.set()
        except websockets.ConnectionClosed as exc:
            self.closed = exc
        finally:
            self.closed = self.closed or True
            self._arrived.set()

    def _track(self, m: Message) -> None:
        kind = m.get("type")
        if kind == "room":
            self.room, self.member, self.seat = m, m["you"]["member"], m["you"]["seat"]
            table = m["table"]
            self.view, self.turn = (table["view"], table["turn"]) if table else (None, None)
            self.seq = table["seq"] if table else -1
            self.game_over = {"outcome": m["outcome"]} if m["outcome"] else None
        elif kind in ("game_started", "game"):
            if kind == "game_started":
                self.game_over = None
                self.seat = next((s["seat"] for s in m["seats"] if s["member"] == self.member), None)
            self.view, self.turn, self.seq = m["view"], m["turn"], m["seq"]
        elif kind == "game_over":
            self.game_over = m
        elif kind == "member_updated" and m["member"]["id"] == self.member:
            self.seat = m["member"]["seat"]

    # --- sending -------------------------------------------------------------------

    async def send(self, message: Message | str | bytes) -> None:
        """A dict goes as JSON text; a str or bytes frame goes as is (bytes as a binary frame)."""
        await self.ws.send(message if isinstance(message, str | bytes) else json.dumps(message))

    async def request(self, kind: str, timeout: float = 10.0, **fields: Any) -> Message:
        """Send a request and return its reply (success or ``error``)."""
        request_id = next(self._ids)
        await self.send({"type": kind, "id": request_id, **fields})
        return await self.wait_for(lambda m: m.get("id") == request_id, timeout, from_start=True)

    async def ok(self, kind: str, **fields: Any) -> Message:
        """A request that must succeed."""
        reply = await self.request(kind, **fields)
        assert reply["type"] != "error", (kind, fields, reply)
        return reply

    async def identify(self, name: str) -> Message:
        welcome = await self.ok("identify", name=name)
        self.token, self.name = welcome["token"], welcome["name"]
        return welcome

    # --- receiving -----------------------------------------------------------------

    async def wait_for(
        self, pred: Callable[[Message], bool], timeout: float = 10.0, from_start: bool = False
    ) -> Message:
        """The first message after the cursor (or anywhere) matching ``pred``; moves the cursor past it."""
        start = 0 if from_start else self.cursor
        deadline = asyncio.get_running_loop().time() + timeout
        while True:
            for i in range(start, len(self.messages)):
                if pred(self.messages[i]):
                    if not from_start:
                        self.cursor = i + 1
                    return self.messages[i]
            start = len(self.messages)
            if self.closed is not None:
                raise ConnectionError(f"connection closed while waiting: {self.closed!r}")
            remaining = deadline - asyncio.get_running_loop().time()
            if remaining <= 0:
                raise TimeoutError(f"no matching message; last: {self.messages[-5:]}")
            self._arrived.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._arrived.wait(), remaining)

    async def expect(self, type_: str, timeout: float = 10.0, **match: Any) -> Message:
        """The next message of type ``type_`` whose fields equal ``match``."""
        return await self.wait_for(
            lambda m: m.get("type") == type_ and all(m.get(k) == v for k, v in match.items()), timeout
        )

    async def wait_seq(self, seq: int, timeout: float = 10.0) -> None:
        await self.wait_for(lambda m: self.seq >= seq, timeout, from_start=True)

    def skip(self) -> None:
        """Forget everything received so far for ``expect`` purposes."""
        self.cursor = len(self.messages)

    async def close(self) -> None:
        await self.ws.close()
        await self._reader


def first_legal(view: Message) -> Message:
    """The first of the moves the seat's view lists (``legal``, in wire form): one rule for every game,
    so a test client knows no game's rules."""
    legal: list[Message] = view["legal"]
    assert legal, f"no legal move in {view}"
    return legal[0]


async def play_game(players: list[Client], choose: Chooser = first_legal, max_steps: int = 5000) -> Message:
    """Let the seat on turn act (``choose(view)``, by default its first legal move) until every player
    saw ``game_over``."""
    for _ in range(max_steps):
        leader = max(players, key=lambda c: c.seq)
        if leader.game_over is not None:
            break
        if leader.turn is None:
            await asyncio.sleep(0.01)
            continue
        actor = next(c for c in players if c.seat == leader.turn["seat"])
        await actor.wait_seq(leader.seq)
        reply = await actor.request("action", action=choose(actor.view or {}))
        assert reply["type"] == "ok", (actor.view, reply)
    else:
        raise AssertionError("game did not finish")
    for client in players:
        await client.wait_for(lambda m, c=client: c.game_over is not None, from_start=True)
    return players[0].game_over or {}


async def open_table(
    url: str,
    game: str,
    players: int,
    settings: Message | None = None,
    spectators: int = 1,
    password: str | None = None,
    start: bool = True,
    capacity: int | None = None,
    bots_take_over: bool | None = None,
) -> tuple[list[Client], list[Client], str]:
    """A room of ``game`` with ``players`` seated clients (the first is host) and spectators, started."""
    host = await Client.open(url, "P0")
    extra = {"password": password} if password else {}
    create = {} if bots_take_over is None else {"bots_take_over": bots_take_over}
    room = await host.ok(
        "create_room", game=game, settings=settings or {}, capacity=capacity or players, **extra, **create
    )
    code = room["code"]
    seated = [host]
    for i in range(1, players):
        client = await Client.open(url, f"P{i}")
        await client.ok("join", code=code, **extra)
        seated.append(client)
    watchers = []
    for i in range(spectators):
        client = await Client.open(url, f"S{i}")
        await client.ok("spectate", code=code, **extra)
        watchers.append(client)
    if start:
        await host.ok("start")
        for client in seated + watchers:
            await client.wait_for(lambda m: m.get("type") == "game_started", from_start=True)
    return seated, watchers, code


async def close_all(*groups: list[Client]) -> None:
    for group in groups:
        for client in group:
            await client.close()
