"""The UNO design document's Socket.IO events (its "Socket Events API" tables).

One ``DocClient`` per Socket.IO connection that speaks these events. The player's display name
comes from the connection's ``auth`` (``{"name": ...}``) or ``?name=`` (default "Guest"), since
the document has no sign-in event. The document has no reconnection either: an extra ``session``
event gives each connection its session token, and a connection made with ``auth`` ``{"token": ...}``
(or ``?token=``) resumes that session — within the grace period, its seat and hand come back
with ``room-joined``. Room ids are native room codes; user ids are native member
ids. Cards use the document's Card shape with ``id`` ``"card-<engine id>"``; ``play-card``
also accepts the bare integer. Events the rules need and the table lacks are extra events
(see docs/protocol.md). Hands only ever reach their owner, because each connection receives
its own seat's native view and translates only that.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any, ClassVar

from parlour.games.uno import CARDS
from parlour.net.adapters.link import Bridge, Connector, Message
from parlour.net.adapters.plain_socket import Peer
from parlour.rooms import CommandError
from parlour.rooms.enums import COUNTDOWN, FINISHED, PLAYER, PLAYING, SPECTATOR, WAITING
from parlour.rooms.validate import clean_room_name

SETTING_NAMES = {
    "maxPlayers": "max_players",
    "turnTimer": "turn_timer",
    "drawUntilPlayable": "draw_until_playable",
    "stackingDraw": "stacking",
    "jumpIn": "jump_in",
    "sevenSwap": "seven_swap",
    "zeroRotate": "zero_rotate",
    "forcedPlay": "forced_play",
    "challengeWildDraw4": "challenge_wild_draw4",
    "unoPenalty": "uno_penalty",
    "targetScore": "target_score",
}
_ENGINE_NAMES = {v: k for k, v in SETTING_NAMES.items()}
_GAME_STATES = {WAITING: "waiting", COUNTDOWN: "waiting", PLAYING: "playing", FINISHED: "finished"}
"""A room state as the design document's ``gameState`` names it."""


def _listed(room: Message, names: dict[str, str]) -> Message:
    """A lobby summary (``lobby`` / ``lobby_*``) as one ``rooms-list`` entry of the document."""
    return {
        "id": room["code"],
        "name": names.get(room["code"], room["code"]),
        "players": room["players"],
        "maxPlayers": room["capacity"],
        "gameState": _GAME_STATES.get(room["state"], room["state"]),
        "hasPassword": room["has_password"],
    }


# Engine event → (extra event name, fields kept); the table's own events are handled in code.
_EXTRA_EVENTS = {
    "skip": "turn-skipped",
    "reverse": "direction-reversed",
    "pass": "turn-passed",
    "drawn_playable": "drawn-card-playable",
    "reshuffle": "deck-reshuffled",
    "accept": "wild-accepted",
    "challenge": "wild-challenged",
    "swap": "hands-swapped",
    "rotate": "hands-rotated",
    "round_over": "round-over",
    "timeout": "turn-timed-out",
    "player_left": "player-removed-from-game",
}
_SIMPLE_ACTIONS = {
    "draw-card": "draw",
    "pass-turn": "pass",
    "accept-wild": "accept",
    "challenge-wild": "challenge",
    "call-uno": "call_uno",
}
"""Events that are one engine action with no fields (the fast lane's, besides ``play-card``)."""
_CUES = ("turn", "drawn_playable")
"""Engine events after which a client may act: its hand must be current by then."""


def card(engine_card: Message) -> Message:
    """The document's Card object for an engine card dict."""
    return {
        "id": f"card-{engine_card['id']}",
        "color": engine_card["color"],
        "type": engine_card["type"],
        "value": engine_card["value"],
    }


def card_id(raw: Any) -> int | None:
    """An engine card id from ``"card-12"`` or ``12``; None when it names no card."""
    if isinstance(raw, str) and raw.startswith("card-") and raw[5:].isdigit():
        raw = int(raw[5:])
    if type(raw) is int and 0 <= raw < len(CARDS):
        return raw
    return None


def engine_settings(raw: Any) -> dict[str, Any]:
    """The document's settings keys as the engine's; unknown keys pass through for the engine to refuse."""
    if not isinstance(raw, dict):
        return {}
    settings: dict[str, Any] = raw  # JSON object keys are strings
    return {SETTING_NAMES.get(k, k): v for k, v in settings.items()}


