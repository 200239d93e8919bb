"""Seed-protocol load benchmark (not a test): whole games per protocol against ``parlour serve``.

``python bench/protocol_load.py --protocol dots|cheat|uno-socketio|socket-uno|native [--game G]``

Each phase starts ``parlour serve`` (a subprocess, temporary data dir, so every accepted command
is committed to SQLite) and plays ``--games`` whole games, ``--rooms`` at a time, each in a fresh
room over fresh connections, as a casual user does:

* ``dots`` (``/dots``, 2 players, 8×8 dots, 112 moves): connect, CREATE, JOIN ×2, READY ×2, the
  ready countdown, MOVEs (a random free line) to the end, close;
* ``cheat`` (``/ws``, 3 players): create_game, join_game ×2, start_game, place_cards (one card,
  claimed as the rank asked for; nobody accuses) until ``end_game``, close;
* ``uno-socketio`` (the design document's events, 2 players, one hand): connect (``auth`` name),
  create-room, join-room, start-game, play-card / draw-card / pass-turn / accept-wild until
  ``game-won``, disconnect;
* ``socket-uno`` (the tutorial's events): two connections ``requestRoom`` (quick play: concurrent
  requests share rooms, as on a live server), the quick-play countdown, playCard / drawCard until
  the room reopens, disconnect;
* ``native`` (``/api/ws``) plays the same games for ``--game dots|cheat|uno|uno-quick`` (identify,
  create_room, join, ready or start / quick_play, actions from the view).

By default a run compares, one phase after another on the same machine: the protocol, the native
protocol playing the same games, and, with ``--base-root`` (a worktree of an older commit, run with
this interpreter), both again on that commit. Measured per phase: moves/s, move → broadcast latency
(p50/p99), and the server's CPU time (psutil, user + system) per game and per move, from the first
connection to the last close. Latency for ``dots``, ``cheat`` and native Dots/Cheat: from sending a
move until every player of the room holds its broadcast (MOVE / place_cards / ``game`` ``seq``);
for the UNO protocols, whose clients learn of some moves only privately: until the player who
acts next (or the drawer, after a draw it may play) holds the frame that lets it act.

The server runs with the rate limit lifted (``PARLOUR_RATE_PER_SECOND``/``_BURST``), the ready
countdown at ``--countdown`` seconds (default 0.2, instead of 5) and the quick-play countdown at
``--quick-countdown`` (default 0.5, instead of 10): countdowns are wall time, not server work.
Server and client are pinned to different CPUs (``--server-cpus``, ``--client-cpus``), as in
``bench/server_load.py``, whose process helpers this reuses.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import json
import multiprocessing as mp
import os
import random
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp
import orjson
import psutil

sys.path.insert(0, str(Path(__file__).resolve().parent))
from server_load import (
    PLAY_PREFERENCE,
    busy_seconds,
    cpu_set,
    free_port,
    percentile,
    pin,
    raise_nofile,
    start_parlour,
)

Message = dict[str, Any]
PROTOCOLS = ("dots", "cheat", "uno-socketio", "socket-uno", "native")
NATIVE_GAME = {"dots": "dots", "cheat": "cheat", "uno-socketio": "uno", "socket-uno": "uno-quick"}
DOTS = 8  # dots per side by default: 2 × 8 × 7 = 112 lines
COLORS = ("red", "yellow", "green", "blue")
GAME_TIMEOUT = 120.0
WS_TIMEOUT = aiohttp.ClientWSTimeout(ws_receive=None, ws_close=10)


# --- the client side ---------------------------------------------------------------------------


@dataclass
class Tally:
    """What the client process measured."""

    games: int = 0
    moves: int = 0
    latencies_ms: list[float] = field(default_factory=list)
    errors: Counter[str] = field(default_factory=Counter)
    failed: int = 0
    players: int = 0


class Ws:
    """A JSON websocket (aiohttp): every message goes to ``handler``; ``ask`` awaits a reply."""

    def __init__(self, ws: aiohttp.ClientWebSocketResponse) -> None:
        self.ws = ws
        self.handler: Callable[[Message], Awaitable[None] | None] | None = None
        self.waiters: list[tuple[Callable[[Message], bool], asyncio.Future[Message]]] = []
        self.reader = asyncio.get_running_loop().create_task(self._read())

    @classmethod
    async def open(cls, session: aiohttp.ClientSession, url: str) -> Ws:
        return cls(await session.ws_connect(url, max_msg_size=1 << 22, timeout=WS_TIMEOUT))

    async def _read(self) -> None:
        async for msg in self.ws:
            if msg.type is not aiohttp.WSMsgType.TEXT:
                continue
            message = orjson.loads(msg.data)
            for entry in self.waiters:
                if entry[0](message):
                    self.waiters.remove(entry)
                    entry[1].set_result(message)
                    break
            if self.handler is not None:
                result = self.handler(message)
                if result is not None:
                    await result

    async def send(self, message: Message) -> None:
        await self.ws.send_str(orjson.dumps(message).decode())

    async def ask(self, message: Message, reply: Callable[[Message], bool]) -> Message:
        future: asyncio.Future[Message] = asyncio.get_running_loop().create_future()
        self.waiters.append((reply, future))
        await self.send(message)
        return await asyncio.wait_for(future, 30)

    async def close(self) -> None:
        with contextlib.suppress(Exception):
            await self.ws.close()
        self.reader.cancel()


class Game:
    """One game's bookkeeping: the move in flight and who has seen its broadcast."""

    def __init__(self, tally: Tally, players: int) -> None:
        self.tally = tally
        self.players = players
        self.sent_at: dict[Any, float] = {}
        self.seen: dict[Any, int] = {}
        self.over = asyncio.get_running_loop().create_future()

    def sent(self, key: Any) -> None:
        self.tally.moves += 1
        self.sent_at[key] = time.perf_counter()
        self.seen[key] = 0

    def got(self, key: Any, recipients: int | None = None) -> None:
        """One player holds the broadcast of move ``key``; the last of ``recipients`` closes it."""
        if key not in self.seen:
            return
        self.seen[key] += 1
        if self.seen[key] >= (recipients or self.players):
            del self.seen[key]
            self.tally.latencies_ms.append((time.perf_counter() - self.sent_at.pop(key)) * 1000)

    def end(self) -> None:
        if not self.over.done():
            self.over.set_result(None)


