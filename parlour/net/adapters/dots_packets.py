"""The Dots & Boxes packet protocol (happyboxes-saddots) on a plain websocket at ``/dots``.

Each connection becomes a native session (``Bridge``): JOIN is ``identify`` + ``join``, MOVE is
an engine ``line`` action, and native broadcasts come back as ADD/REMOVE/READY/MOVE/CAPTURE/TURN/
GAMESTATE packets. Three things the native protocol does not have are kept here:

* room names: CREATE names a room; the name maps to the native room code (a native room can
  also be joined by its code). The map is ``Names`` (store/names.py): in a cluster it is in Redis,
  so a client on any node joins a room made by name on another;
* ``playerid`` integers: member ``m<n>`` of a room is playerid ``n - 1`` (the room numbers its
  members), so every connection on every node agrees without asking anyone;
* the admin: CREATE does not seat its sender, so the room is created by a separate native
  session (the room's host, made a spectator by ``create_room``'s ``spectate``, named "admin") that
  obeys whoever holds the admin token. It is sent no game frames (it follows membership only).
  The token's hash names the room and that session in ``Names``: an ADMIN packet on another node
  is run there as the admin session's command (``Manager.command_as``).

There is no resume: a closed connection leaves at once.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import secrets
from collections.abc import Awaitable, Callable, Coroutine, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

import orjson
from starlette.websockets import WebSocket

from parlour.net.adapters.link import Bridge, Connector, Message
from parlour.net.adapters.plain_socket import BadFrame, Post, decode, outbound, run_socket, text_field
from parlour.net.websocket_protocol import text_frames
from parlour.rooms import CommandError
from parlour.rooms.enums import COUNTDOWN, FINISHED, PLAYER, PLAYING, SPECTATOR, WAITING
from parlour.rooms.outbound import LazyView
from parlour.rooms.validate import ROOM_NAME_MAX, clean_room_name
from parlour.store.names import PENDING, LocalNames, Names

log = logging.getLogger(__name__)

ADMIN_NAME = "admin"
UNUSED_ROOM_SECONDS = 600.0
DEFAULT_CAPACITY = 8
GAMESTATES = {
    "waiting": "waiting for players",
    "countdown": "about to start",
    "playing": "started",
}
_JOIN_ERRORS = {
    "room_not_found": "Room does not exist.",
    "invalid_code": "Room does not exist.",
    "wrong_password": "Wrong password.",
    "room_full": "Room is full.",
    "game_in_progress": "The game has already started.",
    "banned": "You were kicked from this room.",
}
_ADMIN_ERRORS = {
    "room_not_found": "Room does not exist.",
    "not_host": "Invalid admin token.",
    "not_in_room": "Invalid admin token.",
    "unknown_member": "Unknown playerid.",
}
NAME, ROOM, ADMIN = "dots-name", "dots-room", "dots-admin"
"""``Names`` kinds: a room name → its code; a code → "code|admin member|name"; an admin token's
SHA-256 → "code|admin session"."""
_NOT_IN_ROOM: Message = {"type": "BOARD", "ok": False, "message": "Join or spectate the room first."}
_REMOVE_REASONS = {"left": "Left the room.", "kicked": "Kicked by the admin.", "timeout": "Timed out."}


@dataclass(eq=False)
class DotsRoom:
    """What the Dots protocol knows about one native room beyond the room itself."""

    code: str
    name: str
    admin_token: str | None = None
    admin_session: str | None = None
    admin: Bridge | None = None
    """The admin session, on the node whose client created the room (None elsewhere)."""
    admin_member: str | None = None
    others: set[str] = field(default_factory=set)
    """Members besides the admin, as the admin session sees them."""
    clients: int = 0
    members: dict[str, Message] = field(default_factory=dict)
    """Who is in the room, as the Dots connections see it: one table shared by all of them (a table
    per connection made spectators cost memory quadratically)."""
    applied: dict[int, tuple[Message, bool]] = field(default_factory=dict)
    """Membership messages already applied to ``members`` by one of the room's connections (every
    connection receives the same message object), with whether it changed a player's ready flag."""
    moves: tuple[list[Message], list[Message], bytes] | None = None
    listeners: list[DotsClient] = field(default_factory=list)
    """This process's connections in the room, in join order. Only the first (the leader) is sent
    game frames by the room, and it hands each one to all: the room builds one view and makes one
    delivery per move for them, not one per connection (the packets are the same for everyone)."""
    unused: asyncio.TimerHandle | None = None
    """Gives the room up if nobody joins it (``Registry.retire_if_unused``); cancelled on retiring,
    so a finished room is not kept in memory by its timer for ``UNUSED_ROOM_SECONDS``."""
    """The last game events translated: (the room's events list, its packets, those packets as
    websocket frames). Every connection of the room is sent the same events list and the same
    playerids, so a move is translated and encoded once for the room, not once per connection."""

    def packets(self, events: list[Message], pids: dict[int, int]) -> tuple[list[Message], bytes]:
        """The MOVE/CAPTURE/TURN packets for ``events`` (``pids``: seat → playerid), with their
        frames (built once per list)."""
        last = self.moves
        if last is not None and last[0] is events:
            return last[1], last[2]
        packets = []
        for event in events:
            kind, playerid = event.get("type"), pids.get(event.get("seat", -1))
            if kind == "line":
                packets.append(
                    {"type": "MOVE", "x": event["x"], "y": event["y"], "d": event["d"], "playerid": playerid}
                )
            elif kind == "capture":
                packets.append({"type": "CAPTURE", "x": event["x"], "y": event["y"], "playerid": playerid})
            elif kind == "turn":
                packets.append({"type": "TURN", "playerid": playerid})
        frames = text_frames([orjson.dumps(p) for p in packets])  # str keys only: no ``json_bytes`` retry
        self.moves = (events, packets, frames)
        return packets, frames

    def enter(self, client: DotsClient) -> None:
        """``client`` joined: it leads if it is the first here, else it hears moves from the leader."""
        self.listeners.append(client)
        if len(self.listeners) > 1:
            client.hear_games(False)

    def leave(self, client: DotsClient) -> None:
        """``client`` is leaving (at once, before the room hears of it): the next one leads."""
        if client in self.listeners:
            leading = self.listeners[0] is client
            self.listeners.remove(client)
            if leading and self.listeners:
                self.listeners[0].hear_games(True)

    def apply(self, message: Message) -> bool:
        """Apply a membership message once, whichever connection sees it first; True if it changed
        a player's ready flag (so each connection sends its READY packet)."""
        seen = self.applied.get(id(message))
        if seen is not None and seen[0] is message:
            return seen[1]
        kind, member, changed = message["type"], message["member"], False
        if kind == "member_left":
            self.members.pop(member, None)
        else:
            old = self.members.get(member["id"], {})
            self.members[member["id"]] = member
            changed = kind == "member_updated" and old.get("ready") != member["ready"]
        if len(self.applied) >= 256:
            del self.applied[next(iter(self.applied))]
        self.applied[id(message)] = (message, changed)
        return changed