class LobbyFeed:
    """The UNO lobby of every design-document client, kept once for the whole server.

    Each client used to hold a native lobby subscription of its own and, on every change, encoded
    and emitted the whole room list to itself: O(clients × rooms) per change, most of the server's
    time under load. Now one native session follows the lobby, and the changes of one event-loop
    pass become one ``rooms-list``, encoded once and sent to a Socket.IO room holding every client
    (``broadcast``). Nothing waits on a timer: the list goes out as soon as the pass ends.
    """

    def __init__(self, names: dict[str, str], broadcast: Callable[[Message], None]) -> None:
        self.names = names
        self.rooms: dict[str, Message] = {}
        self._broadcast = broadcast
        self._bridge: Bridge | None = None
        self._ready: asyncio.Future[None] | None = None
        self._due = False

    async def start(self, connect: Connector) -> None:
        """Subscribe once (the first client's connection does it; the others wait for it)."""
        ready = self._ready
        if ready is None:
            ready = self._ready = asyncio.get_running_loop().create_future()
            try:
                bridge = Bridge(connect, self._on_native, immediate=True)
                await bridge.request("identify", name="lobby")
                reply = await bridge.request("lobby_subscribe", game="uno")
            except BaseException as exc:  # the next client tries again; those waiting learn why
                self._ready = None
                ready.set_exception(exc)
                raise
            if reply["type"] == "lobby":
                self.rooms = {r["code"]: r for r in reply["rooms"]}
            self._bridge = bridge
            ready.set_result(None)
        await ready

    def payload(self) -> Message:
        """The ``rooms-list`` data as the document has it."""
        return {"rooms": [_listed(r, self.names) for r in self.rooms.values()]}

    def _on_native(self, message: Message) -> None:
        kind = message.get("type")
        if kind == "lobby_room":
            self.rooms[message["room"]["code"]] = message["room"]
        elif kind == "lobby_room_removed":
            self.rooms.pop(message["code"], None)
        else:
            return
        if not self._due:
            self._due = True
            asyncio.get_running_loop().call_soon(self._send)

    def _send(self) -> None:
        self._due = False
        self._broadcast(self.payload())