def error(tally: Tally, code: str) -> None:
    tally.errors[code[:60]] += 1


# Dots & Boxes: the seed's packets and native, the same 2-player 8×8 game.


def all_lines(dots: int) -> set[tuple[int, int, int]]:
    return {
        (x, y, d)
        for x in range(dots)
        for y in range(dots)
        for d in (0, 1)
        if (d == 0 and x < dots - 1) or (d == 1 and y < dots - 1)
    }


async def dots_game(ctx: Ctx, n: int) -> None:
    """CREATE, JOIN ×2, READY ×2, MOVE until the game ends (packets of the seed's protocol)."""
    game, free, rng = Game(ctx.tally, 2), all_lines(ctx.dots), random.Random(n)
    name = f"bench-{ctx.tag}-{n}"
    a = await Ws.open(ctx.session, ctx.url + "/dots")
    b = await Ws.open(ctx.session, ctx.url + "/dots")
    players = (a, b)
    try:
        created = await a.ask(
            {"type": "CREATE", "roomname": name, "width": ctx.dots, "height": ctx.dots, "maxplayers": 2},
            lambda m: m.get("type") in ("CREATE", "ERROR"),
        )
        if not created.get("ok"):
            raise RuntimeError(f"CREATE refused: {created}")
        ids: list[tuple[int, str]] = []
        for i, ws in enumerate(players):
            joined = await ws.ask(
                {"type": "JOIN", "roomname": name, "username": f"p{i}"},
                lambda m: m.get("type") in ("JOIN", "ERROR"),
            )
            if not joined.get("ok"):
                raise RuntimeError(f"JOIN refused: {joined}")
            ids.append((joined["playerid"], joined["token"]))

        def handler(me: int, ws: Ws) -> Callable[[Message], Awaitable[None] | None]:
            pid, token = ids[me]

            again = [False]  # my last line may capture: then it is my turn again (no TURN packet)

            async def move() -> None:
                if free:
                    line = rng.choice(sorted(free))
                    game.sent(line)
                    x, y, d = line
                    await ws.send({"type": "MOVE", "x": x, "y": y, "d": d, "token": token})

            async def on(m: Message) -> None:
                kind = m.get("type")
                if kind == "MOVE":
                    line = (m["x"], m["y"], m["d"])
                    free.discard(line)
                    game.got(line)
                    again[0] = m["playerid"] == pid
                elif kind == "CAPTURE" and again[0]:
                    again[0] = False
                    await move()
                elif kind == "TURN" and m["playerid"] == pid:
                    await move()
                elif kind == "GAMESTATE" and m["state"] in ("ended", "tied"):
                    game.end()
                elif kind == "ERROR":
                    error(ctx.tally, m.get("message", "?"))

            return on

        for i, ws in enumerate(players):
            ws.handler = handler(i, ws)
        for i, ws in enumerate(players):
            await ws.send({"type": "READY", "ready": True, "token": ids[i][1]})
        await asyncio.wait_for(game.over, GAME_TIMEOUT)
    finally:
        for ws in players:
            await ws.close()


