"""The fuzzer's side of the wire: one victim connection per endpoint that receives hostile frames,
bystander tables that keep playing, and the invariant checked after every frame.

The invariant (issue 16): after each frame the server answers a probe on the victim's connection
and a ``ping`` on a bystander's, the player on turn at every bystander table can still move, and
the server log holds no traceback. A connection the server closes for a reason it states (a close
code other than 1006/1011) is opened again; that is a refusal, not a failure.

Both the test (tests/fuzz/test_fuzz.py) and the benchmark (bench/fuzz.py) drive this with
Hypothesis; it runs on an asyncio loop of its own (``LoopThread``) so Hypothesis stays synchronous.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import threading
import time
import urllib.parse
from collections.abc import Coroutine
from pathlib import Path
from typing import Any

import aiohttp
import socketio
import websockets

from tests.server.client import first_legal

Message = dict[str, Any]
BAD_CLOSES = {1006, 1011}  # abnormal closure (the server died or aborted us) and internal error
PROBE_TIMEOUT = 10.0
"""Seconds an answer may take; ``bench/fuzz.py --probe-timeout`` raises it for runs at low priority."""


class InvariantBroken(AssertionError):
    """The server failed the invariant after a frame."""


class LoopThread:
    """An asyncio loop on a thread of its own; ``run`` executes a coroutine there and waits."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()

    def run(self, coro: Coroutine[Any, Any, Any], timeout: float = 120.0) -> Any:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    def stop(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(5)


class Lite:
    """A native client that keeps only what the invariant needs (long runs must not grow)."""

    _ids = itertools.count(1)

    def __init__(self, ws: Any) -> None:
        self.ws = ws
        self.waiting: dict[Any, asyncio.Future[Message]] = {}
        self.member: str | None = None
        self.seat: int | None = None
        self.view: Message | None = None
        self.turn: Message | None = None
        self.seq = -1
        self.over = False
        self.code: str | None = None
        self.reader = asyncio.get_running_loop().create_task(self._read())

    @classmethod
    async def open(cls, url: str, name: str | None = None) -> Lite:
        client = cls(await websockets.connect(url, max_size=1 << 22))
        if name is not None:
            await client.ok("identify", name=name)
        return client

    async def _read(self) -> None:
        with contextlib.suppress(websockets.ConnectionClosed):
            async for frame in self.ws:
                m = json.loads(frame)
                kind = m.get("type")
                if kind == "room":
                    self.code, self.member, self.seat = m["code"], m["you"]["member"], m["you"]["seat"]
                    table = m["table"]
                    self.view, self.turn = (table["view"], table["turn"]) if table else (None, None)
                    self.seq = table["seq"] if table else -1
                    self.over = m["outcome"] is not None
                elif kind in ("game_started", "game"):
                    if kind == "game_started":
                        self.over = False
                        self.seat = next((s["seat"] for s in m["seats"] if s["member"] == self.member), None)
                    self.view, self.turn, self.seq = m["view"], m["turn"], m["seq"]
                elif kind == "game_over":
                    self.over = True
                future = self.waiting.pop(m.get("id"), None) if "id" in m else None
                if future is not None and not future.done():
                    future.set_result(m)

    async def request(self, kind: str, timeout: float | None = None, **fields: Any) -> Message:
        timeout = timeout or PROBE_TIMEOUT
        rid = f"r{next(self._ids)}"
        future = self.waiting[rid] = asyncio.get_running_loop().create_future()
        await self.ws.send(json.dumps({"type": kind, "id": rid, **fields}))
        try:
            return await asyncio.wait_for(future, timeout)
        finally:
            self.waiting.pop(rid, None)

    async def ok(self, kind: str, **fields: Any) -> Message:
        reply = await self.request(kind, **fields)
        assert reply["type"] != "error", (kind, fields, reply)
        return reply

    async def close(self) -> None:
        await self.ws.close()
        self.reader.cancel()


class Table:
    """A bystander game between native players; ``step`` makes the player on turn move."""

    def __init__(self, game: str, players: list[Lite]) -> None:
        self.game = game
        self.players = players
        self.moves = 0

    @classmethod
    async def open(cls, url: str, game: str, seats: int, settings: Message) -> Table:
        host = await Lite.open(url, f"{game}0")
        room = await host.ok("create_room", game=game, settings=settings, capacity=seats)
        players = [host]
        for i in range(1, seats):
            player = await Lite.open(url, f"{game}{i}")
            await player.ok("join", code=room["code"])
            players.append(player)
        table = cls(game, players)
        await table._start()
        return table

    async def _start(self) -> None:
        await self.players[0].ok("start")
        for _ in range(500):
            if all(p.seq >= 0 and not p.over for p in self.players):
                return
            await asyncio.sleep(0.01)
        raise InvariantBroken(f"{self.game} table did not start")

    async def step(self) -> None:
        """The player on turn moves and is answered ``ok``; a finished game is rematched."""
        leader = max(self.players, key=lambda p: p.seq)
        if leader.over:
            await self.players[1].ok("rematch")
            await self._start()
            return
        if leader.turn is None:
            return
        actor = next(p for p in self.players if p.seat == leader.turn["seat"])
        for _ in range(1000):
            if actor.seq >= leader.seq:
                break
            await asyncio.sleep(0.005)
        reply = await actor.request("action", action=first_legal(actor.view or {}))
        if reply["type"] != "ok":
            raise InvariantBroken(f"{self.game}: the player on turn could not move: {reply}")
        self.moves += 1

    async def close(self) -> None:
        for player in self.players:
            await player.close()


class Victim:
    """The connection that receives the hostile frames of one endpoint."""

    def __init__(self, port: int, endpoint: str) -> None:
        self.port = port
        self.endpoint = endpoint
        self.ws: Any = None
        self.sio: socketio.AsyncClient | None = None
        self.native: Lite | None = None
        self.replies = 0  # plain adapters: frames received (the probe waits for one more)
        self.arrived = asyncio.Event()
        self.reopened = 0
        self.close_codes: list[int | None] = []
        self.reader: asyncio.Task[None] | None = None

    async def open(self, known: list[str]) -> None:
        base = f"ws://127.0.0.1:{self.port}"
        if self.endpoint == "native":
            self.native = await Lite.open(f"{base}/api/ws", "Victim")
            if known:
                await self.native.request("spectate", code=known[0])
        elif self.endpoint == "socketio":
            self.sio = socketio.AsyncClient(reconnection=False)
            await self.sio.connect(
                f"http://127.0.0.1:{self.port}", auth={"name": "Victim"}, transports=["websocket"]
            )
        else:
            path = "/dots" if self.endpoint == "dots" else "/ws"
            self.ws = await websockets.connect(base + path, max_size=1 << 22)
            self.reader = asyncio.get_running_loop().create_task(self._read())

    async def _read(self) -> None:
        try:
            with contextlib.suppress(websockets.ConnectionClosed):
                async for _ in self.ws:
                    self.replies += 1
                    self.arrived.set()
        finally:
            self.arrived.set()  # a probe waiting for an answer learns of the close at once

    def closed(self) -> int | bool | None:
        """False while open, else the close code the server gave."""
        if self.native is not None:
            ws = self.native.ws
        elif self.sio is not None:
            return False if self.sio.connected else None
        else:
            ws = self.ws
        if ws is None or (ws.close_code is None and ws.state.name not in ("CLOSED", "CLOSING")):
            return False
        return ws.close_code

    async def send(self, frame: Any) -> None:
        with contextlib.suppress(websockets.ConnectionClosed, socketio.exceptions.SocketIOError):
            if self.endpoint == "socketio":
                assert self.sio is not None
                event, args = frame
                await self.sio.emit(event, args if len(args) != 1 else args[0])
            else:
                ws = self.native.ws if self.native is not None else self.ws
                await ws.send(frame)

    async def probe(self) -> None:
        """The server answers on this connection (after handling everything sent before)."""
        if self.endpoint == "native":
            assert self.native is not None
            reply = await self.native.request("ping")
            if reply["type"] != "pong":
                raise InvariantBroken(f"ping answered {reply}")
        elif self.endpoint == "socketio":
            assert self.sio is not None
            # Handled (and so acknowledged) by either UNO client kind, changing nothing.
            await self.sio.call("play-card", {"cardId": "not-a-card"}, timeout=PROBE_TIMEOUT)
        else:
            before = self.replies
            probe = {"type": "JOIN"} if self.endpoint == "dots" else {"action": "probe"}
            await self.ws.send(json.dumps(probe))
            deadline = time.monotonic() + PROBE_TIMEOUT
            while self.replies <= before:
                if self.reader is not None and self.reader.done():
                    raise ConnectionError(f"{self.endpoint}: closed by the server during the probe")
                self.arrived.clear()
                left = deadline - time.monotonic()
                if left <= 0:
                    raise InvariantBroken(f"{self.endpoint}: no answer to the probe")
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self.arrived.wait(), left)

    async def close(self) -> None:
        with contextlib.suppress(Exception):
            if self.native is not None:
                await self.native.close()
            elif self.sio is not None:
                await self.sio.disconnect()
            elif self.ws is not None:
                await self.ws.close()
        if self.reader is not None:
            self.reader.cancel()
        self.native, self.sio, self.ws = None, None, None


