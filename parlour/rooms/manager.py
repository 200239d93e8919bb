"""The registry of sessions and rooms: identity, codes, lobby, quick play and crash recovery.

Protocol front-ends (the native websocket, and later the seed adapters) call these methods; they
never touch a room's state directly. Everything that changes a room becomes a ``Command`` on that
room's queue, and the front-end's ``Sink`` receives the reply and every later message.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from parlour.bots.catalog import get_game
from parlour.games import InvalidSettings
from parlour.games.base import initial_settings
from parlour.rooms import messages
from parlour.rooms.commands import Command, CommandError
from parlour.rooms.enums import BEFORE_START, CLOSED, FINISHED, PLAYER, PLAYING, SPECTATOR
from parlour.rooms.members import BotFactory, Message, Sink
from parlour.rooms.room import Room, Timings
from parlour.rooms.validate import (
    check_catch_delay,
    check_password,
    clean_name,
    hash_password,
    hash_token,
    new_code,
    new_profile_id,
    new_token,
    normalize_code,
    secrets_match,
)
from parlour.store import ProfileRecord, SessionRecord, Store

log = logging.getLogger("parlour.rooms")


InviteFacts = dict[str, str | bool | None]
"""What an invite link's page says of a room (docs/protocol.md, ``GET /api/invite/{code}``)."""


def room_facts(room: Room) -> InviteFacts:
    """An open room's game, who hosts it (a name the room's own members see anyway; the code the link
    holds is what lets anyone in), whether joining takes a password and whether a game is on (the
    visitor then watches it first): read off the summary the lobby lists."""
    summary = room.summary()
    return {
        "game": summary["game"],
        "host": summary["host"],
        "password": summary["has_password"],
        "playing": summary["state"] == PLAYING,
    }


@dataclass(frozen=True, slots=True)
class RoomLimits:
    """Caps that keep one client (or everyone together) from filling the server with rooms."""

    max_rooms: int = 2000
    rooms_per_owner: int = 20
    password_failures: int = 10
    """Wrong passwords a room takes per minute before it refuses guesses unchecked."""


@dataclass(slots=True)
class Session:
    """A guest. ``sink`` is the connection currently speaking for it (None when offline)."""

    id: str
    name: str
    token_hash: str
    sink: Sink | None = None
    profile: str | None = None
    """The id of the guest profile it identified with (None for the seed protocols' players)."""

    def join_payload(self, **fields: Any) -> dict[str, Any]:
        """A ``join`` command's payload: name and, when there is one, the profile (kept in game records)."""
        payload: dict[str, Any] = {"name": self.name, **fields}
        if self.profile is not None:
            payload["profile"] = self.profile
        return payload