async def native_players(ctx: Ctx, count: int) -> list[tuple[Ws, list[int]]]:
    """``count`` native connections, identified; each with its own request-id counter."""
    out = []
    for i in range(count):
        ws = await Ws.open(ctx.session, ctx.url + "/api/ws")
        await ws.ask({"type": "identify", "id": 0, "name": f"p{i}"}, lambda m: m.get("id") == 0)
        out.append((ws, [0]))
    return out


async def native_request(ws: Ws, ids: list[int], kind: str, **fields: Any) -> Message:
    ids[0] += 1
    rid = ids[0]
    reply = await ws.ask({"type": kind, "id": rid, **fields}, lambda m: m.get("id") == rid)
    if reply["type"] == "error":
        raise RuntimeError(f"{kind} refused: {reply}")
    return reply


async def native_game(ctx: Ctx, n: int) -> None:
    """The same games over ``/api/ws``: create_room, join, ready (Dots) or start, actions."""
    kind = ctx.game
    size = {"dots": 2, "cheat": 3, "uno": 2}[kind]
    game, rng = Game(ctx.tally, size), random.Random(n)
    free = all_lines(ctx.dots)
    players = await native_players(ctx, size)
    seats: dict[int, int] = {}
    try:
        settings: Message = {
            "dots": {"width": ctx.dots, "height": ctx.dots, "max_players": 2},
            "cheat": {},
        }.get(kind, {"target_score": 0})
        host, host_ids = players[0]
        room = await native_request(
            host, host_ids, "create_room", game=kind, settings=settings, capacity=size
        )
        members = [room["you"]["member"]]
        for ws, ids in players[1:]:
            joined = await native_request(ws, ids, "join", code=room["code"])
            members.append(joined["you"]["member"])

        def handler(me: int, ws: Ws) -> Callable[[Message], Awaitable[None] | None]:
            acted = [-1]

            async def on(m: Message) -> None:
                t = m.get("type")
                if t == "game_started":
                    seats[me] = next(s["seat"] for s in m["seats"] if s["member"] == members[me])
                if t in ("game", "game_started"):
                    seq = m["seq"]
                    for e in m["events"]:
                        if e.get("type") == "line":
                            free.discard((e["x"], e["y"], e["d"]))
                    turn = m["turn"]
                    mine = turn is not None and turn["seat"] == seats.get(me)
                    if kind == "uno":
                        if mine:
                            game.got(seq, 1)  # the next actor holds it
                    else:
                        game.got(seq)
                    if mine and acted[0] != seq:
                        acted[0] = seq
                        action = native_action(kind, m["view"], free, rng)
                        if action is not None:
                            game.sent(seq + 1)
                            await ws.send({"type": "action", "action": action})
                elif t == "game_over":
                    game.end()
                elif t == "error":
                    error(ctx.tally, m.get("code", "?"))

            return on

        for i, (ws, _) in enumerate(players):
            ws.handler = handler(i, ws)
        if kind == "dots":
            for ws, _ in players:
                await ws.send({"type": "ready", "ready": True})
        else:
            await host.send({"type": "start"})
        await asyncio.wait_for(game.over, GAME_TIMEOUT)
    finally:
        for ws, _ in players:
            await ws.close()


def native_action(
    kind: str, view: Message, free: set[tuple[int, int, int]], rng: random.Random
) -> Message | None:
    if kind == "dots":
        if not free:
            return None
        x, y, d = rng.choice(sorted(free))
        return {"type": "line", "x": x, "y": y, "d": d}
    if kind == "cheat":
        hand = view.get("hand") or []
        return {"type": "play", "cards": [hand[0]["id"]], "rank": view["ranks"][0]} if hand else None
    legal = view.get("legal") or []
    for wanted in PLAY_PREFERENCE:
        options = [a for a in legal if a["type"] == wanted]
        if options:
            return rng.choice(options)
    return None


async def native_quick_game(ctx: Ctx, n: int) -> None:
    """Two native connections ``quick_play`` UNO (rooms shared with other concurrent requests)."""
    rng = random.Random(n)
    players = await native_players(ctx, 2)
    done: list[asyncio.Future[None]] = []
    try:
        for ws, ids in players:
            done.append(await quick_native_player(ctx, ws, ids, rng))
        await asyncio.wait_for(asyncio.gather(*done), GAME_TIMEOUT)
    finally:
        for ws, _ in players:
            await ws.close()