def playerid(member: str) -> int:
    """Member ``m<n>`` is playerid ``n - 1``: the room numbers its members in join order."""
    return int(member[1:]) - 1


def member_of(pid: int) -> str:
    return f"m{pid + 1}"


def _admin_key(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


class Registry:
    """Rooms by Dots name and by native code as this process knows them, over the ``Names``
    every node shares (one process: its own)."""

    def __init__(self, names: Names | None = None) -> None:
        self.names: Names = names if names is not None else LocalNames()
        self.by_name: dict[str, DotsRoom] = {}
        self.by_code: dict[str, DotsRoom] = {}
        self._tasks: set[asyncio.Task[None]] = set()

    def find(self, name: str) -> DotsRoom | None:
        """A room this process knows by its Dots name, or by native code."""
        key = name.strip().lower()
        return self.by_name.get(key) or self.by_code.get(key.upper())

    async def code_for(self, name: str) -> str:
        """The native code a JOIN names: a room name (made on any node), else the name as a code."""
        room = self.find(name)
        if room is not None:
            return room.code
        code = await self.names.get(NAME, name.strip().lower())
        return code if code else name.strip().upper()

    async def reserve(self, name: str) -> bool:
        """Hold ``name`` for a room being made (False: a room on some node has it)."""
        return self.find(name) is None and await self.names.reserve(NAME, name.strip().lower())

    async def bind(self, room: DotsRoom, admin_session: str) -> None:
        """The room is made: its name and admin token mean it on every node."""
        self.add(room)
        await self.names.put(NAME, room.name.strip().lower(), room.code)
        await self.names.put(ROOM, room.code, f"{room.code}|{room.admin_member}|{room.name}")
        if room.admin_token is not None:
            await self.names.put(ADMIN, _admin_key(room.admin_token), f"{room.code}|{admin_session}")

    async def unreserve(self, name: str) -> None:
        await self.names.drop(NAME, name.strip().lower(), PENDING)

    async def for_code(self, code: str, name: str) -> DotsRoom:
        """The entry for a native room, made when a Dots client here first meets it: with the name
        and the admin of a room CREATE made on another node, else named as the client named it."""
        room = self.by_code.get(code)
        if room is None:
            made = await self.names.get(ROOM, code)
            admin_member = None
            if made:
                _, admin_member, name = made.split("|", 2)
            room = self.by_code.get(code)  # another client here may have made it meanwhile
            if room is None:
                room = self.by_code[code] = DotsRoom(code=code, name=name, admin_member=admin_member)
        return room

    def add(self, room: DotsRoom) -> None:
        self.by_name[room.name.strip().lower()] = room
        self.by_code[room.code] = room

    def drop(self, room: DotsRoom) -> None:
        if self.by_name.get(room.name.strip().lower()) is room:
            del self.by_name[room.name.strip().lower()]
        if self.by_code.get(room.code) is room:
            del self.by_code[room.code]

    def on_admin(self, room: DotsRoom, message: Message) -> None:
        """The admin session follows membership; once everyone has left, it leaves too."""
        kind = message.get("type")
        if kind == "member_joined":
            room.others.add(message["member"]["id"])
        elif kind == "member_left":
            room.others.discard(message["member"])
            if not room.others:
                self.retire(room)
        elif kind == "room_closed":
            self.retire(room, close=False)

    def retire(self, room: DotsRoom, *, close: bool = True) -> None:
        """Forget a room; its admin closes it (``close``: unless it is closed already) and leaves, once
        what is in flight is answered. Nobody can find the room by its name any more, so it must not
        wait out ``empty_room_seconds`` as an empty native room does: under load, every finished game
        kept its room (~200 KB) in memory for ten minutes."""
        self.drop(room)
        if room.unused is not None:
            room.unused.cancel()
            room.unused = None
        admin, room.admin = room.admin, None
        if admin is not None:
            admin.close_soon(end_room=close)
            self._spawn(self._release(room))

    async def _release(self, room: DotsRoom) -> None:
        """The name and admin token are free again (only the admin's node, which bound them)."""
        await self.names.drop(NAME, room.name.strip().lower(), room.code)
        await self.names.drop(ROOM, room.code, f"{room.code}|{room.admin_member}|{room.name}")
        if room.admin_token is not None:
            await self.names.drop(ADMIN, _admin_key(room.admin_token), f"{room.code}|{room.admin_session}")

    def _spawn(self, coro: Coroutine[Any, Any, None]) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def retire_if_unused(self, room: DotsRoom) -> None:
        """A room nobody joins is given up after ``UNUSED_ROOM_SECONDS`` (its admin keeps it open)."""

        def check() -> None:
            if not room.others and room.admin is not None:
                self.retire(room)

        room.unused = asyncio.get_running_loop().call_later(UNUSED_ROOM_SECONDS, check)

    def by_token(self, token: str) -> DotsRoom | None:
        given = token.encode()  # compare_digest refuses non-ASCII str; bytes compare anything
        for room in self.by_code.values():
            if room.admin_token is not None and secrets.compare_digest(room.admin_token.encode(), given):
                return room
        return None

    async def admin_elsewhere(self, token: str) -> tuple[str, str] | None:
        """(room code, admin session) of a room another node made, by its admin token's hash."""
        found = await self.names.get(ADMIN, _admin_key(token))
        if not found or "|" not in found:
            return None
        code, session = found.split("|", 1)
        return code, session


CommandAs = Callable[[str, str, str, dict[str, Any]], Awaitable[str | None]]
"""Runs a command as a session in a room (``Manager.command_as``): for an admin on another node."""


async def _no_command(code: str, session: str, kind: str, payload: dict[str, Any]) -> str | None:
    return "room_not_found"


class DotsClient:
    """One /dots connection: packets in, native requests out, native broadcasts back as packets."""

    def __init__(
        self,
        connect: Connector,
        registry: Registry,
        send: Post,
        hangup: Callable[[], None],
        send_all: Callable[[list[Message], bytes | None], None] | None = None,
        command_as: CommandAs | None = None,
    ) -> None:
        self.connect = connect
        self.command_as = command_as or _no_command
        self.registry = registry
        self.send = send
        self.send_all = send_all or self._send_each
        self.hangup = hangup
        self._tasks: set[asyncio.Task[None]] = set()
        self.bridge: Bridge | None = None
        self.room: DotsRoom | None = None
        self.me: str | None = None
        self.token: str | None = None
        self.joining = False
        self.started = False
        """Created or joined a room (a connection that never does is closed after a while)."""
        self.state: str = WAITING
        self.pids: dict[int, int] = {}
        """Seat → playerid for the game being played (made once per game, read per move)."""
        self.view: Mapping[str, Any] = {}
        """The game as last delivered: a ``LazyView`` (built only for a BOARD), or a snapshot's view."""
        self.width = 0
        self.height = 0

    @property
    def members(self) -> dict[str, Message]:
        return self.room.members if self.room is not None else {}

    # --- client → server ---------------------------------------------------

    async def on_frame(self, raw: str | bytes | None) -> None:
        """Handle one client frame; every failure gets an answer."""
        try:
            packet = decode(raw)
        except BadFrame as exc:
            self._error("", str(exc))
            return
        kind = packet.get("type")
        handler = self._handlers.get(kind) if isinstance(kind, str) else None
        if handler is None:
            self._error(str(kind), "unknown packet type")
            return
        try:
            await handler(self, packet)
        except Exception:
            log.exception("dots packet %s failed", kind)
            self._error(str(kind), "internal error", "internal_error")

    async def close(self) -> None:
        """The socket closed: no resume in this protocol, so leave at once."""
        await self._detach(leave=True)

    async def _create(self, packet: Message) -> None:
        name = text_field(packet, "roomname")
        width, height = packet.get("width"), packet.get("height")
        password = packet.get("password")
        try:
            name = clean_room_name(name or "")
        except CommandError as exc:
            self._reply("CREATE", False, exc.message)
            return
        if password is not None and not isinstance(password, str):
            self._reply("CREATE", False, "password must be a string")
            return
        if not await self.registry.reserve(name):
            self._reply("CREATE", False, "A room with that name already exists.")
            return
        capacity = packet.get("maxplayers", DEFAULT_CAPACITY)
        room = DotsRoom(code="", name=name.strip())
        self.registry.add(room)  # holds the name while the room is being made
        registry = self.registry  # not ``self``: the admin must not keep this connection alive
        admin = Bridge(  # the admin follows membership only: it is sent no game frames
            self.connect, lambda message: registry.on_admin(room, message), immediate=True, games=False
        )
        reply = await admin.request("identify", name=ADMIN_NAME)
        if reply["type"] == "welcome":
            room.admin_session = reply["session"]
            create: dict[str, Any] = {
                "game": "dots",
                "settings": {"width": width, "height": height, "max_players": capacity},
                "public": True,
                "capacity": capacity,
                "spectate": True,  # the admin watches: no become_spectator afterwards
            }
            if password:
                # The seed's rule, kept by the room's owner on every node: only players need it.
                create["password"], create["spectators_need_password"] = password, False
            reply = await admin.request("create_room", **create)
        if reply["type"] != "room":
            self.registry.drop(room)
            await self.registry.unreserve(name)
            await admin.close(leave=True)
            self._reply("CREATE", False, reply.get("message", "could not create the room"))
            return
        room.code = reply["code"]
        room.admin, room.admin_member = admin, reply["you"]["member"]
        room.admin_token = secrets.token_urlsafe(16)
        self.started = True
        await self.registry.bind(room, room.admin_session or "")
        self.registry.retire_if_unused(room)
        self.send(
            {
                "type": "CREATE",
                "ok": True,
                "admin_token": room.admin_token,
                "admintoken": room.admin_token,
                "roomname": room.name,
                "code": room.code,
            }
        )

    async def _join(self, packet: Message, *, spectate: bool = False) -> None:
        kind = "SPECTATE" if spectate else "JOIN"
        name, username = text_field(packet, "roomname"), text_field(packet, "username")
        password = packet.get("password")
        if self.room is not None and name and self._rejoin(name, spectate):
            await self._joined(kind, spectate)  # the same answer again: joining is idempotent
            return
        if self.room is not None:
            self._reply(kind, False, "You are already in a room.")
            return
        if not name or username is None:
            self._reply(kind, False, "roomname and username are required")
            return
        room = self.registry.find(name)
        code = await self.registry.code_for(name)
        # Views only for BOARD packets: each built when one asks for it (``LazyView``), not per move.
        self.bridge = Bridge(
            self.connect, self._on_native, immediate=True, refused=self._move_refused, views=False
        )
        reply = await self.bridge.request("identify", name=username)
        if reply["type"] == "welcome":
            request: dict[str, Any] = {"code": code}
            if isinstance(password, str) and password:
                request["password"] = password
            self.joining = True
            reply = await self.bridge.request("spectate" if spectate else "join", **request)
            self.joining = False
        if reply["type"] != "room":
            await self._detach(leave=True)
            code_ = reply.get("code", "")
            self._reply(kind, False, _JOIN_ERRORS.get(code_, reply.get("message", "failed")))
            return
        self.room = room or await self.registry.for_code(reply["code"], name.strip()[:ROOM_NAME_MAX])
        self.room.clients += 1
        self.room.enter(self)
        self.started = True
        self._snapshot(reply)
        if not spectate:
            self.token = secrets.token_urlsafe(16)
        await self._joined(kind, spectate)

    def _rejoin(self, name: str, spectate: bool) -> bool:
        """Whether a JOIN/SPECTATE names this connection's room in the role it already has."""
        room, member = self.room, self.members.get(self.me or "")
        if room is None or member is None or self.registry.find(name) not in (room, None):
            return False
        named = name.strip().lower() in (room.name.lower(), room.code.lower())
        return named and (member["role"] == SPECTATOR) == spectate

    async def _joined(self, kind: str, spectate: bool) -> None:
        answer: dict[str, Any] = {"type": kind, "ok": True, "playerid": self._pid(self.me)}
        if not spectate:
            answer["token"] = self.token
        self._send_board([answer])  # one write

    async def _spectate(self, packet: Message) -> None:
        await self._join(packet, spectate=True)

    async def _chat(self, packet: Message) -> None:
        msg = packet.get("msg")
        if not isinstance(msg, str):
            self._error("CHAT", "msg must be a string")
            return
        await self._native("CHAT", "chat", text=msg)

    async def _ready(self, packet: Message) -> None:
        ready = packet.get("ready")
        if not isinstance(ready, bool):
            self._error("READY", "ready must be true or false")
            return
        if self._token_ok("READY", packet):
            await self._native("READY", "ready", ready=ready)

    async def _move(self, packet: Message) -> None:
        if self._token_ok("MOVE", packet):
            await self._native("MOVE", "action", action=self._line(packet))

    @staticmethod
    def _line(packet: Message) -> Message:
        return {"type": "line", "x": packet.get("x"), "y": packet.get("y"), "d": packet.get("d")}

    def frame_now(self, raw: str) -> bool:
        """A MOVE of a player in a room, queued for the room at once (no task, no waiting); False,
        having done nothing, for any other frame (``on_frame`` takes it, in order)."""
        if self.bridge is None or self.room is None or '"MOVE"' not in raw:
            return False
        try:
            packet = decode(raw)
        except BadFrame:
            return False
        if packet.get("type") != "MOVE":
            return False
        token = packet.get("token")
        if token is not None and (self.token is None or token != self.token):
            return False  # on_frame refuses it
        return self.bridge.act_now(self._line(packet))

    def _move_refused(self, error: Message) -> None:
        self._error("MOVE", error["message"], error["code"])

    async def _board_request(self, packet: Message) -> None:
        name = packet.get("roomname")
        if self.room is None or (
            isinstance(name, str)
            and name.strip().lower() not in {self.room.name.lower(), self.room.code.lower()}
        ):
            self.send(_NOT_IN_ROOM)
            return
        self._send_board([])

    async def _admin(self, packet: Message) -> None:
        token, cmd = text_field(packet, "admintoken") or text_field(packet, "admin_token"), packet.get("cmd")
        room = self.registry.by_token(token) if token else None
        elsewhere = await self.registry.admin_elsewhere(token) if token and room is None else None
        if (room is None or room.admin is None) and elsewhere is None:
            self._reply("ADMIN", False, "Invalid admin token.")
            return
        if cmd not in ("reset", "kick", "terminate"):
            self._reply("ADMIN", False, "cmd must be reset, kick or terminate")
            return
        fields: dict[str, Any] = {}
        if cmd == "kick":
            target = packet.get("playerid")
            member = member_of(target) if type(target) is int and target >= 0 else None
            known = room.others if room is not None else None
            if member is None or (known is not None and member not in known):
                self._reply("ADMIN", False, "Unknown playerid.")
                return
            fields["member"] = member
        if room is not None and room.admin is not None:
            reply = await room.admin.request(cmd, **fields)
            self._reply("ADMIN", reply["type"] == "ok", reply.get("message"))
            return
        assert elsewhere is not None
        error = await self.command_as(elsewhere[0], elsewhere[1], cmd, fields)
        self._reply("ADMIN", error is None, _ADMIN_ERRORS.get(error or "", error))

    _handlers: ClassVar[dict[str, Callable[[DotsClient, Message], Awaitable[None]]]] = {
        "CREATE": _create,
        "JOIN": _join,
        "SPECTATE": _spectate,
        "CHAT": _chat,
        "READY": _ready,
        "MOVE": _move,
        "BOARD": _board_request,
        "ADMIN": _admin,
    }

    # --- server → client ---------------------------------------------------

    def _on_native(self, message: Message) -> None:
        kind = message.get("type")
        if kind == "game":  # by far the most frequent: a move (looked up first, not last)
            room = self.room
            if room is not None and not self.joining and room.listeners and room.listeners[0] is self:
                view = message.get("view") or {}
                packets, frames = room.packets(message.get("events", []), self.pids)
                for client in room.listeners:
                    client.view = view
                    if packets:
                        client.send_all(packets, frames)
            return
        if kind == "connection_closed":  # flood or overflow: the server dropped this client
            if self.room is not None:
                self.room.leave(self)  # no more frames reach this session: another must lead
            self.hangup()
            return
        if self.joining or self.room is None:
            return
        handler = self._natives.get(kind) if isinstance(kind, str) else None
        if handler is not None:  # a request's ``ok`` (one per move) has none
            handler(self, message)

    def _on_room(self, message: Message) -> None:
        before = self.state
        self._snapshot(message)
        if self.state != before:
            self._gamestate(None)
        self.send(self._board())

    def _on_joined(self, message: Message) -> None:
        assert self.room is not None
        member = message["member"]
        self.room.apply(message)
        if member["id"] != self.room.admin_member:
            self.send(
                {
                    "type": "ADD",
                    "playerid": self._pid(member["id"]),
                    "username": member["name"],
                    "isplayer": member["role"] == PLAYER,
                }
            )

    def _on_left(self, message: Message) -> None:
        assert self.room is not None
        member = message["member"]
        if member == self.me:
            self.room.leave(self)
        self.room.apply(message)
        reason = _REMOVE_REASONS.get(message.get("reason", ""), "Left the room.")
        self.send({"type": "REMOVE", "playerid": self._pid(member), "message": reason})

    def _on_updated(self, message: Message) -> None:
        assert self.room is not None
        member = message["member"]
        if self.room.apply(message) and member["role"] == PLAYER:
            self.send({"type": "READY", "ready": member["ready"], "playerid": self._pid(member["id"])})

    def _on_chat(self, message: Message) -> None:
        chat = message["message"]
        self.send({"type": "CHAT", "msg": chat["text"], "fromid": self._pid(chat["member"])})

    def _on_countdown(self, message: Message) -> None:
        self.state = COUNTDOWN if message.get("kind") else WAITING
        self._gamestate(None)

    def _on_game_started(self, message: Message) -> None:
        room = self.room
        assert room is not None
        if not room.listeners or room.listeners[0] is not self:
            return  # the leader hands it on
        view = message.get("view") or {}
        pids = {s["seat"]: playerid(s["member"]) for s in message["seats"]}
        packets, _ = room.packets(message.get("events", []), pids)
        for client in room.listeners:
            client.state, client.pids, client.view = PLAYING, pids, view
            client.send_all([client._gamestate_packet(None), *packets], None)  # one write

    def _on_game_over(self, message: Message) -> None:
        self.state = FINISHED
        self._gamestate(message["outcome"])

    def _on_state_changed(self, message: Message) -> None:
        self.state = message["state"]
        if self.state != FINISHED:
            self._gamestate(None)

    def _on_removed(self, message: Message) -> None:
        assert self.room is not None
        self.room.leave(self)  # now: the room sends this session nothing more
        why = "Kicked by the admin." if message["type"] == "kicked" else "The room was closed."
        self.send({"type": "REMOVE", "playerid": self._pid(self.me), "message": why})
        self._spawn(self._detach(leave=False))

    def _on_error(self, message: Message) -> None:
        if "id" not in message:  # refused before it had an id: the rate limit
            self._error("", message["message"], message["code"])

    _natives: ClassVar[dict[str, Callable[[DotsClient, Message], None]]] = {
        "room": _on_room,
        "member_joined": _on_joined,
        "member_left": _on_left,
        "member_updated": _on_updated,
        "chat": _on_chat,
        "countdown": _on_countdown,
        "game_started": _on_game_started,
        "game_over": _on_game_over,
        "state_changed": _on_state_changed,
        "kicked": _on_removed,
        "room_closed": _on_removed,
        "error": _on_error,
    }

    # --- helpers -------------------------------------------------------------

    def _snapshot(self, room: Message) -> None:
        self.me = room["you"]["member"]
        self.state = room["state"]
        if self.room is not None:
            self.room.members = {m["id"]: m for m in room["members"]}
        for member in room["members"]:  # allocate ids in join order for everyone alike
            self._pid(member["id"])
        settings = room.get("settings") or {}
        self.width, self.height = settings.get("width", 0), settings.get("height", 0)
        game = room.get("table") or {}
        self.pids = {s["seat"]: playerid(s["member"]) for s in game.get("seats", [])}
        self.view = game.get("view") or {}

    def _send_board(self, before: list[Message]) -> None:
        """``before``, then the BOARD packet, in one write. A BOARD never shows a move whose command is
        not committed yet: while the room commits a change made since the last view was delivered (the
        view is not ``ready``), both wait for that commit and leave right after its packets (the same
        or the next loop pass). A connection that has left the room meanwhile is told it is not in one."""
        view = self.view
        if type(view) is LazyView and not view.ready:
            view.when_ready(lambda: self._send_board(before))
            return
        self.send_all([*before, self._board() if self.room is not None else _NOT_IN_ROOM], None)

    def _board(self) -> Message:
        players: dict[int | None, str] = {}
        spectators: dict[int | None, str] = {}
        for mid, member in self.members.items():
            if self.room is not None and mid == self.room.admin_member:
                continue
            (players if member["role"] == PLAYER else spectators)[self._pid(mid)] = member["name"]
        view = self.view
        return {
            "type": "BOARD",
            "roomname": self.room.name if self.room else "",
            "gamestate": self._gamestate_name(None),
            "width": view.get("width", self.width),
            "height": view.get("height", self.height),
            "players": players,
            "spectators": spectators,
            "lines": view.get("lines", []) if self.state != WAITING else [],
            "captures": [[x, y, self._seat_pid(s)] for x, y, s in view.get("captures", [])]
            if self.state != WAITING
            else [],
        }

    def _gamestate_name(self, outcome: Message | None) -> str:
        if self.state == FINISHED:
            outcome = outcome or {"tie": self.view.get("tie"), "winners": self.view.get("winners")}
            return "tied" if outcome.get("tie") else "ended"
        return GAMESTATES.get(self.state, "waiting for players")

    def _gamestate(self, outcome: Message | None) -> None:
        self.send(self._gamestate_packet(outcome))

    def _gamestate_packet(self, outcome: Message | None) -> Message:
        packet: dict[str, Any] = {"type": "GAMESTATE", "state": self._gamestate_name(outcome)}
        if packet["state"] == "ended" and outcome and outcome.get("winners"):
            packet["winnerid"] = self._seat_pid(outcome["winners"][0])
        return packet

    def _pid(self, member: str | None) -> int | None:
        return None if member is None else playerid(member)

    def _seat_pid(self, seat: int) -> int | None:
        return self.pids.get(seat)

    def _token_ok(self, kind: str, packet: Message) -> bool:
        token = packet.get("token")
        if token is not None and (self.token is None or token != self.token):
            self._error(kind, "Invalid token.")
            return False
        return True

    async def _native(self, kind: str, type_: str, **fields: Any) -> None:
        if self.bridge is None or self.room is None:
            self._error(kind, "Join a room first.")
            return
        reply = await self.bridge.request(type_, **fields)
        if reply["type"] == "error":
            self._error(kind, reply["message"], reply["code"])

    def _reply(self, kind: str, ok: bool, message: str | None) -> None:
        packet: dict[str, Any] = {"type": kind, "ok": ok}
        if not ok or message:
            packet["message"] = message or "failed"
        self.send(packet)

    def hear_games(self, on: bool) -> None:
        if self.bridge is not None:
            self.bridge.hear_games(on)

    def _error(self, request: str, message: str, code: str = "bad_packet") -> None:
        self.send({"type": "ERROR", "ok": False, "request": request, "code": code, "message": message})

    def _send_each(self, packets: list[Message], frames: bytes | None = None) -> None:
        for packet in packets:
            self.send(packet)

    def _spawn(self, coro: Coroutine[Any, Any, None]) -> None:
        task = asyncio.create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _detach(self, *, leave: bool) -> None:
        bridge, self.bridge = self.bridge, None
        room, self.room = self.room, None
        self.me = self.token = None
        self.pids, self.view, self.state = {}, {}, WAITING
        if room is not None:
            room.leave(self)
        if bridge is not None:
            await bridge.close(leave=leave)
        if room is not None:
            room.clients -= 1
            if room.admin is None and room.clients <= 0:
                self.registry.drop(room)


async def serve(
    websocket: WebSocket, connect: Connector, registry: Registry, command_as: CommandAs | None = None
) -> None:
    """The /dots endpoint."""
    out = outbound(websocket)

    def hangup() -> None:
        out.close(1008, "dropped by the server")

    client = DotsClient(connect, registry, out.send, hangup, out.send_all, command_as)
    await run_socket(
        websocket, client.on_frame, client.close, out, client.frame_now, lambda: client.started, "dots"
    )
