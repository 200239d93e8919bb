"""The native protocol at ``/api/ws``: typed schemas for every client message and their dispatch.

Each frame is size-checked, rate-limited, decoded with msgspec into one of the tagged structs
below, then handed to the manager (session and room routing) or to the session's room as a
``Command``. Any refusal is an ``error`` reply; the connection and every room carry on.
"""

from __future__ import annotations

import asyncio
import hashlib
import ipaddress
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Annotated, Any

import msgspec
import orjson
from starlette.websockets import WebSocket

from parlour.config import Config
from parlour.net import replies
from parlour.net.connection import Connection, TokenBucket
from parlour.net.handoff import Handoff
from parlour.net.limits import AddressLimits, client_key
from parlour.net.metrics import Metrics
from parlour.net.websocket_protocol import TEXT_LANE, TextLane
from parlour.rooms import CommandError, Manager, Session, Sink
from parlour.rooms.enums import PLAYER, SPECTATOR
from parlour.rooms.validate import clean_name

log = logging.getLogger("parlour.net")

ID_MAX = 2**53  # ids are echoed; any client (JavaScript too) can read them back exactly
MIN_CHOSEN_TOKEN = 32
"""An adapter's own token for a session must be at least this long (a derived secret, not a guess)."""
RequestId = (
    Annotated[str, msgspec.Meta(max_length=128)] | Annotated[int, msgspec.Meta(ge=-ID_MAX, le=ID_MAX)] | None
)
UNSET = msgspec.UNSET
Int64 = Annotated[int, msgspec.Meta(ge=-(2**63), le=2**63 - 1)]
"""An integer field: one the store could not write (orjson stops at 64 bits) is ``bad_message`` at
decode, before any handler acts on it."""


_LOOPBACK = (ipaddress.ip_network("127.0.0.0/8"), ipaddress.ip_network("::1/128"))


def kick_origin(address: str) -> str | None:
    """What a room remembers of a client's address to make a kick stick, never the address itself; none
    for this machine's own (loopback), which everyone on the server's machine shares (a server bound to
    127.0.0.1 serves nobody else): a kick there had barred every newcomer."""
    try:
        network = ipaddress.ip_network(address, strict=False)  # an IPv6 address comes as its /64
    except ValueError:
        return None  # no address known
    if any(network.version == lo.version and network.overlaps(lo) for lo in _LOOPBACK):
        return None
    return "a:" + hashlib.sha256(address.encode()).hexdigest()[:16]


class _Msg(msgspec.Struct, tag_field="type", kw_only=True):
    id: RequestId = None


class ProfileCredentials(msgspec.Struct):
    """A guest profile's id and secret, as the browser keeps them."""

    id: Annotated[str, msgspec.Meta(max_length=64)]
    secret: Annotated[str, msgspec.Meta(max_length=64)]


class Identify(_Msg, tag="identify"):
    name: str
    profile: ProfileCredentials | None = None
    token: str | None = None
    """From a seed-protocol adapter only: the token to give the session (see ``chosen_tokens``)."""


class Resume(_Msg, tag="resume"):
    token: str


class CreateRoom(_Msg, tag="create_room"):
    game: str
    settings: dict[str, Any] | None = None
    public: bool = False
    password: str | None = None
    capacity: Int64 | None = None
    bots_take_over: bool = True
    bot_catch_delay: float = 2.0
    spectators_need_password: bool = True
    spectate: bool = False


class Join(_Msg, tag="join"):
    code: str
    password: str | None = None


class Spectate(_Msg, tag="spectate"):
    code: str
    password: str | None = None


class QuickPlay(_Msg, tag="quick_play"):
    game: str


class LobbySubscribe(_Msg, tag="lobby_subscribe"):
    game: str | None = None


class LobbyUnsubscribe(_Msg, tag="lobby_unsubscribe"):
    pass


class Ping(_Msg, tag="ping"):
    pass


# Room commands: their fields (minus ``id``) are the command payload.


class Leave(_Msg, tag="leave"):
    pass