async def quick_native_player(ctx: Ctx, ws: Ws, ids: list[int], rng: random.Random) -> asyncio.Future[None]:
    over: asyncio.Future[None] = asyncio.get_running_loop().create_future()
    state: Message = {"seat": None, "size": 2, "acted": -1}
    room = await native_request(ws, ids, "quick_play", game="uno")
    me, code = room["you"]["member"], room["code"]

    async def on(m: Message) -> None:
        t = m.get("type")
        if t == "game_started":
            state["seat"] = next(s["seat"] for s in m["seats"] if s["member"] == me)
            state["size"] = len(m["seats"])
        if t in ("game", "game_started"):
            turn = m["turn"]
            if turn is not None and turn["seat"] == state["seat"]:
                ctx.quick.got((code, m["seq"]), 1)
                if state["acted"] != m["seq"]:
                    state["acted"] = m["seq"]
                    action = native_action("uno", m["view"], set(), rng)
                    if action is not None:
                        ctx.quick.sent((code, m["seq"] + 1))
                        await ws.send({"type": "action", "action": action})
        elif t == "game_over":
            ctx.quick_games += 1 / state["size"]
            if not over.done():
                over.set_result(None)
        elif t == "error":
            error(ctx.tally, m.get("code", "?"))

    ws.handler = on
    return over


# Cheat: the write-up's actions on /ws.


async def cheat_game(ctx: Ctx, n: int) -> None:
    """create_game, join_game ×2, start_game, place_cards (one card as the rank asked) to the end."""
    game = Game(ctx.tally, 3)
    players = [await Ws.open(ctx.session, ctx.url + "/ws") for _ in range(3)]
    try:
        created = await players[0].ask(
            {"action": "create_game", "name": "p0"},
            lambda m: m.get("action") in ("join_game", "join_game_error"),
        )
        if created["action"] != "join_game":
            raise RuntimeError(f"create_game refused: {created}")
        for i, ws in enumerate(players[1:], 1):
            joined = await ws.ask(
                {"action": "join_game", "name": f"p{i}", "room_code": created["room_code"]},
                lambda m: m.get("action") in ("join_game", "join_game_error"),
            )
            if joined["action"] != "join_game":
                raise RuntimeError(f"join_game refused: {joined}")

        def handler(ws: Ws) -> Callable[[Message], Awaitable[None] | None]:
            st: Message = {"hand": [], "seen": 0, "acted": -1}

            async def on(m: Message) -> None:
                a = m.get("action")
                if a == "update_cards":
                    st["hand"] = m["cards"]
                elif a == "place_cards":
                    game.got(st["seen"])
                    st["seen"] += 1
                elif a == "start_turn" and m["your_turn"] and st["acted"] != st["seen"] and st["hand"]:
                    st["acted"] = st["seen"]
                    game.sent(st["seen"])
                    card = st["hand"][0]
                    await ws.send({"action": "place_cards", "cards": [card], "rank": m["current_rank"]})
                elif a == "end_game":
                    game.end()
                elif a in ("info_text_update", "waiting_screen_error"):
                    error(ctx.tally, m["message"])  # nobody accuses or leaves: any text is a refusal

            return on

        for ws in players:
            ws.handler = handler(ws)
        await players[0].send({"action": "start_game"})
        await asyncio.wait_for(game.over, GAME_TIMEOUT)
    finally:
        for ws in players:
            await ws.close()


# UNO over Socket.IO: the design document's events, and the socket-uno tutorial's.


def doc_playable(card: Message, top: Message | None, color: str | None) -> bool:
    if card["color"] == "wild":
        return True
    if top is None:
        return False
    if card["color"] == color:
        return True
    return card["type"] == top["type"] and (card["type"] != "number" or card["value"] == top["value"])