class DocClient:
    """One Socket.IO connection speaking the design document's events."""

    def __init__(
        self,
        connect: Connector,
        peer: Peer,
        name: str,
        rooms: dict[str, str],
        token: str | None = None,
        feed: LobbyFeed | None = None,
    ) -> None:
        self.feed = feed
        self.bridge = Bridge(connect, self._on_native, immediate=True, refused=self.refused)
        self.emit = peer.emit
        self.hangup = peer.hangup
        self.name = name
        self.token = token
        self.welcome: Message | None = None
        self.session_sent = False
        self.room_names = rooms
        self.joining = False
        self.lobby: dict[str, Message] = {}
        self.room: Message | None = None
        self.me: str | None = None
        self.members: dict[str, Message] = {}
        self.seats: dict[int, str] = {}
        self.seat_names: dict[int, str] = {}
        self.hand_sent: list[Message] | None = None
        self.view: Message = {}
        self.turn: Message | None = None

    @property
    def in_room(self) -> bool:
        return self.room is not None

    async def start(self) -> None:
        """Resume the session of ``token`` (its room comes back as ``room-joined``) or identify;
        send the ``session`` token; subscribe to the UNO lobby and send the first ``rooms-list``."""
        reply = None
        if self.token is not None:
            reply = await self.bridge.request("resume", token=self.token)
            if reply["type"] != "welcome":  # an expired or unknown token: say so, start afresh
                self._error(reply["message"], reply["code"])
                reply = None
        if reply is None:
            reply = await self.bridge.request("identify", name=self.name)
        if reply["type"] != "welcome":  # say why, and carry on as a guest
            self._error(reply["message"], reply["code"])
            reply = await self.bridge.request("identify", name="Guest")
        self._session()
        if self.feed is not None:  # the server's shared lobby feed; the caller joins this client to it
            return
        reply = await self.bridge.request("lobby_subscribe", game="uno")
        if reply["type"] == "lobby":
            self.lobby = {r["code"]: r for r in reply["rooms"]}
            self.rooms_list()

    def _session(self) -> None:
        """The ``session`` event, once, before anything about a room (it may come from either task)."""
        if self.welcome is not None and not self.session_sent:
            self.session_sent = True
            self.emit("session", {"token": self.welcome["token"], "name": self.welcome["name"]})

    async def close(self) -> None:
        """Connection gone: keep the seat for the grace period, as native clients do."""
        await self.bridge.close(leave=False)

    # --- client → server ---------------------------------------------------

    async def on_event(self, event: str, data: Any) -> None:
        """One client event; anything malformed or refused gets an ``error`` event."""
        handler = self._handlers.get(event)
        if handler is None:
            return
        if data is None:
            data = {}
        if not isinstance(data, dict):
            self._error("event data must be an object")
            return
        await handler(self, data)

    def action_now(self, event: str, data: Any) -> Message | None:
        """The game action a ``play-card``, ``draw-card``, ``pass-turn``, ``accept-wild``,
        ``challenge-wild`` or ``call-uno`` asks for, for the fast lane; None when the event must
        take the ordinary path (another event, or one refused with an ``error``)."""
        if data is None:
            data = {}
        if not isinstance(data, dict):
            return None
        if event == "play-card":
            return self._play_action(data)
        kind = _SIMPLE_ACTIONS.get(event)
        return None if kind is None else {"type": kind}

    def _play_action(self, data: Message) -> Message | None:
        """The action for ``play-card``; None when ``cardId`` names no card."""
        cid = card_id(data.get("cardId"))
        if cid is None:
            return None
        action: dict[str, Any] = {"type": "play", "card": cid}
        if data.get("chosenColor") is not None:
            action["color"] = data["chosenColor"]
        if data.get("targetUserId") is not None:
            action["target"] = self._seat_of(data["targetUserId"])
        if data.get("uno") is not None:
            action["uno"] = data["uno"]
        return action

    async def _create_room(self, data: Message) -> None:
        name = data.get("name")
        if isinstance(name, str) and name.strip():
            try:
                name = clean_room_name(name)
            except CommandError as exc:
                self._error(exc.message, exc.code)
                return
        fields: dict[str, Any] = {
            "game": "uno",
            "public": True,
            "settings": engine_settings(data.get("settings")),
        }
        if data.get("maxPlayers") is not None:
            if type(data["maxPlayers"]) is not int or abs(data["maxPlayers"]) > 2**31:
                self._error("maxPlayers must be a whole number")
                return
            fields["capacity"] = data["maxPlayers"]
            fields["settings"].setdefault("max_players", data["maxPlayers"])
        if fields["settings"].get("target_score") is None:  # the document's game ends with the hand
            fields["settings"]["target_score"] = 0
        reply = await self._enter("create_room", **fields)
        if reply is not None:
            self.room_names[reply["code"]] = name if isinstance(name, str) and name.strip() else reply["code"]
            self.emit("room-created", {"roomId": reply["code"]})
            self._room_joined()
            self.rooms_list()

    async def _join_room(self, data: Message) -> None:
        if await self._enter("join", code=str(data.get("roomId", ""))) is not None:
            self._room_joined()

    async def _spectate_room(self, data: Message) -> None:
        if await self._enter("spectate", code=str(data.get("roomId", ""))) is not None:
            self._room_joined()

    def _is_my_room(self, code: str) -> bool:
        return self.room is not None and code.strip().upper() == self.room["code"]

    async def _leave_room(self, data: Message) -> None:
        if await self._ask("leave") is not None:
            self.room, self.members, self.seats, self.view = None, {}, {}, {}

    async def _start_game(self, data: Message) -> None:
        await self._ask("start")

    async def _play_card(self, data: Message) -> None:
        action = self._play_action(data)
        if action is None:
            self._error("cardId names no card")
            return
        await self._act(action)

    async def _simple(self, kind: str) -> None:
        await self._act({"type": kind})

    async def _draw_card(self, data: Message) -> None:
        await self._simple("draw")

    async def _call_uno(self, data: Message) -> None:
        await self._simple("call_uno")

    async def _challenge_wild(self, data: Message) -> None:
        await self._simple("challenge")

    async def _accept_wild(self, data: Message) -> None:
        await self._simple("accept")

    async def _pass_turn(self, data: Message) -> None:
        await self._simple("pass")

    async def _catch_uno(self, data: Message) -> None:
        await self._act({"type": "catch", "target": self._seat_of(data.get("targetUserId"))})

    async def _chat_message(self, data: Message) -> None:
        if not isinstance(data.get("message"), str):
            self._error("message must be text")
            return
        await self._ask("chat", text=data["message"])

    async def _rematch(self, data: Message) -> None:
        await self._ask("rematch")

    _handlers: ClassVar[dict[str, Callable[[DocClient, Message], Awaitable[None]]]] = {
        "create-room": _create_room,
        "join-room": _join_room,
        "spectate-room": _spectate_room,
        "leave-room": _leave_room,
        "start-game": _start_game,
        "play-card": _play_card,
        "draw-card": _draw_card,
        "call-uno": _call_uno,
        "catch-uno": _catch_uno,
        "challenge-wild": _challenge_wild,
        "accept-wild": _accept_wild,
        "pass-turn": _pass_turn,
        "chat-message": _chat_message,
        "rematch": _rematch,
    }

    # --- server → client ---------------------------------------------------

    def _on_native(self, message: Message) -> None:
        kind = message.get("type")
        if kind == "game":  # the message a game sends most (one per player per move): looked up first
            if not self.joining and self.room is not None:
                self._game(message)
                self._events(message["events"])
            return
        if kind == "error" and "id" not in message:  # a fast-lane action over the rate limit
            self._error(message["message"], message["code"])
            return
        if kind == "connection_closed":  # flood, overflow, or the session resumed elsewhere
            self.hangup()
            return
        if kind == "welcome":
            self.welcome = message
        elif kind == "room" and self.room is None and not self.joining:  # after ``resume``: back in
            self._session()
            self._snapshot(message)
            self._room_joined()
            return
        if kind == "lobby_room":
            self.lobby[message["room"]["code"]] = message["room"]
            self.rooms_list()
        elif kind == "lobby_room_removed":
            self.lobby.pop(message["code"], None)
            self.rooms_list()
        if self.joining or self.room is None:
            return
        if kind == "room":
            self._snapshot(message)
            self.emit("room-updated", {"room": self._room()})
        elif kind == "member_joined":
            member = message["member"]
            self.members[member["id"]] = member
            if member["role"] == PLAYER:
                self.emit("player-joined", {"user": _user(member), "players": self._players()})
            else:
                self.emit("spectator-joined", {"user": _user(member), "spectators": self._spectators()})
        elif kind == "member_left":
            self.members.pop(message["member"], None)
            self.emit("player-left", {"userId": message["member"], "players": self._players()})
        elif kind == "member_updated":
            self.members[message["member"]["id"]] = message["member"]
            self.emit("player-updated", {"user": _user(message["member"]), "players": self._players()})
        elif kind == "host_changed":
            self.room["host"] = message["host"]
            self.emit("host-changed", {"host": message["host"]})
        elif kind == "chat":
            chat = message["message"]
            user = {"id": chat["member"], "name": chat["name"]}
            self.emit(
                "chat-message", {"user": user, "message": chat["text"], "timestamp": int(chat["at"] * 1000)}
            )
        elif kind == "countdown":
            self.emit("countdown", {"seconds": message.get("remaining")})
        elif kind == "game_started":
            self._seating(message["seats"])
            self.room["state"] = PLAYING
            self._game(message)
            self._events(message["events"])
        elif kind == "game_over":
            self.room["state"] = FINISHED
            self._game_won(message["outcome"])
        elif kind == "state_changed":
            self.room["state"] = message["state"]
        elif kind in ("kicked", "room_closed"):
            self.emit("room-closed", {"reason": message.get("reason", "kicked")})
            self.room, self.members, self.seats, self.view = None, {}, {}, {}

    def _events(self, events: list[Message]) -> None:
        """Engine events as the table's events, plus documented extras.

        A round's deal (the first, and each of a match's next rounds) is announced with
        ``game-started {room}``: the table after the deal and the first discard's effect. The events
        before the deal (the last round's end) come first; those after it are already in that room,
        so its draws (a first Draw Two) are not sent again. ``hand-updated`` follows every event
        that changed the hand and precedes the one that asks the client to act (``turn-changed``,
        ``drawn-card-playable``): each card reaches the hand once, however a client counts."""
        deal = next((i for i, e in enumerate(events) if e["type"] == "deal"), None)
        if deal is None:
            self._table_events(events, tell_hand=True)
            return
        self._table_events(events[:deal], tell_hand=False)
        self.emit("game-started", {"room": self._room()})
        self.hand_sent = [card(c) for c in self.view.get("hand", [])] if "hand" in self.view else None
        self._table_events([e for e in events[deal + 1 :] if e["type"] != "draw"], tell_hand=False)

    def _table_events(self, events: list[Message], *, tell_hand: bool) -> None:
        cue = len(events)
        if tell_hand:  # hand-updated goes after the last change to the hand, before the next cue
            changed = max((i for i, e in enumerate(events) if self._changes_hand(e)), default=-1)
            cue = next(
                (i for i in range(changed + 1, len(events)) if events[i]["type"] in _CUES), len(events)
            )
        for i, event in enumerate(events):
            if i == cue:
                self._hand_updated()
            self._table_event(event)
        if tell_hand and cue == len(events):
            self._hand_updated()

    def _changes_hand(self, event: Message) -> bool:
        """Whether an event changed this seat's hand (a draw, its own play, hands moving)."""
        kind = event["type"]
        return (
            "cards" in event
            or kind in ("swap", "rotate")
            or (kind == "play" and event["seat"] == self._my_seat())
        )

    def _hand_updated(self) -> None:
        if "hand" not in self.view:
            return
        hand = [card(c) for c in self.view["hand"]]
        if hand != self.hand_sent:
            self.hand_sent = hand
            self.emit("hand-updated", {"hand": hand})

    def _table_event(self, event: Message) -> None:
        kind = event["type"]
        if kind == "play":
            user = self._seat_user(event["seat"])
            played = {"user": user, "card": card(event["card"]), "currentColor": event["color"]}
            played.update(cardCount=event["count"], uno=event["uno"], jumpIn=event["jump_in"])
            self.emit("card-played", played)
            if event.get("uno"):
                self.emit("uno-called", {"userId": user["id"], "user": user})
        elif kind == "draw":
            user = self._seat_user(event["seat"])
            self.emit("card-drawn", {"userId": user["id"], "cardCount": event["count"]})
            if "cards" in event:
                self.emit("cards-drawn", {"cards": [card(c) for c in event["cards"]]})
        elif kind == "turn":
            turn = {
                "currentPlayer": self._seat_user(event["seat"])["id"],
                "turnDirection": event["direction"],
            }
            self.emit("turn-changed", turn)
        elif kind == "uno_called":
            user = self._seat_user(event["seat"])
            self.emit("uno-called", {"userId": user["id"], "user": user})
        elif kind == "uno_caught":
            fields = {"accuserId": self._seat_user(event["seat"])["id"], "penalty": event["penalty"]}
            self.emit("uno-caught", {**fields, "targetId": self._seat_user(event["target"])["id"]})
        elif kind in _EXTRA_EVENTS:
            self.emit(_EXTRA_EVENTS[kind], self._extra(event))

    def _game_won(self, outcome: Message) -> None:
        winners = outcome.get("winners") or []
        winner = self._seat_user(winners[0]) if winners else None
        scores = outcome.get("scores") or {}
        score = scores.get(str(winners[0]), 0) if winners else 0
        self.emit("game-won", {"winner": winner, "score": score, "reason": outcome.get("reason")})

    # --- shapes --------------------------------------------------------------

    def _room(self) -> Message:
        """The document's Room object as this connection may see it (own hand only, no deck)."""
        room, view = self.room or {}, self.view
        settings = {
            _ENGINE_NAMES.get(k, k): v
            for k, v in (view.get("settings") or room.get("settings") or {}).items()
        }
        settings.setdefault("maxPlayers", room.get("capacity"))
        out: dict[str, Any] = {
            "id": room.get("code"),
            "name": self.room_names.get(room.get("code", ""), room.get("code")),
            "host": room.get("host"),
            "players": self._players(),
            "spectators": self._spectators(),
            "gameState": _GAME_STATES.get(room.get("state", WAITING), "waiting"),
            "settings": settings,
            "chatHistory": [_chat(c) for c in room.get("chat", [])],
        }
        if view:
            pending = view.get("pending") or {}
            out.update(
                {
                    "deckCount": view.get("draw_pile"),
                    "discardPile": [card(view["top"])],
                    "hands": {self.me: [card(c) for c in view["hand"]]} if "hand" in view else {},
                    "handCounts": {self.seats.get(s): n for s, n in enumerate(view.get("counts", []))},
                    "currentPlayer": self.seats.get(view["turn"]) if view.get("turn") is not None else None,
                    "turnDirection": view.get("direction"),
                    "currentColor": view.get("color"),
                    "drawStack": pending.get("draw_stack", 0),
                    "unoCalled": {self.seats.get(s): c for s, c in enumerate(view.get("uno_called", []))},
                    "turnDeadline": (self.turn or {}).get("deadline"),
                }
            )
        return out

    def _room_joined(self) -> None:
        role = self.members.get(self.me or "", {}).get("role", PLAYER)
        room = self._room()
        payload: dict[str, Any] = {"room": room, "role": role, "chatHistory": room["chatHistory"]}
        if "hand" in self.view:
            payload["hand"] = self.hand_sent = [card(c) for c in self.view["hand"]]
        self.emit("room-joined", payload)

    def _players(self) -> list[Message | None]:
        room = self.room or {}
        slots: list[Message | None] = [None] * max(room.get("capacity", 0), len(self.seats))
        for member in self.members.values():
            seat = member.get("seat")
            if member["role"] == PLAYER and seat is not None:
                if seat >= len(slots):
                    slots.extend([None] * (seat + 1 - len(slots)))
                slots[seat] = _user(member)
        return slots

    def _spectators(self) -> list[Message]:
        return [_user(m) for m in self.members.values() if m["role"] == SPECTATOR]

    def _extra(self, event: Message) -> Message:
        """An engine event with seats turned into user ids and private hands dropped."""
        out: dict[str, Any] = {}
        for key, value in event.items():
            if key in ("type", "hand", "cards"):
                continue
            if key in ("seat", "target", "offender", "winner", "dealer") and isinstance(value, int):
                out[f"{key}Id"] = self.seats.get(value)
            else:
                out[key] = value
        return out

    def rooms_list(self) -> None:
        if self.feed is not None:
            self.emit("rooms-list", self.feed.payload())
            return
        self.emit("rooms-list", {"rooms": [_listed(r, self.room_names) for r in self.lobby.values()]})

    # --- helpers -------------------------------------------------------------

    def _snapshot(self, room: Message) -> None:
        self.room = room
        self.me = room["you"]["member"]
        self.members = {m["id"]: m for m in room["members"]}
        game = room.get("table") or {}
        self._seating(game.get("seats", []))
        self.view = game.get("view") or {}
        self.turn = game.get("turn")
        self.hand_sent = None

    def _seating(self, seats: list[Message]) -> None:
        self.seats = {s["seat"]: s["member"] for s in seats}
        self.seat_names = {s["seat"]: s["name"] for s in seats}

    def _game(self, message: Message) -> None:
        self.view = message.get("view") or {}
        self.turn = message.get("turn")

    def _seat_user(self, seat: int) -> Message:
        """The user in an engine seat (named even after leaving mid-game)."""
        return {"id": self.seats.get(seat), "name": self.seat_names.get(seat)}

    def _my_seat(self) -> int | None:
        return self._seat_of(self.me)

    def _seat_of(self, user_id: Any) -> int | None:
        return next((seat for seat, mid in self.seats.items() if mid == user_id), None)

    async def _enter(self, type_: str, **fields: Any) -> Message | None:
        """Join, spectate or create; the room this client is already in answers ``room-joined`` again."""
        if self.room is not None and type_ != "create_room" and self._is_my_room(fields["code"]):
            self._room_joined()  # e.g. join-room right after create-room: already seated
            return None
        if self.room is not None:
            self._error("leave your current room first")
            return None
        self.joining = True
        reply = await self.bridge.request(type_, **fields)
        self.joining = False
        if reply["type"] != "room":
            self._error(reply["message"], reply["code"])
            return None
        if reply.get("game") != "uno":  # a Cheat or Dots room's code: these events cannot show it
            await self.bridge.request("leave")
            self._error("that room does not play UNO", "wrong_game")
            return None
        self._snapshot(reply)
        return reply

    async def _ask(self, type_: str, **fields: Any) -> Message | None:
        reply = await self.bridge.request(type_, **fields)
        if reply["type"] == "error":
            self._error(reply["message"], reply["code"])
            return None
        return reply

    async def _act(self, action: Message) -> None:
        """A game action: queued for the room at once when the session can take it (the native fast
        lane, the same validation), its refusal reported when it comes back; else as a request."""
        if not self.bridge.act_now(action):
            await self._ask("action", action=action)

    def refused(self, error: Message) -> None:
        """A refused game action (the fast lane's): an ``error`` event."""
        self._error(error["message"], error["code"])

    def _error(self, message: str, code: str = "bad_request") -> None:
        """``bad_request``: the event's data is not what the event takes; else the native refusal's code."""
        self.emit("error", {"message": message, "code": code})


def _user(member: Message) -> Message:
    return {"id": member["id"], "name": member["name"]}


def _chat(entry: Message) -> Message:
    return {
        "user": {"id": entry["member"], "name": entry["name"]},
        "message": entry["text"],
        "timestamp": int(entry["at"] * 1000),
    }


EVENTS = tuple(DocClient._handlers)
"""Every client event this adapter handles (the table's and the documented extras)."""