class Ready(_Msg, tag="ready"):
    ready: bool


class Start(_Msg, tag="start"):
    pass


class Chat(_Msg, tag="chat"):
    text: str


class Kick(_Msg, tag="kick"):
    member: str | None = None
    seat: Int64 | None = None


class TransferHost(_Msg, tag="transfer_host"):
    member: str


class Reset(_Msg, tag="reset"):
    pass


class Terminate(_Msg, tag="terminate"):
    pass


class UpdateSettings(_Msg, tag="update_settings"):
    settings: dict[str, Any] | msgspec.UnsetType = UNSET
    public: bool | msgspec.UnsetType = UNSET
    password: str | msgspec.UnsetType = UNSET
    capacity: Int64 | msgspec.UnsetType = UNSET
    bots_take_over: bool | msgspec.UnsetType = UNSET
    bot_catch_delay: float | msgspec.UnsetType = UNSET


class TakeSeat(_Msg, tag="take_seat"):
    pass


class BecomeSpectator(_Msg, tag="become_spectator"):
    pass


class Rematch(_Msg, tag="rematch"):
    pass


class AddBot(_Msg, tag="add_bot"):
    name: str | None = None
    level: str | None = None


class Action(_Msg, tag="action"):
    action: dict[str, Any]


class Rename(_Msg, tag="rename"):
    name: str


ROOM_COMMANDS: dict[type[_Msg], str] = {
    Leave: "leave",
    Ready: "ready",
    Start: "start",
    Chat: "chat",
    Kick: "kick",
    TransferHost: "transfer_host",
    Reset: "reset",
    Terminate: "terminate",
    UpdateSettings: "update_settings",
    TakeSeat: "take_seat",
    BecomeSpectator: "become_spectator",
    Rematch: "rematch",
    AddBot: "add_bot",
    Action: "action",
}
ClientMessage = (
    Rename
    | Identify
    | Resume
    | CreateRoom
    | Join
    | Spectate
    | QuickPlay
    | LobbySubscribe
    | LobbyUnsubscribe
    | Ping
    | Leave
    | Ready
    | Start
    | Chat
    | Kick
    | TransferHost
    | Reset
    | Terminate
    | UpdateSettings
    | TakeSeat
    | BecomeSpectator
    | Rematch
    | AddBot
    | Action
)
TYPES = frozenset(cls.__struct_config__.tag for cls in ClientMessage.__args__)
_decode_any = msgspec.json.Decoder().decode
# One pass straight to the tagged struct; built once, so the union's type tree is not re-walked per frame.
_decode_message = msgspec.json.Decoder(ClientMessage).decode


def _payload(msg: _Msg) -> dict[str, Any]:
    return {k: v for k, v in msgspec.structs.asdict(msg).items() if k != "id" and v is not UNSET}


@dataclass(slots=True)
class Allowance:
    """A connection's rate limits. An adapter connection shares one among all the native sessions it
    opens, so opening a fresh session per request (``/dots`` CREATE, ``/ws`` create_game) gains nothing."""

    bucket: TokenBucket
    patience: TokenBucket = field(default_factory=lambda: TokenBucket(5.0, 50))
    chat: TokenBucket = field(default_factory=lambda: TokenBucket(1.0, 10))

    @classmethod
    def for_config(cls, config: Config, protocol: str = "native") -> Allowance:
        per_10 = config.chat_per_10_seconds
        return cls(
            TokenBucket(*config.rate_for(protocol)),
            chat=TokenBucket(per_10 / 10.0, max(1, per_10)),
        )


def storable(value: Any) -> bool:
    """True if the store can write ``value`` exactly (orjson refuses integers beyond 64 bits)."""
    try:
        orjson.dumps(value)
    except TypeError:
        try:
            orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS)
        except TypeError:
            return False
    return True


def _echoable(request_id: Any) -> bool:
    if isinstance(request_id, str):
        return len(request_id) <= 128
    return type(request_id) is int and -ID_MAX <= request_id <= ID_MAX