class Sio2Victim:
    """The Socket.IO v2 (``EIO=3``) victim: one websocket session and one long-polling session, each
    opened again when the server ends it (junk packets end a v3 session by design). Frames are
    tagged with their transport (``strategies.sio2_frames``); any HTTP answer of 500 or more, or a
    websocket closed with 1006/1011, breaks the invariant."""

    endpoint = "socketio2"

    def __init__(self, port: int, endpoint: str) -> None:
        self.port = port
        self.base = f"http://127.0.0.1:{port}/socket.io/"
        self.ws: Any = None
        self.http: aiohttp.ClientSession | None = None
        self.sid: str | None = None  # the polling session, None once the server ended it
        self.pongs = 0
        self.arrived = asyncio.Event()
        self.reader: asyncio.Task[None] | None = None
        self.reopened = 0
        self.close_codes: list[int | str | None] = []

    async def open(self, known: list[str]) -> None:
        if self.http is None:
            self.http = aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=PROBE_TIMEOUT))
        if self.ws is None:
            self.ws = await websockets.connect(f"ws{self.base[4:]}?EIO=3&transport=websocket&name=Victim2")
            self.reader = asyncio.get_running_loop().create_task(self._read())
        if self.sid is None:
            async with self.http.get(self.base, params={"EIO": "3", "transport": "polling"}) as r:
                body = await r.text()
            self.sid = json.loads(body[body.index(":") + 2 : body.index("}") + 1])["sid"]

    async def _read(self) -> None:
        try:
            with contextlib.suppress(websockets.ConnectionClosed):
                async for message in self.ws:
                    if message == "3":
                        self.pongs += 1
                        self.arrived.set()
        finally:
            self.arrived.set()

    def _check(self, status: int, what: str) -> None:
        if status >= 500:
            raise InvariantBroken(f"socketio2: {what} answered HTTP {status}")

    async def send(self, frame: Any) -> None:
        assert self.http is not None
        kind = frame[0]
        try:
            if kind == "ws":
                with contextlib.suppress(websockets.ConnectionClosed):
                    await self.ws.send(frame[1])
            elif kind == "poll" and self.sid is not None:
                headers = {"Content-Type": frame[2]}
                url = f"{self.base}?EIO=3&transport=polling&sid={self.sid}"
                async with self.http.post(url, data=frame[1], headers=headers) as r:
                    self._check(r.status, "a POST")
                    if r.status == 400:
                        self.sid = None  # the session is over (bad framing closes it by design)
            elif kind == "http":
                _, method, query, body = frame
                params = {k: (self.sid or "") if v == "@sid" else v for k, v in query.items()}
                async with self.http.request(method, self.base, params=params, data=body) as r:
                    self._check(r.status, f"{method} {params}")
            elif kind == "open":
                query = {k: (self.sid or "") if v == "@sid" else v for k, v in frame[1].items()}
                url = f"ws{self.base[4:]}?{urllib.parse.urlencode(query)}"
                with contextlib.suppress(websockets.InvalidStatus, websockets.ConnectionClosed, OSError):
                    async with websockets.connect(url, open_timeout=PROBE_TIMEOUT) as ws:
                        await ws.close()
        except (aiohttp.ClientConnectionError, aiohttp.ClientPayloadError):
            pass  # the server refused mid-request (an oversized body): the probe says whether it lives

    def closed(self) -> int | str | bool | None:
        """False while both sessions are open, else what ended one: a websocket close code, or
        ``"poll"`` for the polling session."""
        ws = self.ws
        if ws is None or ws.close_code is not None or ws.state.name in ("CLOSED", "CLOSING"):
            return None if ws is None else ws.close_code
        return False if self.sid is not None else "poll"

    async def probe(self) -> None:
        """Both sessions answer a ping with a pong, after everything sent before."""
        before = self.pongs
        await self.ws.send("2")
        deadline = time.monotonic() + PROBE_TIMEOUT
        while self.pongs <= before:
            if self.reader is not None and self.reader.done():
                raise ConnectionError("socketio2: websocket closed during the probe")
            self.arrived.clear()
            left = deadline - time.monotonic()
            if left <= 0:
                raise InvariantBroken("socketio2: no pong on the websocket")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.arrived.wait(), left)
        assert self.http is not None and self.sid is not None
        url = f"{self.base}?EIO=3&transport=polling&sid={self.sid}"
        async with self.http.post(
            url, data=b"1:2", headers={"Content-Type": "text/plain;charset=UTF-8"}
        ) as r:
            self._check(r.status, "the probe's POST")
            if r.status != 200:
                self.sid = None
                raise ConnectionError("socketio2: polling session ended")
        seen: list[str] = []
        while "3" not in seen:
            async with self.http.get(url) as r:
                self._check(r.status, "the probe's poll")
                if r.status != 200:
                    self.sid = None
                    raise ConnectionError("socketio2: polling session ended")
                seen = _eio3_packets(await r.text())
            if "1" in seen:
                self.sid = None
                raise ConnectionError("socketio2: polling session closed")

    async def close(self) -> None:
        """Ends what the server ended (or everything, when the run is over: see ``shut``)."""
        if self.ws is not None and self.closed() not in (False, "poll"):
            with contextlib.suppress(Exception):
                await self.ws.close()
            if self.reader is not None:
                self.reader.cancel()
            self.ws = None

    async def shut(self) -> None:
        with contextlib.suppress(Exception):
            if self.ws is not None:
                await self.ws.close()
        if self.reader is not None:
            self.reader.cancel()
        if self.http is not None:
            await self.http.close()
        self.ws, self.http, self.sid = None, None, None