async def doc_game(ctx: Ctx, n: int) -> None:
    """create-room, join-room, start-game; play-card / draw-card / pass-turn / accept-wild to ``game-won``."""
    import socketio

    game = Game(ctx.tally, 2)
    rng = random.Random(n)
    clients = [socketio.AsyncClient(reconnection=False) for _ in range(2)]
    table: Message = {"top": None, "color": None, "wd4": False}
    states = [{"name": f"p{i}", "id": None, "hand": [], "busy": False} for i in range(2)]

    def wire(i: int, sio: Any) -> None:
        st = states[i]

        async def act() -> None:
            if table["wd4"]:
                st["busy"] = "accept"
                game.sent(("act", i))
                await sio.emit("accept-wild", {})
                return
            options = [c for c in st["hand"] if doc_playable(c, table["top"], table["color"])]
            game.sent(("act", i))
            if options:
                chosen = rng.choice(options)
                data: Message = {"cardId": chosen["id"], "uno": len(st["hand"]) == 2}
                if chosen["color"] == "wild":
                    held = Counter(c["color"] for c in st["hand"] if c["color"] != "wild")
                    data["chosenColor"] = held.most_common(1)[0][0] if held else "red"
                st["busy"] = "play"
                await sio.emit("play-card", data)
            else:
                st["busy"] = "draw"
                await sio.emit("draw-card", {})

        async def on(event: str, data: Any = None) -> None:
            if event == "hand-updated":
                st["hand"] = data["hand"]
            elif event == "game-started":
                room = data["room"]
                table["top"], table["color"] = room["discardPile"][0], room["currentColor"]
            elif event == "card-played":
                table["top"], table["color"] = data["card"], data["currentColor"]
                table["wd4"] = data["card"]["type"] == "wild-draw4"
            elif event in ("wild-accepted", "wild-challenged"):
                table["wd4"] = False
            elif event == "turn-changed":
                if data["currentPlayer"] == st["id"]:
                    game.got(("act", 1 - i), 1)
                    game.got(("act", i), 1)
                    await act()
            elif event == "drawn-card-playable":
                if data.get("seatId") == st["id"]:
                    game.got(("act", i), 1)
                    st["busy"] = "pass"
                    game.sent(("act", i))
                    await sio.emit("pass-turn", {})
            elif event == "game-won":
                game.end()
            elif event == "error":
                error(ctx.tally, str(data.get("code", data.get("message"))))
                if st["busy"] == "play":  # refused: draw instead, so the game goes on
                    st["busy"] = "draw"
                    await sio.emit("draw-card", {})

        lock = asyncio.Lock()  # python-socketio runs each event in a task of its own: keep them in order

        async def in_order(event: str, data: Any = None) -> None:
            async with lock:
                await on(event, data)

        sio.on("*", in_order)

    for i, sio in enumerate(clients):
        wire(i, sio)
    try:
        joined: list[asyncio.Future[Message]] = [asyncio.get_running_loop().create_future() for _ in clients]
        for i, sio in enumerate(clients):

            def on_joined(data: Message, i: int = i) -> None:
                if not joined[i].done():
                    joined[i].set_result(data)

            sio.on("room-joined", on_joined)
        created: asyncio.Future[Message] = asyncio.get_running_loop().create_future()
        clients[0].on("room-created", lambda data: created.done() or created.set_result(data))
        for i, sio in enumerate(clients):
            await sio.connect(
                ctx.url.replace("ws://", "http://"), auth={"name": f"p{i}"}, transports=["websocket"]
            )
        await clients[0].emit(
            "create-room", {"name": f"bench-{n}", "maxPlayers": 2, "settings": {"targetScore": 0}}
        )
        room_id = (await asyncio.wait_for(created, 30))["roomId"]
        await clients[1].emit("join-room", {"roomId": room_id})
        for i in range(2):
            room = (await asyncio.wait_for(joined[i], 30))["room"]
            states[i]["id"] = next(p["id"] for p in room["players"] if p and p["name"] == f"p{i}")
        await clients[0].emit("start-game", {})
        await asyncio.wait_for(game.over, GAME_TIMEOUT)
    finally:
        for sio in clients:
            with contextlib.suppress(Exception):
                await sio.disconnect()