class NativeClient:
    """The protocol state of one connection: its session, rate limits and request dispatch.

    ``conn`` is where replies and room messages go: a websocket ``Connection``, or any ``Sink``
    (the seed-protocol adapters run one ``NativeClient`` per adapter connection).
    """

    def __init__(
        self,
        conn: Sink,
        manager: Manager,
        config: Config,
        metrics: Metrics,
        protocol: str = "native",
        *,
        address: str = "local",
        limits: AddressLimits | None = None,
        allowance: Allowance | None = None,
    ) -> None:
        self.conn = conn
        self.manager = manager
        self.config = config
        self.metrics = metrics
        self.session: Session | None = None
        self.address = address
        self.origin = kick_origin(address)
        self.limits = limits
        self.profiles = protocol == "native"
        """Guest profiles are the native client's: a seed protocol's players have none."""
        self.chosen_tokens = protocol != "native"
        """An adapter may name its session's token, derived from a secret its client holds (the
        socket-uno tutorial's browser cookie), so any node can rebuild it; a native client is issued one."""
        allowance = allowance or Allowance.for_config(config, protocol)
        self.bucket, self.patience, self.chat = allowance.bucket, allowance.patience, allowance.chat
        self._request_id: RequestId = None  # of the frame being handled, for internal_error replies
        # A websocket ``Connection`` holds what the room sends it until an action's reply (one write).
        self._expect_reply: Callable[[], None] | None = getattr(conn, "expect_reply", None)

    def error(self, code: str, message: str, request_id: RequestId = None) -> None:
        self.conn.send(replies.error(code, message, request_id))

    async def frame(self, data: str | bytes) -> None:
        """Handle one inbound frame; never raises (a failure is logged and answered ``internal_error``)."""
        self.metrics.messages_in += 1
        if not getattr(self.conn, "alive", True):  # closed by the server: later frames are ignored
            return
        self._request_id = None
        try:
            await self._frame(data)
        except Exception:
            log.exception("event=frame_failed")
            self.error("internal_error", "the server failed handling this request", self._request_id)

    def _over_limit(self) -> bool:
        """Take a token; without one, refuse the frame, and close a connection that keeps flooding."""
        if self.bucket.take():
            return False
        self.error("rate_limited", "too many messages; slow down")
        if not self.patience.take():
            log.warning("event=flood_closed session=%s", self.session.id if self.session else None)
            self.conn.close(1008, "rate limit exceeded")
        return True

    async def _frame(self, data: str | bytes) -> None:
        if self._over_limit():
            return
        if self._too_large(data):
            self.error("frame_too_large", f"frames are limited to {self.config.max_frame} bytes")
            return
        try:
            msg = _decode_message(data)
        except (msgspec.DecodeError, RecursionError):
            self._refuse(data)  # rare: decode again, generically, only to pick the error code
            return
        self._request_id = msg.id
        try:
            await self.dispatch(msg)
        except CommandError as exc:
            self.error(exc.code, exc.message, msg.id)

    def action_now(self, data: str) -> bool:
        """Handle ``data`` at once if it is a well-formed game action (the frame a game sends most);
        False, having done nothing, for any other frame (``frame`` takes it)."""
        if self.session is None or self._too_large(data):
            return False
        try:
            msg = _decode_message(data)
        except (msgspec.DecodeError, RecursionError):
            return False
        if type(msg) is not Action:
            return False
        return self.act(msg.action, msg.id)

    def act(self, action: dict[str, Any], request_id: RequestId, *, quiet: bool = False) -> bool:
        """A game action already decoded (by ``action_now``, or by an in-process adapter, which so
        skips a JSON round trip per move): rate limit, the 64-bit check, then the room's queue. False,
        having done nothing, without a session. ``quiet``: no bare ``ok`` (``Command.quiet``)."""
        session = self.session
        if session is None:
            return False
        self.metrics.messages_in += 1
        self._request_id = request_id
        try:
            if not self._over_limit():
                if not storable(action):
                    raise CommandError("bad_message", "numbers must fit in 64 bits")
                if request_id is not None and not quiet and self._expect_reply is not None:
                    self._expect_reply()  # an action with an id is answered (ok or error), unless quiet
                self.manager.act(session, self.conn, request_id, {"action": action}, quiet=quiet)
        except CommandError as exc:
            self.error(exc.code, exc.message, request_id)
        except Exception:
            log.exception("event=frame_failed")
            self.error("internal_error", "the server failed handling this request", request_id)
        return True

    def _refuse(self, data: str | bytes) -> None:
        """Answer a frame the typed decoder refused with the most precise error code."""
        try:
            raw = _decode_any(data)
        except msgspec.DecodeError:
            self.error("bad_json", "the frame is not valid JSON")
            return
        except RecursionError:
            self.error("bad_message", "the message is nested too deeply")
            return
        request_id = raw.get("id") if isinstance(raw, dict) else None
        if not _echoable(request_id):
            request_id = None
        self._request_id = request_id
        if not isinstance(raw, dict):
            self.error("bad_message", "a message is a JSON object with a type")
            return
        kind = raw.get("type")
        if not isinstance(kind, str):
            self.error("bad_message", "a message needs a string field 'type'", request_id)
            return
        if kind not in TYPES:
            self.error("unknown_type", f"unknown message type {kind[:40]!r}", request_id)
            return
        try:
            msgspec.convert(raw, ClientMessage)
        except msgspec.ValidationError as exc:
            self.error("bad_message", str(exc), request_id)
            return
        self.error("bad_message", "the message could not be decoded", request_id)  # not expected

    def _too_large(self, data: str | bytes) -> bool:
        limit = self.config.max_frame
        if len(data) <= limit // 4:  # a str of n characters is at most 4n bytes of UTF-8
            return False
        return len(data if isinstance(data, bytes) else data.encode()) > limit

    async def dispatch(self, msg: _Msg) -> None:
        manager, conn = self.manager, self.conn
        if isinstance(msg, Ping):
            conn.send(replies.pong(msg.id))
            return
        if isinstance(msg, Identify | Resume):
            if self.session is not None:
                raise CommandError("already_identified", "this connection already has a session")
            if isinstance(msg, Identify):
                if self.limits is not None and not self.limits.new_session(self.address):
                    raise CommandError("too_many_sessions", "too many new sessions from your address; wait")
                if msg.token is not None and (not self.chosen_tokens or len(msg.token) < MIN_CHOSEN_TOKEN):
                    raise CommandError("bad_message", "identify takes no token")
                given = (msg.profile.id, msg.profile.secret) if msg.profile else None
                self.session, token, profile = await manager.identify(
                    conn, msg.name, given, with_profile=self.profiles, token=msg.token
                )
            else:
                self.session, token = await manager.resume(conn, msg.token), msg.token
                profile = {"id": self.session.profile} if self.session.profile else None
            conn.send(replies.welcome(token, self.session.id, self.session.name, profile, msg.id))
            if isinstance(msg, Resume):
                await manager.reattach(self.session)
            return
        session = self.session
        if session is None:
            raise CommandError("not_identified", "send identify or resume first")
        if isinstance(msg, CreateRoom | UpdateSettings) and not storable(msg.settings or {}):
            raise CommandError("bad_message", "numbers must fit in 64 bits")
        if isinstance(msg, CreateRoom):
            await manager.create_room(
                session,
                conn,
                msg.id,
                owner=self.address,
                origin=self.origin,
                game=msg.game,
                settings=msg.settings,
                public=msg.public,
                password=msg.password,
                capacity=msg.capacity,
                bots_take_over=msg.bots_take_over,
                bot_catch_delay=msg.bot_catch_delay,
                spectators_need_password=msg.spectators_need_password,
                spectate=msg.spectate,
            )
        elif isinstance(msg, Join | Spectate):
            await self._join(msg)
        elif isinstance(msg, QuickPlay):
            await manager.quick_play(session, conn, msg.id, msg.game, owner=self.address)
        elif isinstance(msg, Rename):
            await manager.rename(session, conn, msg.id, msg.name)
        elif isinstance(msg, LobbySubscribe):
            rooms = manager.lobby_subscribe(conn, msg.game)
            conn.send(replies.lobby(rooms, msg.id))
        elif isinstance(msg, LobbyUnsubscribe):
            manager.lobby_unsubscribe(conn)
            if msg.id is not None:  # a bare ok only answers a request with an id (see Room._process)
                conn.send(replies.ok(msg.id))
        else:
            payload = _payload(msg)
            if isinstance(msg, Kick) and msg.member is None and msg.seat is None:
                raise CommandError("bad_message", "kick needs 'member' or 'seat'")
            if isinstance(msg, AddBot) and msg.name is not None:
                payload["name"] = clean_name(msg.name)
            if isinstance(msg, Chat) and not self.chat.take():
                raise CommandError("chat_rate_limited", "too many chat messages; wait a little")
            await manager.command(session, conn, msg.id, ROOM_COMMANDS[type(msg)], payload)

    async def _join(self, msg: Join | Spectate) -> None:
        """Join or spectate by code; an address that keeps naming codes that do not exist is
        guessing (private rooms are found by code) and is refused until its misses refill."""
        assert self.session is not None
        limits = self.limits
        if limits is not None and limits.guessing(self.address):
            raise CommandError("too_many_guesses", "too many unknown room codes; wait a minute")
        role = PLAYER if isinstance(msg, Join) else SPECTATOR
        try:
            await self.manager.join(
                self.session, self.conn, msg.id, msg.code, msg.password, role, self.origin
            )
        except CommandError as exc:
            if exc.code in ("room_not_found", "invalid_code") and limits is not None:
                limits.code_miss(self.address)
            raise

    def closed(self) -> None:
        if self.session is not None:
            self.manager.connection_lost(self.session, self.conn)
        else:
            self.manager.lobby_unsubscribe(self.conn)