class Manager:
    """Owns every room and session of this process. Implements ``RoomHooks`` for its rooms."""

    def __init__(
        self,
        store: Store,
        timings: Timings | None = None,
        bot_factory: BotFactory | None = None,
        on_processed: Callable[[Room, str, str | None, float], None] | None = None,
        limits: RoomLimits | None = None,
    ) -> None:
        self.store = store
        self.limits = limits or RoomLimits()
        self.owners: dict[str, str] = {}  # room code -> the address that opened it
        self.owned: Counter[str] = Counter()
        self._guesses: dict[str, tuple[float, int]] = {}  # room code -> (window start, wrong passwords)
        self.quarantined: list[str] = []
        """Rooms whose stored records could not be read or replayed at startup (closed, kept on disk)."""
        self.timings = timings or Timings()
        self.bot_factory = bot_factory
        self._on_processed = on_processed
        self.rooms: dict[str, Room] = {}
        self.sessions: dict[str, Session] = {}
        self._by_token: dict[str, Session] = {}
        self.session_rooms: dict[str, Room] = {}
        self._lobby: dict[Sink, str | None] = {}
        self._listed: dict[str, Message] = {}
        self._quick_locks: dict[str, asyncio.Lock] = {}
        self._quick_pending: dict[str, set[str]] = {}  # room code -> sessions sent there by quick play

    # --- lifecycle -------------------------------------------------------------------

    async def recover(self) -> None:
        """Bring back every open room by replaying its log; clients then resume with their tokens."""
        for record in await self.store.open_rooms():
            if record.broken is not None:
                log.error("event=room_quarantined room=%s reason=%s", record.code, record.broken)
                self.quarantined.append(record.code)
                await self.store.close_room(record.code, "quarantined")
                continue
            room = None
            try:
                room = self._new_room(record.config)
                room.replay(record.log)
            except Exception:
                log.exception("event=room_quarantined room=%s reason=replay_failed", record.code)
                self.quarantined.append(record.code)
                # Its members as far as the replay got are in no room: their requests are answered
                # "not_in_room" (they went to a room that never runs, and waited for ever).
                if room is not None:  # made before it failed
                    for session in [s for s, r in self.session_rooms.items() if r is room]:
                        del self.session_rooms[session]
                await self.store.close_room(record.code, "recovery_failed")
                continue
            if room.state == CLOSED:
                await self.store.close_room(record.code, room.config.get("closed_reason", "closed"))
                continue
            self.rooms[room.code] = room
            self._listed_update(room)
            room.start()
            room.after_recovery()
        log.info("event=recovered rooms=%d", len(self.rooms))

    async def close(self) -> None:
        """Finish queued commands in every room (they are logged as they complete)."""
        for room in list(self.rooms.values()):
            await room.stop()

    async def invite_facts(self, code: str) -> InviteFacts | None:
        """What an invite link's page says of open room ``code`` (``room_facts``), or None if no such
        room is open."""
        room = self.rooms.get(code)
        return None if room is None else room_facts(room)

    def _new_room(self, config: dict[str, Any]) -> Room:
        return Room(config, self.store, self, self.timings, self.bot_factory)

    # --- RoomHooks ---------------------------------------------------------------------

    def membership(self, session: str, room: Room | None) -> None:
        if room is None:
            self.session_rooms.pop(session, None)
        else:
            self.session_rooms[session] = room

    def changed(self, room: Room) -> None:
        if room.state == CLOSED:
            self.rooms.pop(room.code, None)
            self._guesses.pop(room.code, None)
            owner = self.owners.pop(room.code, None)
            if owner is not None:
                self.owned[owner] -= 1
                if self.owned[owner] <= 0:
                    del self.owned[owner]
        self._listed_update(room)

    def forwarded_done(self, room: Room, cmd: Command, error: str | None) -> None:
        """Only a cluster forwards moves (``ClusterManager``)."""

    def processed(self, room: Room, kind: str, error: str | None, seconds: float) -> None:
        log.debug("event=command room=%s kind=%s error=%s ms=%.2f", room.code, kind, error, seconds * 1000)
        if self._on_processed is not None:
            self._on_processed(room, kind, error, seconds)

    # --- sessions ----------------------------------------------------------------------

    async def identify(
        self,
        sink: Sink,
        raw_name: str,
        profile: tuple[str, str] | None = None,
        with_profile: bool = False,
        token: str | None = None,
    ) -> tuple[Session, str, dict[str, str] | None]:
        """A new guest session; returns it with its token (shown once, stored only as a hash): a new
        random one, or ``token`` when an adapter derived it from a secret of its client's.

        With ``with_profile`` the session belongs to a guest profile: the one ``profile`` (id, secret)
        names when the secret matches, else a new one. The third value is the profile for the reply:
        its id, and its secret only when it was just made (the secret is never shown again).
        """
        name = clean_name(raw_name)
        reply = await self.guest_profile(name, profile) if with_profile else None
        token = token or new_token()
        session = Session(f"s_{secrets.token_hex(8)}", name, hash_token(token), sink)
        session.profile = reply["id"] if reply else None
        record = SessionRecord(session.id, name, session.token_hash, time.time(), session.profile)
        await self.store.save_session(record)
        self.sessions[session.id] = self._by_token[session.token_hash] = session
        return session, token, reply

    async def guest_profile(self, name: str, credentials: tuple[str, str] | None) -> dict[str, str]:
        """The profile ``credentials`` prove (renamed to ``name``), or a new one with its secret."""
        if credentials is not None:
            found = await self.profile(*credentials)
            if found is not None:
                if found.name != name:
                    found.name = name
                    await self.store.save_profile(found)
                return {"id": found.id}
        secret = new_token()
        created = ProfileRecord(new_profile_id(), name, hash_token(secret), time.time())
        await self.store.save_profile(created)
        return {"id": created.id, "secret": secret}

    async def profile(self, profile_id: str, secret: str) -> ProfileRecord | None:
        """The profile ``profile_id`` if ``secret`` is its secret, else None."""
        found = await self.store.find_profile(profile_id)
        if found is None or not secrets_match(secret, found.secret_hash):
            return None
        return found

    async def resume(self, sink: Sink, token: str) -> Session:
        """Re-attach a session to a new connection; the previous connection is told and closed."""
        digest = hash_token(token)
        session = self._by_token.get(digest)
        if session is None:
            record = await self.store.find_session(digest)
            if record is None:
                raise CommandError("invalid_token", "unknown or expired token")
            session = self.sessions.setdefault(
                record.id, Session(record.id, record.name, record.token_hash, profile=record.profile)
            )
            self._by_token[digest] = session
        old, session.sink = session.sink, sink
        if old is not None and old is not sink:
            old.send(messages.replaced())
            old.close(4000, "session resumed elsewhere")
        return session

    async def reattach(self, session: Session) -> None:
        """After ``resume``: if the session is in a room, reconnect it there (sends the snapshot)."""
        room = self.session_rooms.get(session.id)
        if room is not None and session.sink is not None:
            await room.submit(Command("reconnect", session.id, {}, session.sink))

    def connection_lost(self, session: Session, sink: Sink) -> None:
        """The connection went away: the member keeps its seat for the grace period."""
        self._lobby.pop(sink, None)
        if session.sink is sink:
            session.sink = None
        room = self.session_rooms.get(session.id)
        if room is not None:
            room.submit(Command("disconnect", session.id, {}, sink))

    # --- rooms -------------------------------------------------------------------------

    async def create_room(
        self,
        session: Session,
        sink: Sink,
        request_id: Any,
        *,
        game: str,
        settings: dict[str, Any] | None = None,
        public: bool = False,
        password: str | None = None,
        capacity: int | None = None,
        quick_play: bool = False,
        bots_take_over: bool = True,
        bot_catch_delay: float = 2.0,
        owner: str | None = None,
        origin: str | None = None,
        spectators_need_password: bool = True,
        spectate: bool = False,
    ) -> None:
        """Open a room with the creator in seat 0 as host (``spectate``: as a spectator, seatless)."""
        self._require_free(session)
        room = await self._open_room(
            game,
            settings,
            public,
            password,
            capacity,
            quick_play,
            bots_take_over,
            bot_catch_delay,
            owner,
            spectators_need_password,
        )
        payload = session.join_payload(creator=True)
        if spectate:
            payload["role"] = SPECTATOR
        if origin is not None:
            payload["origin"] = origin
        await room.submit(Command("join", session.id, payload, sink, request_id))

    async def _open_room(
        self,
        game: str,
        settings: dict[str, Any] | None,
        public: bool,
        password: str | None,
        capacity: int | None,
        quick_play: bool,
        bots_take_over: bool,
        bot_catch_delay: float = 2.0,
        owner: str | None = None,
        spectators_need_password: bool = True,
    ) -> Room:
        if len(self.rooms) >= self.limits.max_rooms:
            raise CommandError("server_full", "the server has as many rooms as it may; try again later")
        if owner is not None and self.owned[owner] >= self.limits.rooms_per_owner:
            raise CommandError(
                "too_many_rooms", f"at most {self.limits.rooms_per_owner} open rooms per address"
            )
        try:
            engine = get_game(game)
        except KeyError:
            raise CommandError("unknown_game", f"no game called {game!r}") from None
        try:
            rules = engine.settings(settings)
        except InvalidSettings as exc:
            raise CommandError("invalid_settings", exc.message) from None
        if capacity is None:
            capacity = engine.default_capacity(rules)
        if not engine.min_players <= capacity <= engine.max_players:
            raise CommandError(
                "invalid_capacity", f"{game} seats {engine.min_players} to {engine.max_players} players"
            )
        config: dict[str, Any] = {
            "game": game,
            "settings": settings or {},
            "public": public,
            # ~10 ms of PBKDF2: in a worker thread, so other rooms never wait for it.
            "password_hash": (await asyncio.to_thread(hash_password, password)) if password else None,
            "capacity": capacity,
            "quick_play": quick_play,
            "bots_take_over": bots_take_over,
            "bot_catch_delay": check_catch_delay(bot_catch_delay),
            "created_at": time.time(),
        }
        if not spectators_need_password:  # the /dots seed's rule: only players need the password
            config["spectators_need_password"] = False
        while True:
            config["code"] = new_code(public)
            if config["code"] not in self.rooms and await self.store.create_room(config["code"], config):
                break
        room = self._new_room(config)
        self.rooms[room.code] = room
        if owner is not None:
            self.owners[room.code] = owner
            self.owned[owner] += 1
        room.start()
        log.info("event=room_created room=%s game=%s public=%s", room.code, game, public)
        return room

    async def join(
        self,
        session: Session,
        sink: Sink,
        request_id: Any,
        code: str,
        password: str | None,
        role: str,
        origin: str | None = None,
    ) -> None:
        """Join or spectate; joining the room the session is already in re-sends its snapshot.
        ``origin`` (a hash of the client's address) makes a kick stick."""
        current = self.session_rooms.get(session.id)
        if current is None or code.strip().upper() != current.code:
            self._require_free(session)
        room = self.rooms.get(normalize_code(code))
        if room is None:
            raise CommandError("room_not_found", f"no room with code {code.strip().upper()}")
        payload = session.join_payload(role=role)
        if origin is not None:
            payload["origin"] = origin
        if password is not None:
            payload["password"] = password
        stored = room.password_hash if role == PLAYER or room.spectators_need_password else None
        if stored is not None and room.member_by_session(session.id) is None:
            if self._locked(room.code):
                raise CommandError("too_many_guesses", "too many wrong passwords here; wait a minute")
            # Checked off the event loop; the handler trusts the answer only for this same hash.
            verified = await asyncio.to_thread(check_password, password, stored)
            if not verified:
                self._wrong_password(room.code)
            payload["password_verified"] = [stored, verified]
        await room.submit(Command("join", session.id, payload, sink, request_id))

    def _locked(self, code: str) -> bool:
        """A room takes ``password_failures`` wrong passwords a minute; then guesses are refused
        unhashed (each check is a PBKDF2: guessing would otherwise cost the server CPU too)."""
        start, wrong = self._guesses.get(code, (0.0, 0))
        if time.monotonic() - start >= 60.0:
            self._guesses.pop(code, None)
            return False
        return wrong >= self.limits.password_failures

    def _wrong_password(self, code: str) -> None:
        start, wrong = self._guesses.get(code, (0.0, 0))
        now = time.monotonic()
        if now - start >= 60.0:
            start, wrong = now, 0
        self._guesses[code] = (start, wrong + 1)
        if wrong + 1 == self.limits.password_failures:
            log.warning("event=password_lockout room=%s", code)

    async def quick_play(
        self, session: Session, sink: Sink, request_id: Any, game: str, owner: str | None = None
    ) -> None:
        """Join the fullest open public quick-play room of ``game``, or open one.

        Choosing is atomic per game: under the game's lock, a room's seats count the quick players
        already sent to it whose join is not handled yet, and a room being opened is in place before
        anyone else chooses. So simultaneous quick plays fill one room before opening the next and never
        race each other for its last seat (the joins themselves run concurrently, in the room's queue).
        """
        self._require_free(session)
        try:
            get_game(game)
        except KeyError:
            raise CommandError("unknown_game", f"no game called {game!r}") from None
        async with self._quick_locks.setdefault(game, asyncio.Lock()):
            room = self._quick_room(game)
            if room is None:
                room = await self._open_quick_room(game, owner)
            self._quick_pending.setdefault(room.code, set()).add(session.id)
        try:
            await room.submit(Command("join", session.id, session.join_payload(), sink, request_id))
        finally:
            pending = self._quick_pending[room.code]
            pending.discard(session.id)
            if not pending:
                del self._quick_pending[room.code]

    async def _open_quick_room(self, game: str, owner: str | None) -> Room:
        """A new quick-play room: public, no host to change it, and the seed quick-play clients expect a
        dropped seat to free up. Its rules are those a person's new room starts with (UNO's pause between
        rounds), as the web form's are."""
        rules = initial_settings(get_game(game).settings_schema)
        return await self._open_room(game, rules, True, None, None, True, False, owner=owner)

    def _quick_room(self, game: str) -> Room | None:
        """The fullest room a quick player may join now, counting joins on their way to it."""
        best, best_taken = None, -1
        for r in self.rooms.values():
            if not (
                r.quick_play
                and r.public
                and r.password_hash is None
                and r.game_name == game
                and r.state in BEFORE_START
            ):
                continue
            # A pending session counts until the room has handled its join (then it is a member).
            on_the_way = self._quick_pending.get(r.code, ())
            if not on_the_way and not any(m.connected and not m.bot for m in r.players()):
                continue  # every player in it is away (their seats go when their grace runs out)
            taken = len(r.players()) + sum(1 for s in on_the_way if r.member_by_session(s) is None)
            if best_taken < taken < r.capacity:
                best, best_taken = r, taken
        return best

    async def command(
        self, session: Session, sink: Sink, request_id: Any, kind: str, payload: dict[str, Any]
    ) -> None:
        """A request for the session's current room."""
        if kind == "action":
            self.act(session, sink, request_id, payload)
            return
        room = self.session_rooms.get(session.id)
        if room is None:
            raise CommandError("not_in_room", "you are not in a room")
        member = room.member_by_session(session.id)
        by_host = member is not None and member.id == room.host
        if kind == "update_settings" and "password" in payload and by_host:
            # Hashed in a worker thread (the handler keeps its own checks); the log keeps only the hash.
            password = payload.pop("password")
            payload["password_hash"] = await asyncio.to_thread(hash_password, password) if password else None
        await room.submit(Command(kind, session.id, payload, sink, request_id))

    async def rename(self, session: Session, sink: Sink, request_id: Any, raw_name: str) -> None:
        """A new name for the session's member in its room (a typo fixed without leaving), kept for the
        rooms it enters next and for coming back to this one."""
        name = clean_name(raw_name)
        room = self.session_rooms.get(session.id)
        if room is None:
            raise CommandError("not_in_room", "you are not in a room")
        if await room.submit(Command("rename", session.id, {"name": name}, sink, request_id)) is None:
            session.name = name
            await self.store.save_session(
                SessionRecord(session.id, name, session.token_hash, time.time(), session.profile)
            )

    async def command_as(self, code: str, session: str, kind: str, payload: dict[str, Any]) -> str | None:
        """A command from ``session`` that no connection here carries (the Dots adapter acting for
        the admin session of a room made on another node): its error code, or None if accepted."""
        room = self.rooms.get(code)
        if room is None:
            return "room_not_found"
        return await room.submit(Command(kind, session, payload))

    def act(
        self, session: Session, sink: Sink, request_id: Any, payload: dict[str, Any], *, quiet: bool = False
    ) -> None:
        """A game action for the session's room, queued without waiting for the room.

        Actions never change who is in which room, so the connection need not wait before its next
        frame (a task wake-up fewer per move); the room's queue keeps them in order and the sink
        gets any error (and, unless ``quiet``, the ``ok``: ``Command.quiet``).
        """
        room = self.session_rooms.get(session.id)
        if room is None:
            raise CommandError("not_in_room", "you are not in a room")
        room.submit_nowait(Command("action", session.id, payload, sink, request_id, quiet=quiet))

    def _require_free(self, session: Session) -> None:
        if session.id in self.session_rooms:
            raise CommandError("already_in_room", "leave your current room first")

    # --- lobby -------------------------------------------------------------------------

    def public_rooms(self, game: str | None = None) -> list[Message]:
        return [s for s in self._listed.values() if game is None or s["game"] == game]

    def lobby_subscribe(self, sink: Sink, game: str | None) -> list[Message]:
        self._lobby[sink] = game
        return self.public_rooms(game)

    def lobby_unsubscribe(self, sink: Sink) -> None:
        self._lobby.pop(sink, None)

    def _listed_update(self, room: Room) -> None:
        """Keep the public list current and push differences to lobby subscribers."""
        # Only rooms someone can still meet people in: a connected human, not closed, and after a game
        # a seat free (a host left alone when the others went, whom nobody could find, waited in vain;
        # a full table between games is its players' own).
        listed = (
            room.public
            and room.state != CLOSED
            and (room.state != FINISHED or len(room.players()) < room.capacity)
            and any(m.connected and not m.bot for m in room.members.values())
        )
        summary = room.summary() if listed else None
        previous = self._listed.get(room.code)
        if summary == previous:
            return
        if summary is None:
            del self._listed[room.code]
            message = messages.lobby_room_removed(room.code)
        else:
            self._listed[room.code] = summary
            message = messages.lobby_room(summary)
        for sink, game in list(self._lobby.items()):
            if game is None or game == room.game_name:
                sink.send(message)