def tutorial_card(number: int) -> tuple[str | None, int]:
    """(colour or None for a Wild, face 0..13) of a tutorial card number."""
    face = number % 14
    return (None if face == 13 else COLORS[number // 14 % 4]), face


def tutorial_playable(number: int, top: int | None) -> bool | None:
    """True/False when the top card decides it; None when the top is a Wild (its colour is unsaid)."""
    color, face = tutorial_card(number)
    if color is None:
        return True
    if top is None:
        return None
    top_color, top_face = tutorial_card(top)
    if top_color is None:
        return None
    return color == top_color or face == top_face


async def tutorial_game(ctx: Ctx, n: int) -> None:
    """Two tutorial clients: requestRoom (quick play), then playCard / drawCard until the room reopens."""
    import socketio

    rng = random.Random(n)
    clients = [socketio.AsyncClient(reconnection=False) for _ in range(2)]
    done = [asyncio.get_running_loop().create_future() for _ in clients]
    q = ctx.quick

    def wire(i: int, sio: Any) -> None:
        st: Message = {"hand": [], "top": None, "room": None, "players": 2, "playing": False, "draw": False}

        async def play(number: int) -> None:
            q.sent((st["room"], sio.get_sid()))
            await sio.emit("playCard", [number, st["room"]])

        async def draw() -> None:
            st["draw"] = True
            q.sent((st["room"], sio.get_sid()))
            await sio.emit("drawCard", [1, st["room"]])

        async def act() -> None:
            if st["top"] is None:
                return
            if st["top"] % 14 == 13 and st["top"] >= 56 and st.get("fresh"):
                await draw()  # a Wild Draw Four just played on me: drawCard accepts it
                return
            verdicts = [(c, tutorial_playable(c, st["top"])) for c in st["hand"]]
            sure = [c for c, ok in verdicts if ok]
            # On a Wild the colour it named is not sent: guess a card (refused: draw instead).
            guess = [c for c, ok in verdicts if ok is None]
            if sure or guess:
                await play(rng.choice(sure or guess))
            else:
                await draw()

        async def on(event: str, data: Any = None) -> None:
            sid = sio.get_sid()
            if event == "responseRoom":
                if st["playing"]:
                    st["playing"] = False
                    ctx.quick_games += 1 / max(1, st["players"])
                    if not done[i].done():
                        done[i].set_result(None)
                    return
                st["room"], st["players"] = data[0], data[1]
            elif event == "sendCard":
                st["top"], st["fresh"] = data, True
                if st.get("pending"):
                    st["pending"] = False
                    await act()
            elif event == "haveCard":
                before, st["hand"] = st["hand"], data
                st["playing"] = True
                if st["draw"]:
                    st["draw"] = False
                    q.got((st["room"], sid), 1)
                    new = [c for c in data if c not in before]
                    if len(new) == 1:
                        verdict = tutorial_playable(new[0], st["top"])
                        if verdict:
                            await play(new[0])
                        elif verdict is None:
                            st["probe"] = True
                            q.sent((st["room"], sid))
                            await sio.emit(
                                "drawCard", [1, st["room"]]
                            )  # pass, or refused if the turn moved on
            elif event == "turnPlayer":
                st["playing"] = True
                st["mine"], st["probe"] = data == sid, False
                if data != sid:
                    st["fresh"] = False
                else:
                    st["draw"] = False
                    q.got((st["room"], sid), 1)
                    for other in list(q.seen):
                        if other[0] == st["room"] and other[1] != sid:
                            q.got(other, 1)
                    if st["top"] is None:
                        st["pending"] = True
                    else:
                        await act()
            elif event == "error":
                text = str(data.get("message") if isinstance(data, dict) else data)
                if st.get("probe"):  # the drawCard that passes, refused when the turn had moved on
                    st["probe"] = False
                    ctx.tally.errors["probe refused (expected)"] += 1
                    return
                error(ctx.tally, text)
                if st.get("mine") and not st["draw"]:  # a play refused: draw instead
                    await draw()

        lock = asyncio.Lock()  # python-socketio runs each event in a task of its own: keep them in order

        async def in_order(event: str, data: Any = None) -> None:
            async with lock:
                await on(event, data)

        sio.on("*", in_order)

    for i, sio in enumerate(clients):
        wire(i, sio)
    try:
        for sio in clients:
            await sio.connect(ctx.url.replace("ws://", "http://"), transports=["websocket"])
        for i, sio in enumerate(clients):
            await sio.emit("requestRoom", f"b{n}p{i}")
        await asyncio.wait_for(asyncio.gather(*done), GAME_TIMEOUT)
    finally:
        for sio in clients:
            with contextlib.suppress(Exception):
                await sio.disconnect()


@dataclass
class Ctx:
    """What every game of one phase shares."""

    url: str
    game: str
    tag: str
    session: aiohttp.ClientSession
    tally: Tally
    quick: Game
    dots: int = DOTS
    quick_games: float = 0.0


SCRIPTS: dict[str, Callable[[Ctx, int], Awaitable[None]]] = {
    "dots": dots_game,
    "cheat": cheat_game,
    "uno-socketio": doc_game,
    "socket-uno": tutorial_game,
}


async def play_games(protocol: str, game: str, url: str, games: int, rooms: int, dots: int) -> Message:
    """``games`` whole games, ``rooms`` at a time; what was measured."""
    tally = Tally()
    session = aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0))
    ctx = Ctx(url, game, str(os.getpid()), session, tally, Game(tally, 1), dots)
    if protocol == "native":
        script = native_quick_game if game == "uno-quick" else native_game
    else:
        script = SCRIPTS[protocol]
    numbers = itertools.count()
    started = time.perf_counter()

    async def worker() -> None:
        while (n := next(numbers)) < games:
            try:
                await script(ctx, n)
                tally.games += 1
            except Exception as exc:  # a game that failed is counted and reported, the run goes on
                tally.failed += 1
                error(tally, f"{type(exc).__name__}: {exc}")

    try:
        await asyncio.gather(*(worker() for _ in range(rooms)))
    finally:
        await session.close()
    seconds = time.perf_counter() - started
    if protocol == "socket-uno" or game == "uno-quick":
        tally.games = round(ctx.quick_games)  # rooms are shared: count each game once
    return {**tally.__dict__, "errors": dict(tally.errors), "seconds": seconds}