async def endpoint(ws: WebSocket) -> None:
    """``/api/ws``: read frames until the peer leaves; replies go out through the connection's queue."""
    app_state = ws.app.state
    config: Config = app_state.config
    metrics: Metrics = app_state.metrics
    limits: AddressLimits = app_state.limits
    address = client_key(ws.scope)
    if not limits.connect(address):
        await ws.close(1008)  # before accept: the handshake is refused (HTTP 403)
        return
    try:
        handoff: Handoff | None = getattr(app_state, "handoff", None)
        if handoff is not None and await handoff.route(ws.scope, app_state.manager.owner_of):
            return  # the worker owning the room the client named serves it (net/handoff.py)
        await _serve(ws, app_state, config, metrics, limits, address)
    finally:
        limits.disconnect(address)


async def _serve(
    ws: WebSocket, app_state: Any, config: Config, metrics: Metrics, limits: AddressLimits, address: str
) -> None:
    await ws.accept()
    conn = Connection(ws, metrics, config.outbound_queue)
    client = NativeClient(conn, app_state.manager, config, metrics, address=address, limits=limits)

    def unidentified() -> None:
        if client.session is None:
            log.info("event=idle_unidentified_closed client=%s", address)
            conn.close(1008, "identify first")

    idle = asyncio.get_running_loop().call_later(config.identify_seconds, unidentified)
    # The server's fast lane for inbound game actions, when it has one (net/websocket_protocol.py).
    lane: TextLane | None = ws.scope.get("extensions", {}).get(TEXT_LANE)
    if lane is not None:
        lane.handler = client.action_now
    metrics.connected(1)
    try:
        while True:
            message = await ws.receive()
            if message["type"] == "websocket.disconnect":
                break
            data = message.get("text")
            if data is None:
                data = message.get("bytes") or b""
            if lane is None:
                await client.frame(data)
                continue
            lane.busy = True  # frames arriving meanwhile wait their turn in the queue
            try:
                await client.frame(data)
            finally:
                lane.busy = False
    finally:
        idle.cancel()
        if lane is not None:
            lane.handler = None
        metrics.connected(-1)
        client.closed()
        await conn.finish()
