"""The socket-uno tutorial's Socket.IO events, for its canvas client, unchanged.

``requestRoom(name)`` is native quick play: the fullest waiting public UNO room, or a new one,
with the start countdown (``countDown`` ticks ending at 0). Hands travel as the tutorial's card
numbers (``uno_numbers``), the turn as ``turnPlayer``, the top card as ``sendCard``. The tutorial's
client compares ``turnPlayer`` with its own ``socket.id``, so each client is told its own socket id
when the turn is its own, and otherwise the member id of the player to move: a socket id is sent to
its own socket only (a socket.io 2.x client's is its Engine.IO session id, which lets whoever holds
it poll that session's events and post to it).

The client has no colour picker, UNO button, challenge or pass, so the adapter supplies the
translation defaults: a Wild names the colour the player holds most of; a play that leaves one
card calls UNO; a Seven Swap targets the opponent with the fewest cards; ``drawCard`` accepts a
pending Wild Draw Four, and passes after drawing a playable card; a client that is to deal the next
round of a match with a pause between rounds (a quick-play room's) deals at once, having no button for
it, and under another dealer it waits the pause out. Legality is the engine's: a card is
played as one of the plays the view lists for it (``legal``), chosen by these defaults.
After a game the room reopens (rematch, then the quick-play countdown). A reconnecting client
gets its seat back within the grace period when it sends ``requestRoom`` with the same name **from
the same browser** (the ``browser_cookie`` its Engine.IO handshake carried), on any node; a name
alone never reclaims a seat. Such a client's session token is derived from its cookie, its name and
a random nonce (``browser_cookie.derive``); a dropped seat is remembered as the nonce under a hash of
cookie and name (``Names``), so whichever node the client comes back to rebuilds the token and
resumes, and no token is stored anywhere (the session store keeps its hash, as for every session).
"""

from __future__ import annotations

import asyncio
import hashlib
import math
import secrets
from collections import Counter
from typing import Any

from parlour.net.adapters.browser_cookie import derive
from parlour.net.adapters.link import Bridge, Connector, Message
from parlour.net.adapters.plain_socket import Peer
from parlour.net.adapters.uno_numbers import card_to_number, number_to_card
from parlour.rooms.enums import FINISHED, PLAYER, PLAYING, WAITING
from parlour.store.names import LocalNames, Names

NO_ROOM = ["error", 0, 0]
NAME_LIMIT = 16


SEATS = "tutorial-seat"
"""``Names`` kind: SHA-256 of (browser cookie, lower-cased name) → "<room code>|<nonce>" of a dropped
tutorial client: the nonce rebuilds its token with the cookie (``seat_token``)."""
SEAT_SECONDS = 3_600.0
"""How long a dropped seat is remembered for re-seating (the room's grace period is shorter)."""


def seat_token(browser: str, name: str, nonce: str) -> str:
    """The session token of a tutorial client: its browser's secret, for this name and nonce."""
    return derive(browser, f"socket-uno-seat|{name.lower()}|{nonce}")


class Directory:
    """The dropped seats of every Socket.IO connection, in the ``Names`` every node shares (one
    process: its own)."""

    def __init__(self, names: Names | None = None) -> None:
        self.names: Names = names if names is not None else LocalNames()

    async def dropped(self, browser: str, name: str, code: str, nonce: str) -> None:
        """A client left its seat in ``code``: its browser may take it back, on any node."""
        await self.names.put(SEATS, _seat_key(browser, name), f"{code}|{nonce}", SEAT_SECONDS)

    async def reclaim(self, browser: str, name: str) -> str | None:
        """The nonce of this browser's dropped seat under ``name`` (taken: once), if any."""
        key = _seat_key(browser, name)
        found = await self.names.get(SEATS, key)
        if not found or "|" not in found:
            return None
        await self.names.drop(SEATS, key, found)
        return found.split("|", 1)[1]


def _seat_key(browser: str, name: str) -> str:
    """Names the seat without naming the cookie (a key is not a secret)."""
    return hashlib.sha256(f"{browser}|{name.lower()}".encode()).hexdigest()