def client_process(
    protocol: str, game: str, url: str, games: int, rooms: int, dots: int, cpus: set[int], out: Any
) -> None:
    pin(cpus)
    raise_nofile()
    try:
        import uvloop

        result = uvloop.run(play_games(protocol, game, url, games, rooms, dots))
        out.put(("ok", result))
    except BaseException as exc:
        out.put(("failed", f"{type(exc).__name__}: {exc}"))


# --- the parent: phases, CPU, report -----------------------------------------------------------


def server_env(args: argparse.Namespace) -> dict[str, str]:
    return {
        "PARLOUR_READY_COUNTDOWN": str(args.countdown),
        "PARLOUR_QUICKPLAY_COUNTDOWN": str(args.quick_countdown),
        "PARLOUR_GRACE_SECONDS": str(args.grace),
    }


def phase(args: argparse.Namespace, label: str, root: str | None, protocol: str, game: str) -> Message:
    """One server process, ``args.games`` games; server CPU from before the first connection to
    after the last close."""
    ctx = mp.get_context("spawn")
    with tempfile.TemporaryDirectory(prefix="parlour-proto-") as data_dir:
        port = free_port()
        prefix: tuple[str, ...] = ()
        profile = None
        if args.py_spy:
            profile = os.path.join(args.py_spy, f"{label}-{protocol}-{game}.txt".replace(" ", "_"))
            prefix = (
                str(Path(sys.executable).with_name("py-spy")),
                "record",
                "--format",
                "raw",
                "--rate",
                "250",
                "-o",
                profile,
                "--",
            )
        env = server_env(args)
        gc_log = os.path.join(data_dir, "gc.log")
        if args.gc_pauses:
            env["PARLOUR_BENCH_GC_LOG"] = gc_log
        server = start_parlour(port, data_dir, args.server_cpus, root, env, prefix)
        try:
            proc_ = psutil.Process(server.pid)
            target = proc_.children()[0] if prefix else proc_
            out = ctx.Queue()
            time.sleep(0.3)
            cpu0 = sum(target.cpu_times()[:2])
            machine0 = busy_seconds()
            wall0, since = time.monotonic(), time.time()
            client = ctx.Process(
                target=client_process,
                args=(
                    protocol,
                    game,
                    f"ws://127.0.0.1:{port}",
                    args.games,
                    args.rooms,
                    args.dots,
                    args.client_cpus,
                    out,
                ),
                daemon=True,
            )
            client.start()
            client_ps = psutil.Process(client.pid)
            client_cpu = 0.0
            while True:
                try:
                    kind, value = out.get(timeout=0.5)
                    break
                except Exception:
                    with contextlib.suppress(psutil.Error):
                        client_cpu = sum(client_ps.cpu_times()[:2])
                    if not client.is_alive():
                        raise RuntimeError("client process died") from None
            client.join(10)
            time.sleep(0.2)
            server_cpu = sum(target.cpu_times()[:2]) - cpu0
            wall = time.monotonic() - wall0
            other = busy_seconds() - machine0 - server_cpu - client_cpu
            pauses = collections_between(gc_log, since, time.time()) if args.gc_pauses else None
        finally:
            server.send_signal(signal.SIGINT)
            try:
                server.wait(30)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait()
    if kind != "ok":
        raise RuntimeError(f"{label} {protocol}: client failed: {value}")
    lat = value["latencies_ms"]
    games = max(1, value["games"])
    return {
        "label": label,
        "protocol": protocol if protocol != "native" else f"native {game}",
        "games": value["games"],
        "failed": value["failed"],
        "moves": value["moves"],
        "moves_per_game": round(value["moves"] / games, 1),
        "seconds": round(value["seconds"], 2),
        "moves_per_s": round(value["moves"] / value["seconds"], 1),
        "p50_ms": round(percentile(lat, 0.5), 2),
        "p99_ms": round(percentile(lat, 0.99), 2),
        "mean_ms": round(statistics.fmean(lat), 2) if lat else float("nan"),
        "server_cpu_s": round(server_cpu, 3),
        "cpu_ms_per_game": round(server_cpu / games * 1000, 2),
        "cpu_ms_per_move": round(server_cpu / max(1, value["moves"]) * 1000, 4),
        "client_cpu": round(client_cpu / wall, 2),
        "other_cpu": round(max(0.0, other) / wall, 2),
        "errors": value["errors"],
        "profile": profile,
        "gc_pauses_ms": pauses,
    }


def collections_between(path: str, start: float, end: float) -> list[float]:
    """The milliseconds of each of the server's GC collections between two wall-clock times."""
    with contextlib.suppress(FileNotFoundError), open(path) as log:
        return [float(ms) for _, ms, _, at in (line.split() for line in log) if start <= float(at) <= end]
    return []


