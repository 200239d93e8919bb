"""The Cheat write-up's ``action`` protocol on a plain websocket at ``/ws``.

Client actions become native requests (``create_game`` = identify + create_room, ``place_cards``
= an engine ``play``, ``accuse_cheater`` = ``call``...), and native broadcasts become the
write-up's server actions. Cards travel as ``{rank, suit}`` (rank 0 = A … 12 = K; suits hearts,
diamonds, spades, clubs = 0..3), which is the engine's numbering; a placed card is matched to
an id in the sender's own hand. Refusals use the write-up's texts where it has one and show up
where its client displays text: ``join_game_error`` before a room, ``waiting_screen_error`` in
the waiting room, ``info_text_update`` in a game.

There is no resume: a closed connection leaves at once, and the Cheat leave rule applies.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, ClassVar

from starlette.websockets import WebSocket

from parlour.net.adapters.link import Bridge, Connector, Message
from parlour.net.adapters.plain_socket import BadFrame, Post, decode, outbound, run_socket, text_field
from parlour.rooms.enums import BEFORE_START, FINISHED, PLAYER, PLAYING, WAITING

log = logging.getLogger(__name__)

NAME_LIMIT = 16
TOO_SHORT = "The provided username is too short."
TOO_LONG = "The provided username is too long."
NO_ROOM = "The game with the provided code does not exist."
ONGOING = "The game with the provided code is ongoing."
NEED_THREE = "Three or more people required to start the game."
NOT_ENOUGH = "Not enough players to continue."
_JOIN_ERRORS = {
    "room_not_found": NO_ROOM,
    "invalid_code": NO_ROOM,
    "game_in_progress": ONGOING,
    "room_full": "The game with the provided code is full.",
    "wrong_password": "The game with the provided code needs a password.",
    "banned": "You were removed from this game.",
    "already_in_room": "You are already in a game.",
}
_WAITING_ERRORS = {
    "not_enough_players": NEED_THREE,
    "not_host": "Only the host can start the game.",
}


def name_error(name: str | None) -> str | None:
    """The write-up's message for a name it would refuse, else None."""
    if name is None or not name.strip():
        return TOO_SHORT
    if len(name.strip()) > NAME_LIMIT:
        return TOO_LONG
    return None