class TutorialClient:
    """One Socket.IO connection speaking the tutorial's events."""

    def __init__(
        self, connect: Connector, peer: Peer, directory: Directory, browser: str | None = None
    ) -> None:
        """``browser``: the connection's browser cookie; without one, no seat is ever re-taken."""
        self.bridge = Bridge(connect, self._on_native, immediate=True, refused=self.acted)
        self.browser = browser
        self.emit = peer.emit
        self.hangup = peer.hangup
        self.sid = peer.sid
        self.directory = directory
        self.name: str | None = None
        self.token: str | None = None
        self.nonce: str | None = None
        """With a browser cookie: what, with the cookie and the name, makes this session's token."""
        self.code: str | None = None
        self.me: str | None = None
        self.state = WAITING
        self.members: dict[str, Message] = {}
        self.capacity = 0
        self.seats: dict[int, str] = {}
        self.view: Message = {}
        self.hand_sent: list[int] | None = None
        self.ticker: asyncio.Task[None] | None = None

    # --- client → server ---------------------------------------------------

    async def request_room(self, name: Any) -> None:
        """``requestRoom``: re-seat if this browser's player of that name dropped out, else quick play."""
        if self.code is not None:
            self._response_room()
            return
        if not isinstance(name, str) or not name.strip():
            self.emit("responseRoom", NO_ROOM)
            return
        if self.token is None:  # a session once per socket (a closed room leaves it identified)
            self.name = name.strip()[:NAME_LIMIT]  # the tutorial has no way to show a name error
            reply = await self._reseat()
            if reply is None or reply["type"] != "welcome":
                reply = await self._identify()
            if reply["type"] != "welcome":
                self.emit("responseRoom", NO_ROOM)
                return
            self.token = reply["token"]
        reply = await self.bridge.request("quick_play", game="uno")
        if reply["type"] == "error" and reply["code"] != "already_in_room":
            self.emit("responseRoom", NO_ROOM)

    async def play_card(self, data: Any) -> None:
        """``playCard [n, room]``: the numbered card, with the translation defaults filled in."""
        action = self._play_action(data)
        if isinstance(action, str):
            self.emit("error", {"message": action})
        else:
            await self._act(action)

    async def draw_card(self, data: Any) -> None:
        """``drawCard [1, room]``: draw; or accept a pending Wild Draw Four; or pass after a playable draw."""
        action = self._draw_action(data)
        if isinstance(action, str):
            self.emit("error", {"message": action})
        else:
            await self._act(action)

    def action_now(self, event: str, data: Any) -> Message | None:
        """The game action a ``playCard``/``drawCard`` asks for, for the fast lane; None when the
        event must take the ordinary path (another event, or one refused with an ``error``)."""
        if event == "playCard":
            action = self._play_action(data)
        elif event == "drawCard":
            action = self._draw_action(data)
        else:
            return None
        return None if isinstance(action, str) else action

    def _play_action(self, data: Any) -> Message | str:
        """The action for ``playCard``, or why it is refused."""
        problem = self._room_problem(data)
        if problem is not None:
            return problem
        card = number_to_card(data[0])
        hand = [c["id"] for c in self.view.get("hand", [])]
        if card is None or card not in hand:
            return "you do not hold that card"
        # The view lists this seat's legal plays (Wild colours, Seven Swap targets and the UNO call
        # included): pick the tutorial's default among them. None listed: the engine says why not.
        plays = [a for a in self.view.get("legal", []) if a["type"] == "play" and a["card"] == card]
        colour = self._most_held_color(card) if any("color" in a for a in plays) else ""
        counts = self.view.get("counts", [])
        return min(
            plays,
            key=lambda a: (a.get("color", colour) != colour, counts[a["target"]] if "target" in a else 0),
            default={"type": "play", "card": card},
        )

    def _draw_action(self, data: Any) -> Message | str:
        """The action for ``drawCard``, or why it is refused."""
        problem = self._room_problem(data)
        if problem is not None:
            return problem
        pending = self.view.get("pending") or {}
        mine = self.view.get("turn") is not None and self.view.get("turn") == self._my_seat()
        if mine and pending.get("challenge"):
            return {"type": "accept"}
        if mine and pending.get("drawn_card_playable"):
            return {"type": "pass"}
        return {"type": "draw"}

    async def close(self) -> None:
        """Socket gone: keep the seat for the grace period and remember the name for re-seating."""
        self._stop_ticker()
        try:  # in a cluster a Redis write: the seat's grace period starts even if it fails
            if self.code is not None and self.name and self.token and self.browser and self.nonce:
                await self.directory.dropped(self.browser, self.name, self.code, self.nonce)
        finally:
            await self.bridge.close(leave=False)

    # --- server → client ---------------------------------------------------

    def _on_native(self, message: Message) -> None:
        kind = message.get("type")
        if kind == "game":  # the message a game sends most (one per player per move): looked up first
            if self.code is not None:
                self._game(message)
            return
        if kind == "error" and "id" not in message:  # a fast-lane action over the rate limit
            self.emit("error", {"message": message["message"], "code": message["code"]})
            return
        if kind == "connection_closed":  # flood or overflow: the server dropped this client
            self.hangup()
            return
        if kind == "room":
            self._seated(message)
            return
        if self.code is None:
            return
        if kind == "member_joined":
            self.members[message["member"]["id"]] = message["member"]
            self._response_room()
        elif kind == "member_left":
            self.members.pop(message["member"], None)
            self.emit("playerDisconnect", self.code)
        elif kind == "member_updated":
            member = message["member"]
            before = self.members.get(member["id"], {})
            self.members[member["id"]] = member
            if before.get("connected") and not member["connected"]:
                self.emit("playerDisconnect", self.code)
        elif kind == "countdown":
            self._stop_ticker()
            if message.get("kind"):
                self.ticker = asyncio.create_task(self._tick(message.get("remaining") or 0))
        elif kind == "game_started":
            self.state = PLAYING
            self.seats = {s["seat"]: s["member"] for s in message["seats"]}
            if self._stop_ticker():
                self.emit("countDown", 0)
            self.view = message.get("view") or {}
            self._table()
        elif kind == "game_over":
            self.state = FINISHED
            self.bridge.post("rematch")
        elif kind in ("kicked", "room_closed"):
            self._stop_ticker()
            self.code, self.members, self.seats, self.view = None, {}, {}, {}

    def _seated(self, room: Message) -> None:
        """A snapshot: on quick play, after a re-seat, and when the room reopens after a game."""
        self.code = room["code"]
        self.me = room["you"]["member"]
        self.state = room["state"]
        self.capacity = room["capacity"]
        self.members = {m["id"]: m for m in room["members"]}
        game = room.get("table") or {}
        self.seats = {s["seat"]: s["member"] for s in game.get("seats", [])}
        self.view = game.get("view") or {}
        self.hand_sent = None
        self._response_room()
        countdown = (room.get("timers") or {}).get("countdown")
        if countdown and countdown.get("kind"):
            self._stop_ticker()
            self.ticker = asyncio.create_task(self._tick(countdown.get("remaining") or 0))
        if self.state == PLAYING:
            self._table()
        elif self.state == WAITING and room.get("outcome") is None and self._players() >= 2:
            self.bridge.post("ready", ready=True)

    def _game(self, message: Message) -> None:
        self.view = message.get("view") or {}
        turn = None
        for event in message.get("events", []):
            if event.get("type") in ("play", "first_card"):
                self.emit("sendCard", card_to_number(event["card"]["id"]))
            elif event.get("type") == "turn":
                turn = event["seat"]
        self._hand()
        if turn is not None:
            self._say_turn(turn)
        self._deal_if_dealer()

    def _table(self) -> None:
        """The tutorial's start-of-game trio: haveCard, turnPlayer, sendCard."""
        self._hand()
        if self.view.get("turn") is not None:
            self._say_turn(self.view["turn"])
        if self.view.get("top"):
            self.emit("sendCard", card_to_number(self.view["top"]["id"]))
        self._deal_if_dealer()

    def _deal_if_dealer(self) -> None:
        """Between rounds, this client deals the next one if it is to: it has no button to."""
        dealer = self.view.get("dealing")
        if dealer is not None and dealer == self._my_seat():
            self.bridge.post("action", action={"type": "deal"})

    def _hand(self) -> None:
        if "hand" not in self.view:
            return
        numbers = [card_to_number(c["id"]) for c in self.view["hand"]]
        if numbers != self.hand_sent:
            self.hand_sent = numbers
            self.emit("haveCard", numbers)

    def _response_room(self) -> None:
        self.emit("responseRoom", [self.code, self._players(), self.capacity])

    async def _tick(self, remaining: float) -> None:
        """``countDown`` once a second from the seconds left; the game start sends the final 0."""
        for value in range(math.ceil(remaining), 0, -1):
            self.emit("countDown", value)
            await asyncio.sleep(1)

    def _stop_ticker(self) -> bool:
        """Cancel the countdown ticker; True if one was running."""
        ticker, self.ticker = self.ticker, None
        if ticker is None:
            return False
        ticker.cancel()
        return True

    # --- helpers -------------------------------------------------------------

    def _say_turn(self, seat: int) -> None:
        """``turnPlayer``: this socket's id on its own turn, else the member id of the player to move."""
        member = self.seats.get(seat)
        if member is None or self.code is None:
            self.emit("turnPlayer", None)
        else:
            self.emit("turnPlayer", self.sid if member == self.me else member)

    async def _reseat(self) -> Message | None:
        """Resume the session this browser dropped under this name (wherever it dropped); None if none."""
        if not self.browser or not self.name:
            return None
        nonce = await self.directory.reclaim(self.browser, self.name)
        if nonce is None:
            return None
        reply = await self.bridge.request("resume", token=seat_token(self.browser, self.name, nonce))
        if reply["type"] == "welcome":
            self.nonce = nonce
        return reply

    async def _identify(self) -> Message:
        """A new session; with a browser cookie, under a token the cookie can rebuild."""
        if not self.browser or not self.name:
            return await self.bridge.request("identify", name=self.name)
        nonce = secrets.token_urlsafe(12)
        token = seat_token(self.browser, self.name, nonce)
        reply = await self.bridge.request("identify", name=self.name, token=token)
        if reply["type"] == "welcome":
            self.nonce = nonce
        return reply

    def _room_problem(self, data: Any) -> str | None:
        """Why ``data`` is not the ``[value, room]`` shape for the room this socket is in, or None.

        ``room`` is what the client kept from ``responseRoom``: the name, or the whole
        ``[name, people, maxPeople]`` list when the client stored it as it came.
        """
        if not isinstance(data, list) or not data:
            return "expected [value, room]"
        room = data[1] if len(data) > 1 else None
        if isinstance(room, list) and room:
            room = room[0]
        if self.code is None or room not in (None, self.code):
            return "you are not in that room"
        return None

    async def _act(self, action: Message) -> None:
        """Queued for the room at once when the session can take it (the native fast lane, the same
        validation), its refusal reported when it comes back; else as a request."""
        if not self.bridge.act_now(action):
            self.acted(await self.bridge.request("action", action=action))

    def acted(self, reply: Message) -> None:
        """The reply to a game action: a refusal becomes an ``error`` event."""
        if reply["type"] == "error":
            self.emit("error", {"message": reply["message"], "code": reply["code"]})

    def _players(self) -> int:
        return sum(1 for m in self.members.values() if m["role"] == PLAYER)

    def _my_seat(self) -> int | None:
        return next((seat for seat, mid in self.seats.items() if mid == self.me), None)

    def _most_held_color(self, played: int) -> str:
        counts = Counter(c["color"] for c in self.view["hand"] if c["id"] != played and c["color"] != "wild")
        return counts.most_common(1)[0][0] if counts else "red"