def report(rows: list[Message]) -> str:
    head = (
        f"{'server':10}{'protocol':18}{'games':>6}{'moves':>8}{'moves/s':>9}{'p50 ms':>8}{'p99 ms':>8}"
        f"{'CPU ms/game':>12}{'CPU ms/move':>12}{'client':>7}{'other':>7}"
    )
    lines = [head]
    for r in rows:
        lines.append(
            f"{r['label']:10}{r['protocol']:18}{r['games']:>6}{r['moves']:>8}{r['moves_per_s']:>9.0f}"
            f"{r['p50_ms']:>8.1f}{r['p99_ms']:>8.1f}{r['cpu_ms_per_game']:>12.2f}{r['cpu_ms_per_move']:>12.4f}"
            f"{r['client_cpu']:>7.2f}{r['other_cpu']:>7.2f}"
        )
        if r["errors"] or r["failed"]:
            lines.append(f"    failed games {r['failed']}, errors {r['errors']}")
        if r["gc_pauses_ms"] is not None:
            pauses = r["gc_pauses_ms"]
            largest = max(pauses, default=0.0)
            lines.append(f"    GC: {len(pauses)} collections, {sum(pauses):.0f} ms, largest {largest:.1f} ms")
    by: dict[tuple[str, str], list[Message]] = {}
    for r in rows:
        by.setdefault((r["label"], r["protocol"]), []).append(r)

    def median(key: tuple[str, str], field: str) -> float:
        return statistics.median(r[field] for r in by[key])

    for label, proto in by:
        if label != "base" and ("base", proto) in by:
            game, move = (
                median((label, proto), f) / median(("base", proto), f)
                for f in ("cpu_ms_per_game", "cpu_ms_per_move")
            )
            lines.append(f"{proto}: CPU per game ×{game:.2f} of base, per move ×{move:.2f} (medians)")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--protocol", choices=PROTOCOLS, required=True)
    parser.add_argument("--game", choices=("dots", "cheat", "uno", "uno-quick"), help="for --protocol native")
    parser.add_argument("--games", type=int, default=200, help="games per phase (default 200)")
    parser.add_argument(
        "--dots", type=int, default=DOTS, help="Dots board: dots per side (default 8; 2 = set-up cost)"
    )
    parser.add_argument("--rooms", type=int, default=50, help="games at a time (default 50)")
    parser.add_argument("--base-root", help="a worktree of the commit to compare with (run with this Python)")
    parser.add_argument("--server-root", help="the checkout to measure (default: this one)")
    parser.add_argument("--no-native", action="store_true", help="skip the native phases")
    parser.add_argument(
        "--repeat", type=int, default=1, help="run the phases this many times, interleaved, order alternating"
    )
    parser.add_argument("--countdown", type=float, default=0.2, help="PARLOUR_READY_COUNTDOWN (default 0.2)")
    parser.add_argument("--quick-countdown", type=float, default=0.5, help="PARLOUR_QUICKPLAY_COUNTDOWN")
    parser.add_argument(
        "--grace",
        type=float,
        default=60.0,
        help="PARLOUR_GRACE_SECONDS (default 60, the server's); closed quick-play seats linger this long",
    )
    parser.add_argument("--server-cpus", type=cpu_set, default={0})
    parser.add_argument("--client-cpus", type=cpu_set, default={1})
    parser.add_argument(
        "--py-spy", metavar="DIR", help="record each phase's server with py-spy (raw stacks) here"
    )
    parser.add_argument(
        "--gc-pauses", action="store_true", help="report the server's GC collections (bench/gc_probe)"
    )
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    raise_nofile()
    root = args.server_root or str(Path(__file__).resolve().parent.parent)
    if args.protocol == "native":
        plan = [("native", args.game or "dots")]
    else:
        plan = [(args.protocol, NATIVE_GAME[args.protocol])]
        if not args.no_native:
            plan.append(("native", NATIVE_GAME[args.protocol]))
    servers = [("this", root)] + ([("base", args.base_root)] if args.base_root else [])
    rows = []
    for round_ in range(args.repeat):
        for protocol, game in plan:
            # Alternate which server runs first: on this machine the second of two back-to-back
            # servers measured 3-17% more CPU per action, whichever it was.
            for label, where in servers if round_ % 2 == 0 else servers[::-1]:
                rows.append(phase(args, label, where, protocol, game))
                if not args.json:
                    print(report(rows[-1:]).split("\n", 1)[1], flush=True)
    print(json.dumps(rows) if args.json else report(rows))


if __name__ == "__main__":
    main()