class CheatClient:
    """One /ws connection speaking the write-up's actions."""

    def __init__(
        self,
        connect: Connector,
        send: Post,
        hangup: Callable[[], None],
        send_all: Callable[[list[Message]], None] | None = None,
    ) -> None:
        self.connect = connect
        self.send = send
        self.send_all = send_all
        self._batch: list[Message] | None = None
        self.hangup = hangup
        self._tasks: set[asyncio.Task[None]] = set()
        self.bridge: Bridge | None = None
        self.joining = False
        self.code: str | None = None
        self.me: str | None = None
        self.host: str | None = None
        self.state = WAITING
        self.members: dict[str, Message] = {}
        self.seats: dict[int, str] = {}
        self._seat_memo: tuple[dict[int, str], str | None, int | None] | None = None
        """(seats, me, my seat): asked several times per message, recomputed when either changes."""
        self.seat_names: dict[int, str] = {}
        self._rows: tuple[list[int] | None, list[tuple[int, str, bool, bool]]] | None = None
        """(the view's ``active``, ``_seated_rows``): dropped when a member, the host or the seats change."""
        self.view: Message = {}
        self.previous_rank: int | None = None

    # --- client → server ---------------------------------------------------

    async def on_frame(self, raw: str | bytes | None) -> None:
        """Handle one client frame; every failure gets an answer the write-up's client shows."""
        try:
            message = decode(raw)
        except BadFrame as exc:
            self._error(str(exc))
            return
        action = message.get("action")
        handler = self._handlers.get(action) if isinstance(action, str) else None
        if handler is None:
            self._error("Unknown action.")
            return
        try:
            await handler(self, message)
        except Exception:
            log.exception("cheat action %s failed", action)
            self._error("Something went wrong on the server.")

    async def close(self) -> None:
        """The socket closed: leave at once (the write-up treats close as leave_game)."""
        await self._detach()

    async def _create_game(self, message: Message) -> None:
        await self._enter(message, None)

    async def _join_game(self, message: Message) -> None:
        code = text_field(message, "room_code") or text_field(message, "code") or ""
        await self._enter(message, code)

    async def _enter(self, message: Message, code: str | None) -> None:
        """Create (``code`` None) or join a game under the given name; joining the game this
        connection is already in (e.g. right after ``create_game``) answers as a join again."""
        if self.code is not None and code is not None and code.strip().upper() == self.code:
            self._in_one_write(self._rejoined)
            return
        if self.code is not None:
            self._send({"action": "join_game_error", "message": _JOIN_ERRORS["already_in_room"]})
            return
        name = text_field(message, "name")
        problem = name_error(name)
        if problem is None and code is not None and not code.strip():
            problem = NO_ROOM
        if problem is not None:
            self._send({"action": "join_game_error", "message": problem})
            return
        # The write-up's client is never told the legal plays: the room need not list them
        self.bridge = Bridge(
            self.connect, self._on_native, immediate=True, legal=False, refused=self._act_refused
        )
        reply = await self.bridge.request("identify", name=name)
        if reply["type"] == "welcome":
            self.joining = True
            if code is None:
                reply = await self.bridge.request("create_room", game="cheat", public=True)
            else:
                reply = await self.bridge.request("join", code=code)
            self.joining = False
        if reply["type"] != "room":
            await self._detach()
            text = _JOIN_ERRORS.get(reply.get("code", ""), reply.get("message", "Could not join."))
            self._send({"action": "join_game_error", "message": text})
            return
        self._snapshot(reply)
        self._in_one_write(self._waiting_screen)

    def _rejoined(self) -> None:
        """The screen a join of this game shows, for the player already in it: nothing changes."""
        if self.state in BEFORE_START:
            self._waiting_screen()
            return
        if self.state == PLAYING:
            self._cards()
            self._start_turn()
        self._player_list()

    async def _leave_game(self, message: Message) -> None:
        await self._detach()
        self._send({"action": "leave_game"})

    async def _start_game(self, message: Message) -> None:
        reply = await self._request("start")
        if reply is not None and reply["type"] == "error":
            text = _WAITING_ERRORS.get(reply["code"], reply["message"])
            self._send({"action": "waiting_screen_error", "message": text})

    async def _place_cards(self, message: Message) -> None:
        action = self._play(message)
        if action is not None:
            await self._act(action)

    def _play(self, message: Message) -> Message | None:
        """The engine play for a ``place_cards`` message, or None (the client has been told why)."""
        cards = message.get("cards")
        if not isinstance(cards, list):
            self._info("Select the cards to place.")
            return None
        ids = self._card_ids(cards)
        if ids is None:
            self._info("You do not hold those cards.")
            return None
        action: dict[str, Any] = {"type": "play", "cards": ids}
        if message.get("rank") is not None:
            action["rank"] = message["rank"]
        return action

    def frame_now(self, raw: str) -> bool:
        """``place_cards`` and ``accuse_cheater`` in a game, queued for the room at once (no task, no
        waiting); False, having done nothing, for any other frame (``on_frame`` takes it, in order)."""
        if self.bridge is None or self.code is None or ("place_cards" not in raw and "accuse" not in raw):
            return False
        try:
            message = decode(raw)
        except BadFrame:
            return False
        kind = message.get("action")
        if kind == "accuse_cheater":
            return self.bridge.act_now({"type": "call"})
        if kind != "place_cards":
            return False
        action = self._play(message)
        return action is None or self.bridge.act_now(action)

    def _act_refused(self, error: Message) -> None:
        self._info(error["message"])

    async def _accuse_cheater(self, message: Message) -> None:
        await self._act({"type": "call"})

    async def _play_again(self, message: Message) -> None:
        reply = await self._request("rematch")
        if reply is not None and reply["type"] == "error":
            self._info(reply["message"])

    _handlers: ClassVar[dict[str, Callable[[CheatClient, Message], Awaitable[None]]]] = {
        "create_game": _create_game,
        "join_game": _join_game,
        "leave_game": _leave_game,
        "start_game": _start_game,
        "place_cards": _place_cards,
        "accuse_cheater": _accuse_cheater,
        "play_again": _play_again,
    }

    # --- server → client ---------------------------------------------------

    def _send(self, frame: Message) -> None:
        if self._batch is not None:
            self._batch.append(frame)
        else:
            self.send(frame)

    def _in_one_write(self, build: Callable[[], None]) -> None:
        """Run ``build``: the frames it sends go out in one write (``send_all``), as a native
        message's do (the waiting screen's two or three frames when a game is created or joined)."""
        send_all = self.send_all
        if send_all is None or self._batch is not None:
            build()
            return
        batch: list[Message] = []
        self._batch = batch
        try:
            build()
        finally:
            self._batch = None
            if batch:
                send_all(batch)

    def _on_native(self, message: Message) -> None:
        """Translate one native message; what it produces goes out in one write (``send_all``), and
        a message that produces nothing (a move's ``ok``) in none."""
        send_all = self.send_all
        if send_all is None:
            self._translate(message)
            return
        batch: list[Message] = []
        self._batch = batch
        try:
            self._translate(message)
        finally:
            self._batch = None
            if batch:
                send_all(batch)

    def _translate(self, message: Message) -> None:
        kind = message.get("type")
        if kind == "connection_closed":  # flood or overflow: the server dropped this client
            self.hangup()
            return
        if self.joining or self.code is None:
            return
        if kind == "game":  # the message a game sends most
            self.view = message.get("view") or {}
            self._events(message.get("events", []))
        elif kind == "room":
            self._snapshot(message)
            if self.state == WAITING:
                self._waiting_screen()
        elif kind == "member_joined":
            self.members[message["member"]["id"]] = message["member"]
            self._rows = None
            self._player_list()
        elif kind == "member_left":
            self.members.pop(message["member"], None)
            self._rows = None
            self._player_list()
        elif kind == "member_updated":
            self.members[message["member"]["id"]] = message["member"]
            self._rows = None
            self._player_list()
        elif kind == "host_changed":
            self.host = message["host"]
            self._rows = None
            self._player_list()
            if self.host == self.me:
                self._send({"action": "become_host"})
        elif kind == "game_started":
            self.state = PLAYING
            self._seating(message["seats"])
            self.previous_rank = None
            self.view = message.get("view") or {}
            self._send({"action": "start_game"})
            self._cards()
            self._events(message.get("events", []))
        elif kind == "game_over":
            self.state = FINISHED
            self._player_list()
            self._send(
                {
                    "action": "end_game",
                    "game_over_text": self._game_over_text(message["outcome"]),
                    "can_play_again": self.host == self.me,
                }
            )
        elif kind == "state_changed":
            self.state = message["state"]
        elif kind in ("kicked", "room_closed"):
            self._spawn(self._detach())
            self._send({"action": "leave_game"})
        elif kind == "error" and "id" not in message:  # refused before it had an id: the rate limit
            self._error(message["message"])

    def _events(self, events: list[Message]) -> None:
        """Engine events as the write-up's actions, then the refreshed player list."""
        my_seat = self._my_seat()
        for event in events:
            kind = event.get("type")
            if kind == "played":
                self.previous_rank = event["rank"]
                self._table(event["pile_size"] - event["count"], event["count"])
                if event["seat"] == my_seat:
                    self._cards()
            elif kind == "called":
                self.previous_rank = None
                placer, caller = self._seat_name(event["placer"]), self._seat_name(event["caller"])
                if event["truthful"]:
                    self._info(f"{caller} wrongly accused {placer} of being a cheater.")
                else:
                    self._info(f"{placer} was a cheater!")
                self._table(0, 0)
            elif kind == "picked_up" and event["seat"] == my_seat:
                self._cards()
            elif kind == "left":
                last = self.view.get("last_play") or {}
                just = last.get("count", 0) if last.get("callable") else 0
                self._table(event["pile_size"] - just, just)
                self._info(f"{self._seat_name(event['seat'])} left the game.")
            elif kind in ("turn", "dealt"):
                self._start_turn()
        self._player_list()

    def _start_turn(self) -> None:
        view = self.view
        ranks, turn = view.get("ranks") or [0], view.get("turn")
        self._send(
            {
                "action": "start_turn",
                "previous_rank": self.previous_rank,
                "current_rank": ranks[0],
                "can_accuse_cheater": bool(view.get("can_call")),
                "your_turn": turn is not None and turn == self._my_seat(),
            }
        )

    # --- helpers -------------------------------------------------------------

    def _snapshot(self, room: Message) -> None:
        self.code = room["code"]
        self.me = room["you"]["member"]
        self.host = room["host"]
        self.state = room["state"]
        self.members = {m["id"]: m for m in room["members"]}
        self._rows = None
        game = room.get("table") or {}
        self._seating(game.get("seats", []))
        self.view = game.get("view") or {}

    def _seating(self, seats: list[Message]) -> None:
        """Engine seats → member ids and names (names outlive members who leave mid-game)."""
        self.seats = {s["seat"]: s["member"] for s in seats}
        self.seat_names = {s["seat"]: s["name"] for s in seats}
        self._rows = None

    def _waiting_screen(self) -> None:
        self._send({"action": "join_game", "room_code": self.code})
        self._player_list()
        if self.host == self.me:
            self._send({"action": "become_host"})

    def _player_list(self) -> None:
        if not (self.state in (PLAYING, FINISHED) and self.seats):
            self._send({"action": "player_list_update", "players": self._waiting_players()})
            return
        view = self.view
        active = view.get("active")
        rows = self._rows
        if rows is None or rows[0] != active:
            rows = self._rows = (active, self._seated_rows(active))
        sizes, turn = view.get("hand_sizes", []), view.get("turn")
        count = len(sizes)
        players = [
            {
                "name": name,
                "isHost": host,
                "handSize": sizes[seat] if seat < count else 0,
                "myTurn": seat == turn,
                "isMe": me,
            }
            for seat, name, host, me in rows[1]
        ]
        self._send({"action": "player_list_update", "players": players})

    def _seated_rows(self, active: list[int] | None) -> list[tuple[int, str, bool, bool]]:
        """(seat, name, isHost, isMe) of each seat still in the game: what a game's player lists share
        until a member, the host or the seats still in change (``_rows`` keeps it until then)."""
        seats = self.seats
        still_in = set(seats if active is None else active)
        rows = []
        for seat in sorted(seats):
            if seat in still_in:
                mid = seats[seat]
                member = self.members.get(mid)
                name = member["name"] if member is not None else self._seat_name(seat)
                rows.append((seat, name, mid == self.host, mid == self.me))
        return rows

    def _waiting_players(self) -> list[Message]:
        """The waiting room's player list: every member who plays, in order of arrival."""
        return [
            {
                "name": m["name"],
                "isHost": mid == self.host,
                "handSize": 0,
                "myTurn": False,
                "isMe": mid == self.me,
            }
            for mid, m in self.members.items()
            if m["role"] == PLAYER
        ]

    def _cards(self) -> None:
        hand = self.view.get("hand", [])
        cards = [{"rank": c["rank"], "suit": c["suit"]} for c in hand]
        self._send({"action": "update_cards", "cards": cards})

    def _table(self, on_table: int, just_placed: int) -> None:
        self._send({"action": "place_cards", "cards_on_table": on_table, "cards_just_placed": just_placed})

    def _info(self, text: str) -> None:
        self._send({"action": "info_text_update", "message": text})

    def _card_ids(self, cards: list[Any]) -> list[int] | None:
        """Each ``{rank, suit}`` matched to a distinct card id in my hand, or None."""
        free = list(self.view.get("hand", []))
        ids = []
        for card in cards:
            if not isinstance(card, dict):
                return None
            match = next(
                (c for c in free if c["rank"] == card.get("rank") and c["suit"] == card.get("suit")), None
            )
            if match is None:
                return None
            free.remove(match)
            ids.append(match["id"])
        return ids

    def _my_seat(self) -> int | None:
        seats, me = self.seats, self.me
        memo = self._seat_memo
        if memo is None or memo[0] is not seats or memo[1] != me:
            memo = self._seat_memo = (seats, me, next((s for s, mid in seats.items() if mid == me), None))
        return memo[2]

    def _seat_name(self, seat: int | None) -> str:
        return self.seat_names.get(seat, "A player") if seat is not None else "A player"

    def _game_over_text(self, outcome: Message) -> str:
        if outcome.get("reason") == "not_enough_players" or not outcome.get("winners"):
            return NOT_ENOUGH
        return f"{self._seat_name(outcome['winners'][0])} won the game."

    async def _request(self, type_: str, **fields: Any) -> Message | None:
        if self.bridge is None or self.code is None:
            self._send({"action": "join_game_error", "message": "Join or create a game first."})
            return None
        return await self.bridge.request(type_, **fields)

    async def _act(self, action: Message) -> None:
        reply = await self._request("action", action=action)
        if reply is not None and reply["type"] == "error":
            self._info(reply["message"])

    def _error(self, text: str) -> None:
        if self.code is None:
            self._send({"action": "join_game_error", "message": text})
        elif self.state == PLAYING:
            self._info(text)
        else:
            self._send({"action": "waiting_screen_error", "message": text})

    def _spawn(self, coro: Coroutine[Any, Any, None]) -> None:
        task = asyncio.create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _detach(self) -> None:
        bridge, self.bridge = self.bridge, None
        self.code = self.me = self.host = None
        self.members, self.seats, self.view, self.state, self._rows = {}, {}, {}, WAITING, None
        if bridge is not None:
            await bridge.close(leave=True)


async def serve(websocket: WebSocket, connect: Connector) -> None:
    """The /ws endpoint."""
    out = outbound(websocket)
    client = CheatClient(connect, out.send, lambda: out.close(1008, "dropped by the server"), out.send_all)
    await run_socket(
        websocket,
        client.on_frame,
        client.close,
        out,
        client.frame_now,
        lambda: client.bridge is not None,
        "cheat",
    )
