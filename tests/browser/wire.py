"""A blocking native-protocol client for browser tests that set a table up faster than clicking
would (the browser then joins as one of these players, with the session's token)."""

from __future__ import annotations

import contextlib
import itertools
import json
import time
from typing import Any

from websockets.sync.client import connect

Message = dict[str, Any]


class Wire:
    """One websocket session: requests, and the latest game view, seq and log it was sent."""

    _ids = itertools.count(1)

    def __init__(self, base: str, name: str) -> None:
        self._stack = contextlib.ExitStack()
        # Unbounded: a wire that only stays in the room (a spectator) reads nothing, and past 16 unread
        # messages its reader stopped, so its close waited out the 10 s timeout twice.
        url = base.replace("http", "ws", 1) + "/api/ws"
        self.ws = self._stack.enter_context(connect(url, max_queue=None))
        self.view: Message | None = None
        self.seq = -1
        self.log: list[Message] = []
        self.messages: list[Message] = []
        self.name = name
        welcome = self.request("identify", name=name)
        self.token: str = welcome["token"]
        self.profile: Message = welcome["profile"]
        """The guest profile's id and secret, as a browser keeps them."""

    def _track(self, m: Message) -> None:
        self.messages.append(m)
        if m.get("type") in ("game_started", "game"):
            self.view, self.seq = m["view"], m["seq"]
            self.log += m.get("log", [])
        elif m.get("type") == "room" and m.get("table"):
            self.view, self.seq, self.log = m["table"]["view"], m["table"]["seq"], list(m["table"]["log"])

    def request(self, kind: str, **fields: Any) -> Message:
        """Send a request and read until its reply. A frame over the server's rate limit is refused
        before it is read, with an error that names no request: it is sent again a moment later, as a
        polite client does (a fast machine's long game outruns 20 messages a second)."""
        request_id = next(self._ids)
        frame = json.dumps({"type": kind, "id": request_id, **fields})
        self.ws.send(frame)
        while True:
            m = json.loads(self.ws.recv(timeout=10))
            self._track(m)
            if m.get("type") == "error" and m.get("code") == "rate_limited" and m.get("id") is None:
                time.sleep(0.2)
                self.ws.send(frame)
            elif m.get("id") == request_id:
                assert m["type"] != "error", (kind, fields, m)
                return m

    def until(self, predicate, timeout: float = 10) -> Message:
        """Read until a message matches ``predicate``; returns it."""
        while True:
            m = json.loads(self.ws.recv(timeout=timeout))
            self._track(m)
            if predicate(m):
                return m

    def catch_up(self, seq: int) -> None:
        while self.seq < seq:
            self.until(lambda m: True)

    def close(self) -> None:
        self._stack.close()


def at_a_table(
    base: str, game: str, names: tuple[str, ...], settings: Message | None = None
) -> tuple[list[Wire], str]:
    """Players of ``names`` over the wire (the first is the host), seated in a new room of ``game`` with
    a seat each, whose game has started; and the room's code."""
    wires = [Wire(base, name) for name in names]
    code = wires[0].request("create_room", game=game, settings=settings or {}, capacity=len(names))["code"]
    for guest in wires[1:]:
        guest.request("join", code=code)
    wires[0].request("start")
    for guest in wires[1:]:
        guest.until(lambda m: m["type"] == "game_started")
    return wires, code


def two_at_a_table(base: str, game: str, settings: Message | None = None) -> tuple[Wire, Wire, str]:
    """Ada and Bo over the wire, seated in a new two-seat room of ``game`` whose game has started; and
    the room's code."""
    (ada, bo), code = at_a_table(base, game, ("Ada", "Bo"), settings)
    return ada, bo, code


def play_to_the_end(players: list[Wire], moves: int = 200) -> None:
    """Whoever is on turn makes their first legal move until the game is over (every player caught up)."""
    for _ in range(moves):
        for p in players:
            p.catch_up(max(q.seq for q in players))
        if players[0].view["over"]:
            return
        actor = next(p for p in players if p.view["legal"])
        actor.request("action", action=actor.view["legal"][0])
    raise AssertionError(f"the game did not end in {moves} moves")


def play_uno_until(players: list[Wire], done, moves: int = 5000) -> None:
    """Whoever may act plays their first listed card (calling UNO as they go down to one), else accepts
    a Wild Draw Four, draws or keeps a drawn card, until ``done(view)`` holds for the first player's
    view (every player caught up)."""
    for _ in range(moves):
        for p in players:
            p.catch_up(max(q.seq for q in players))
        if done(players[0].view):
            return
        actor = next(p for p in players if p.view["legal"])
        legal = actor.view["legal"]
        plays = [a for a in legal if a["type"] == "play" and a.get("uno", True)]
        kinds = {a["type"]: a for a in legal}
        action = (plays or [None])[0] or kinds.get("accept") or kinds.get("draw") or kinds.get("pass")
        actor.request("action", action=action or legal[0])
    raise AssertionError(f"not done in {moves} moves")