def _eio3_packets(body: str) -> list[str]:
    """A v3 polling body's packets (``<length>:<packet>``, lengths in UTF-16 units)."""
    out = []
    while body:
        length, _, rest = body.partition(":")
        units, end = int(length), 0
        while units > 0:
            units -= 2 if ord(rest[end]) > 0xFFFF else 1
            end += 1
        out.append(rest[:end])
        body = rest[end:]
    return out


class Fuzzer:
    """Victims on every endpoint and bystander tables against one server; ``frame`` sends one
    hostile frame and checks the invariant."""

    def __init__(self, port: int, log_path: Path, endpoints: list[str]) -> None:
        self.port = port
        self.log_path = log_path
        self.url = f"ws://127.0.0.1:{port}/api/ws"
        self.victims: dict[str, Victim | Sio2Victim] = {
            e: Sio2Victim(port, e) if e == "socketio2" else Victim(port, e) for e in endpoints
        }
        self.tables: list[Table] = []
        self.bystander: Lite | None = None
        self.known: list[str] = []
        self.frames = 0
        self.latencies: list[float] = []  # bystander ping round trips, seconds
        self._log_offset = 0

    async def setup(self) -> None:
        self.tables = [
            await Table.open(self.url, "dots", 2, {"width": 4, "height": 4}),
            await Table.open(self.url, "cheat", 3, {}),
            await Table.open(self.url, "uno", 2, {"target_score": 0}),
        ]
        self.known = [t.players[0].code or "" for t in self.tables]
        self.bystander = await Lite.open(self.url, "Bystander")
        for victim in self.victims.values():
            await victim.open(self.known)
        self._log_offset = self.log_path.stat().st_size if self.log_path.exists() else 0

    async def frame(self, endpoint: str, frame: Any, moves: bool = True) -> None:
        victim = self.victims[endpoint]
        await victim.send(frame)
        self.frames += 1
        code = victim.closed()
        if code is False:
            try:
                await victim.probe()
            except (
                websockets.ConnectionClosed,
                socketio.exceptions.SocketIOError,
                TimeoutError,
                ConnectionError,
            ) as exc:
                code = victim.closed()
                if code is False:
                    raise InvariantBroken(f"{endpoint}: no answer to the probe after {frame!r:.200}") from exc
        if code is not False:  # closed by the server: fine if it said why; open again
            if code in BAD_CLOSES:
                raise InvariantBroken(f"{endpoint}: connection closed with {code} after {frame!r:.200}")
            victim.close_codes.append(code)
            victim.reopened += 1
            await victim.close()
            await victim.open(self.known)
        assert self.bystander is not None
        started = time.perf_counter()
        if (await self.bystander.request("ping"))["type"] != "pong":
            raise InvariantBroken("the bystander's ping went unanswered")
        self.latencies.append(time.perf_counter() - started)
        if moves:
            for table in self.tables:
                await table.step()

    def check_log(self) -> None:
        """No traceback in the server log since setup."""
        with self.log_path.open("rb") as log:
            log.seek(self._log_offset)
            new = log.read()
        self._log_offset += len(new)
        if b"Traceback" in new:
            text = new.decode(errors="replace")
            start = text.index("Traceback")
            raise InvariantBroken("traceback in the server log:\n" + text[max(0, start - 300) : start + 3000])

    async def close(self) -> None:
        for victim in self.victims.values():
            await (victim.shut() if isinstance(victim, Sio2Victim) else victim.close())
        for table in self.tables:
            await table.close()
        if self.bystander is not None:
            await self.bystander.close()
