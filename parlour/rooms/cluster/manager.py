"""The manager of one node of a cluster: the single-process ``Manager`` plus ownership and routing.

Each room runs on the node holding its lease (``store/redis.py``). A connection can land on any
node: when its session's room is owned elsewhere, its commands are forwarded to the owner over the
owner's bus channel, and the owner's messages for it come back over this node's channel
(``RemoteRoom`` / ``RemoteSink``). A heartbeat renews this node's leases and publishes its counts;
a claim loop adopts rooms nobody holds (their owner died, stalled or shut down) by replaying
their log exactly as a restart does, then tells every node, which re-attach their connections.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import random
import time
import weakref
from collections import deque
from collections.abc import Callable, Coroutine
from typing import Any

import orjson
from redis.exceptions import ConnectionError as RedisConnectionError

from parlour.bots.catalog import get_game
from parlour.rooms import messages
from parlour.rooms.cluster.bus import Bus, Item
from parlour.rooms.cluster.remote import RemoteRoom, RemoteSink
from parlour.rooms.commands import Command, CommandError
from parlour.rooms.enums import CLOSED
from parlour.rooms.manager import InviteFacts, Manager, Session, room_facts
from parlour.rooms.members import Message, Sink
from parlour.rooms.room import Room
from parlour.rooms.validate import hash_password, normalize_code
from parlour.store import RoomRecord
from parlour.store.redis import RedisStore, text

log = logging.getLogger("parlour.cluster")

_RETRIES = 8
"""Tries of a forwarded command: owner lookups that fail on Redis, then owners that do not answer."""
_QUICK_TRIES = 6
"""Rooms a quick player tries (each filled up or closed first) before being told to try again."""


class ClusterManager(Manager):
    """``Manager`` for one node of a Redis cluster."""

    store: RedisStore

    def __init__(self, *args: Any, lease_seconds: float = 3.0, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.lease = lease_seconds
        self.node = ""
        self.bus: Bus | None = None
        self.count_connections: Callable[[], int] = lambda: 0
        self.owners: dict[str, str] = {}
        self._cids = itertools.count(1)
        self._sink_ids: weakref.WeakKeyDictionary[Any, int] = weakref.WeakKeyDictionary()
        self._local_sinks: weakref.WeakValueDictionary[int, Any] = weakref.WeakValueDictionary()
        self._remote_sinks: weakref.WeakValueDictionary[tuple[str, int], RemoteSink] = (
            weakref.WeakValueDictionary()
        )
        self._rpcs: dict[int, asyncio.Future[tuple[str | None, str | None]]] = {}
        self._rpc_ids = itertools.count(1)
        self._rpc_rooms: dict[int, str] = {}  # rpc → room code, to re-send when the room moves
        self._fids = itertools.count(1)
        self._unsure: dict[str, deque[tuple[float, Item]]] = {}
        """Room → the moves forwarded to its owner without waiting for an answer, which the owner has
        not yet said it handled (``"read"``), of the last ``_unsure_seconds`` (oldest first, with when
        they were sent). An owner that dies may never have read them: the room's next owner is sent
        them again, and applies each at most once (``Command.fid``, ``RoomState.forwarded``)."""
        self._unsure_seconds = 2 * lease_seconds + 2.0  # a dead owner's lease runs out, another claims
        self._tasks: set[asyncio.Task[Any]] = set()
        self._loops: list[asyncio.Task[None]] = []
        self._nodes: set[str] = set()
        self._closing = False
        self._attaches = itertools.count(1)
        self._held: dict[str, str] = {}
        """Session → the stamp of its attach to a connection here (see ``_hold``)."""
        self.handlers: dict[str, Callable[[Item], None]] = {}
        """Bus ops served by the layers above (the Engine.IO forwarding of ``net/adapters/eio_forward``)."""
        self.nodes_gone: list[Callable[[set[str]], None]] = []
        """Told which nodes the heartbeat found dead (their requests in flight will never be answered)."""

    # --- lifecycle -------------------------------------------------------------------

    async def recover(self) -> None:
        """Join the cluster: listen on this node's channel, then adopt rooms nobody holds."""
        store = self.store
        self.node = store.node
        store.on_fenced = self._step_down
        self.bus = Bus(store.url, store.pipeliner, self.node, self._on_item, self._resync, store.prefix)
        await self.bus.start()
        for code, raw in (await store.redis.hgetall(store.key("lobby"))).items():
            summary = orjson.loads(raw)
            self._listed[text(code)] = summary
        await self._beat()
        await self._claim_orphans()
        loop = asyncio.get_running_loop()
        self._loops = [loop.create_task(self._heartbeat()), loop.create_task(self._claimer())]
        log.info("event=cluster_joined node=%s rooms=%d", self.node, len(self.rooms))

    async def close(self) -> None:
        """Graceful hand-over: finish queued commands, release every lease, tell the other nodes.

        Rooms leave ``rooms`` first, so commands forwarded meanwhile are answered ``moved`` and
        their senders follow the room to its next owner.
        """
        self._closing = True
        for task in self._loops:
            task.cancel()
        rooms, self.rooms = list(self.rooms.values()), {}
        for room in rooms:
            await room.stop()
        for room in rooms:
            with contextlib.suppress(Exception):
                await self.store.release(room.code)
            self._post("*", ["released", room.code, self.node])
        with contextlib.suppress(Exception):
            await self.store.redis.srem(self.store.key("nodes"), self.node)
            await self.store.redis.delete(self.store.key("nodeinfo", self.node))
        if self.bus is not None:
            await self.bus.stop()
        log.info("event=cluster_left node=%s released=%d", self.node, len(rooms))

    def _spawn(self, coro: Any) -> asyncio.Task[Any]:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    def _post(self, node: str, item: Item) -> None:
        if self.bus is not None:
            self.bus.post(node, item)

    # --- RoomHooks ---------------------------------------------------------------------

    def membership(self, session: str, room: Room | None) -> None:
        previous = self.session_rooms.get(session)
        super().membership(session, room)
        pending = self.store.membership
        if room is not None:
            pending.setdefault(room.code, {})[session] = room.code
        elif isinstance(previous, Room):
            pending.setdefault(previous.code, {})[session] = ""

    def _listed_update(self, room: Room) -> None:
        before = self._listed.get(room.code)
        super()._listed_update(room)
        after = self._listed.get(room.code)
        if after == before or self.bus is None:
            return
        self._post("*", ["lobby", room.code, after, room.game_name, self.node])
        key = self.store.key("lobby")
        redis = self.store.redis
        self._spawn(redis.hset(key, room.code, orjson.dumps(after)) if after else redis.hdel(key, room.code))

    def _apply_listing(self, code: str, summary: Message | None, game: str) -> None:
        """Another node's room changed in the lobby: update ours and tell our subscribers."""
        if summary is None:
            if self._listed.pop(code, None) is None:
                return
            message: Message = {"type": "lobby_room_removed", "code": code}
        else:
            self._listed[code] = summary
            message = {"type": "lobby_room", "room": summary}
        for sink, wanted in list(self._lobby.items()):
            if wanted is None or wanted == game:
                sink.send(message)

    # --- sessions ----------------------------------------------------------------------

    async def identify(
        self,
        sink: Sink,
        raw_name: str,
        profile: tuple[str, str] | None = None,
        with_profile: bool = False,
        token: str | None = None,
    ) -> tuple[Session, str, dict[str, str] | None]:
        session, token, reply = await super().identify(sink, raw_name, profile, with_profile, token)
        await self._hold(session.id)
        return session, token, reply

    async def resume(self, sink: Sink, token: str) -> Session:
        """``Manager.resume``; a connection of the session on another node is told ``replaced``
        and closed by that node, as a connection here would be."""
        session = await super().resume(sink, token)
        previous = await self._hold(session.id)
        if previous is not None:
            node = previous.split("|", 1)[0]
            if node != self.node:
                self._post(node, ["replaced", session.id, previous])
        if session.id not in self.session_rooms:
            code = await self.store.session_room(session.id)
            if code is not None and code not in self.rooms:
                self.session_rooms[session.id] = RemoteRoom(self, code)  # type: ignore[assignment]
        return session

    async def _hold(self, session: str) -> str | None:
        """Record that this node holds ``session``'s connection now (``conn:<session>``, a stamp
        unique to this attach); returns the stamp of the attach before it, wherever it was."""
        stamp = f"{self.node}|{next(self._attaches)}"
        self._held[session] = stamp
        previous = await self.store.redis.set(self.store.key("conn", session), stamp, get=True)
        return text(previous) if isinstance(previous, (bytes, str)) else None

    def _replaced(self, session_id: str, stamp: str) -> None:
        """Our connection of ``session_id`` was resumed on another node: tell it and close it, unless
        it is a newer attach than the one that was replaced."""
        session = self.sessions.get(session_id)
        if session is None or self._held.get(session_id) != stamp:
            return
        del self._held[session_id]
        old, session.sink = session.sink, None
        if old is not None:
            old.send(messages.replaced())
            old.close(4000, "session resumed elsewhere")

    def connection_lost(self, session: Session, sink: Sink) -> None:
        super().connection_lost(session, sink)
        if session.sink is None:
            self._held.pop(session.id, None)

    async def _check_free(self, session: Session) -> None:
        """``_require_free``, after checking a remote membership against what its owner committed."""
        room = self.session_rooms.get(session.id)
        if isinstance(room, RemoteRoom):
            code = await self.store.session_room(session.id)
            if code is None:
                self.session_rooms.pop(session.id, None)
            elif code != room.code:
                self.session_rooms[session.id] = RemoteRoom(self, code)
        self._require_free(session)

    # --- rooms -------------------------------------------------------------------------

    async def create_room(self, session: Session, sink: Sink, request_id: Any, **options: Any) -> None:
        await self._check_free(session)
        await super().create_room(session, sink, request_id, **options)

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
        await self._check_free(session)
        wanted = normalize_code(code)
        if wanted not in self.rooms:
            item = [
                "join",
                session.id,
                session.name,
                session.token_hash,
                request_id,
                password,
                role,
                session.profile,
            ]
            if await self._call(wanted, item, session, sink) != "local":
                return
        await super().join(session, sink, request_id, code, password, role, origin)

    async def quick_play(
        self, session: Session, sink: Sink, request_id: Any, game: str, owner: str | None = None
    ) -> None:
        """Quick play across the cluster: the fullest room known here (a fuller room on another node
        first), else the room another node opened last, else a new one.

        Joining is checked by the room's owner under its own lock (``full`` means: try the next
        room). Opening is decided by one node at a time (``store.quick_opening``), after a last look
        at the room opened last: the lobby's news of a room opened on another node a moment ago may
        not be here yet, and without that look two players asking at once would each sit alone.
        """
        await self._check_free(session)
        try:
            get_game(game)
        except KeyError:
            raise CommandError("unknown_game", f"no game called {game!r}") from None
        tried: set[str] = set()
        for _ in range(_QUICK_TRIES):
            choice = self._quick_choice(game, tried)
            if choice is None:
                async with self.store.quick_opening(game) as newest:
                    choice = self._quick_choice(game, tried)
                    if choice is None and newest is not None and newest not in tried.union(self.rooms):
                        choice = newest
                    if choice is None:
                        choice = await self._open_quick_room(game, owner)
                        await self.store.opened_quick_room(game, choice.code)
            if isinstance(choice, Room):
                if await self._quick_join(session, sink, request_id, choice) != "full":
                    return
                tried.add(choice.code)
                continue
            tried.add(choice)
            item = ["quick", session.id, session.name, session.token_hash, request_id, session.profile]
            try:
                result = await self._call(choice, item, session, sink)
            except CommandError as exc:
                if exc.code != "room_not_found":  # the room opened last may have closed since
                    raise
                continue
            if result == "local":  # this node took the room over meanwhile
                room = self.rooms.get(choice)
                result = await self._quick_join(session, sink, request_id, room) if room else "full"
            if result != "full":
                return
        raise CommandError("room_unavailable", "every quick-play room tried filled up first; try again")

    def _quick_choice(self, game: str, tried: set[str]) -> Room | str | None:
        """The fullest room this node knows a quick player may join: one of its own, or the code of
        a fuller one on another node (from the lobby's news)."""
        local = self._quick_room(game)
        if local is not None and local.code in tried:
            local = None
        local_taken = len(local.players()) if local is not None else -1
        return self._remote_quick_room(game, tried, local_taken) or local

    def _remote_quick_room(self, game: str, tried: set[str], better_than: int) -> str | None:
        best, best_taken = None, better_than
        for code, s in self._listed.items():
            if code in self.rooms or code in tried or s.get("game") != game:
                continue
            if not s.get("quick_play") or s.get("has_password"):
                continue
            if s.get("state") not in ("waiting", "countdown"):
                continue
            if best_taken < s["players"] < s["capacity"]:
                best, best_taken = code, s["players"]
        return best

    async def command(
        self, session: Session, sink: Sink, request_id: Any, kind: str, payload: dict[str, Any]
    ) -> None:
        room = self.session_rooms.get(session.id)
        if not isinstance(room, RemoteRoom) or kind == "action":
            await super().command(session, sink, request_id, kind, payload)
            return
        if kind == "update_settings" and "password" in payload:
            password = payload.pop("password")  # the owner's handler checks the sender is host
            payload["password_hash"] = await asyncio.to_thread(hash_password, password) if password else None
        await room.submit(Command(kind, session.id, payload, sink, request_id))

    async def command_as(self, code: str, session: str, kind: str, payload: dict[str, Any]) -> str | None:
        if code in self.rooms:
            return await super().command_as(code, session, kind, payload)
        return await RemoteRoom(self, code).submit(Command(kind, session, payload))

    # --- forwarding (this node holds the connection) -------------------------------------

    def _cid(self, sink: Sink | None) -> int:
        if sink is None:
            return 0
        cid = self._sink_ids.get(sink)
        if cid is None:
            cid = self._sink_ids[sink] = next(self._cids)
            self._local_sinks[cid] = sink
        return cid

    def forward(self, code: str, cmd: Command, future: asyncio.Future[str | None] | None) -> None:
        """Send ``cmd`` to the owner of ``code``; ``future`` (if any) gets the error code or None."""
        owner = self.owners.get(code)
        if owner is not None and owner != self.node and future is None:
            item = ["cmd", 0, self.node, self._cid(cmd.sink), code, cmd.kind, cmd.session, cmd.payload]
            item += [cmd.request_id, cmd.at, cmd.quiet, f"{self.node}/{next(self._fids)}"]
            self._post(owner, item)
            self._note_unsure(code, item)
            return
        self._spawn(self._forward(code, cmd, future))

    def _note_unsure(self, code: str, item: Item) -> None:
        now = time.monotonic()
        sent = self._unsure.get(code)
        if sent is None:
            sent = self._unsure[code] = deque()
        sent.append((now, item))
        horizon = now - self._unsure_seconds
        while sent[0][0] < horizon:
            sent.popleft()

    def forwarded_done(self, room: Room, cmd: Command, error: str | None) -> None:
        """Tell the node that forwarded ``cmd`` (its ``fid`` names it) that we handled it, in the same
        batch as the move's messages; not when this node turned out not to own the room (``moved``:
        fenced out): the room's new owner is sent it (``_on_claimed``)."""
        if error != "moved" and cmd.fid is not None:
            self._post(cmd.fid.rpartition("/")[0], ["read", room.code, cmd.fid])

    def _read(self, code: str, fid: str) -> None:
        """The owner of ``code`` handled our move ``fid`` (applied and committed, or refused)."""
        sent = self._unsure.get(code)
        if not sent:
            return
        if sent[0][1][11] == fid:  # the usual case: moves are handled in the order they were sent
            sent.popleft()
        else:
            for entry in sent:
                if entry[1][11] == fid:
                    sent.remove(entry)
                    break
        if not sent:
            del self._unsure[code]

    def _forget_unsure(self) -> None:
        """Drop what is too old to be sent again (the heartbeat's sweep, for rooms gone quiet)."""
        horizon = time.monotonic() - self._unsure_seconds
        for code, sent in list(self._unsure.items()):
            while sent and sent[0][0] < horizon:
                sent.popleft()
            if not sent:
                del self._unsure[code]

    def _send_unsure(self, code: str, owner: str, fid: str | None = None) -> None:
        """Send the moves lately forwarded for ``code`` (or only the one named ``fid``) to ``owner``,
        its owner now: another node, or this one (which runs them here)."""
        horizon = time.monotonic() - self._unsure_seconds
        for at, item in self._unsure.get(code, ()):
            if at < horizon or (fid is not None and item[11] != fid):
                continue
            if owner != self.node:
                self._post(owner, item)
            elif (room := self.rooms.get(code)) is not None:
                room.submit_nowait(_forwarded(item, self._local_sinks.get(item[3])))

    async def _stray(self, node: str, item: Item) -> None:
        """``node`` got our move ``item`` for a room it does not own (any more): send it to the owner,
        unless that is still ``node`` by its lease (it is handing the room over; once another node
        claims it, ``_on_claimed`` sends it there)."""
        code = item[4]
        if self.owners.get(code) == node:
            del self.owners[code]
        owner = await self._owner(code)
        if owner is not None and owner != node:
            self._send_unsure(code, owner, item[11])

    async def _forward(self, code: str, cmd: Command, future: asyncio.Future[str | None] | None) -> None:
        item = ["cmd", cmd.kind, cmd.session, cmd.payload, cmd.request_id, cmd.at, cmd.quiet]
        try:
            result = await self._call(code, item, None, cmd.sink)
        except Exception as failure:
            exc = failure if isinstance(failure, CommandError) else _unreachable(code, cmd, failure)
            result = exc.code
            if cmd.sink is not None and future is not None:
                error: Message = {"type": "error", "code": exc.code, "message": exc.message}
                cmd.sink.send({**error, "id": cmd.request_id} if cmd.request_id is not None else error)
        if result == "local":
            room = self.rooms.get(code)
            if room is None:
                result = "room_closed"
            elif future is None:
                room.submit_nowait(cmd)
                return
            else:
                result = await room.submit(cmd)
        if future is not None and not future.done():
            future.set_result(result)

    async def _call(self, code: str, body: Item, session: Session | None, sink: Sink | None) -> str | None:
        """Run ``body`` on the owner of ``code`` and wait for its answer.

        Returns the command's error code (None when accepted), or ``"local"`` when this node owns
        the room now (the caller runs it here). Updates where this node thinks the session is.
        """
        for attempt in range(_RETRIES):
            try:
                owner = await self._owner(code)
            except RedisConnectionError:
                # Redis unreachable for a moment (restarting): look again (a re-attach lost here left
                # its player a move behind for good).
                log.warning("event=owner_lookup_failed room=%s", code)
                await asyncio.sleep(0.05 * (attempt + 1))
                continue
            if owner is None:
                raise CommandError("room_not_found", f"no room with code {code}")
            if owner == self.node:
                return "local"
            rpc = next(self._rpc_ids)
            future: asyncio.Future[tuple[str | None, str | None]] = asyncio.get_running_loop().create_future()
            self._rpcs[rpc] = future
            self._rpc_rooms[rpc] = code
            op, *rest = body
            self._post(owner, [op, rpc, self.node, self._cid(sink), code, *rest])
            try:
                error, room = await asyncio.wait_for(future, self.lease + 2.0)
            except TimeoutError:
                log.warning("event=forward_timeout room=%s owner=%s", code, owner)
                self.owners.pop(code, None)
                continue
            finally:
                self._rpcs.pop(rpc, None)
                self._rpc_rooms.pop(rpc, None)
            if error == "moved":
                self.owners.pop(code, None)
                await asyncio.sleep(0.05 * (attempt + 1))
                continue
            sid = session.id if session is not None else body[2] if op == "cmd" else None
            if sid is not None and error != "full":
                if room is None:
                    # "Not in a room" may come from an owner that has just lost the room: believe
                    # only what the room's real owner committed.
                    room = await self.store.session_room(sid)
                self._note_membership(sid, room)
            return error
        raise CommandError("room_unavailable", "the room is moving to another server; try again")

    def _note_membership(self, session: str, code: str | None) -> None:
        current = self.session_rooms.get(session)
        if isinstance(current, Room):
            return  # a local room's own hooks keep this right
        if code is None:
            self.session_rooms.pop(session, None)
        elif code not in self.rooms and not (isinstance(current, RemoteRoom) and current.code == code):
            self.session_rooms[session] = RemoteRoom(self, code)  # type: ignore[assignment]

    async def invite_facts(self, code: str) -> InviteFacts | None:
        """Here, or on any node: an invite link's page asks whichever node it reached (``net/invite``).
        Another node's room is known by its stored config only: its game, not who hosts it now, nor
        whether a game is on or a password set since."""
        room = self.rooms.get(code)
        if room is not None:
            return room_facts(room)
        game = await self.store.open_game(code)
        return None if game is None else {"game": game, "host": None, "password": None, "playing": None}

    async def owner_of(self, code: str) -> str | None:
        """Who owns ``code`` as far as one look tells (no waiting, no claim): where a connection that
        names the room is best served (net/handoff.py); None for no such room, or no such code."""
        try:
            code = normalize_code(code)
        except CommandError:
            return None
        if code in self.rooms:
            return self.node
        return self.owners.get(code) or await self.store.owner(code)

    async def _owner(self, code: str) -> str | None:
        """The node owning ``code``: cached, else its lease; an unowned open room is claimed here."""
        if code in self.rooms:
            return self.node
        cached = self.owners.get(code)
        if cached is not None:
            return cached
        deadline = time.monotonic() + self.lease + 2.0
        while time.monotonic() < deadline:
            owner = await self.store.owner(code)
            if owner is not None:
                self.owners[code] = owner
                return owner
            if not await self.store.is_open(code):
                return None
            if await self._claim(code):
                return self.node
            await asyncio.sleep(0.1)
        return None

    # --- serving (this node owns the room) ------------------------------------------------

    def _remote_sink(self, node: str, cid: int) -> RemoteSink | None:
        if not cid or self.bus is None:
            return None
        sink = self._remote_sinks.get((node, cid))
        if sink is None:
            sink = self._remote_sinks[node, cid] = RemoteSink(self.bus, node, cid)
        return sink

    def _on_item(self, item: Item) -> None:
        op = item[0]
        if op == "m":
            sink = self._local_sinks.get(item[1])
            if sink is not None:
                sink.send(item[2])
        elif op == "j":  # a game message encoded by the owner: written as it is when the sink can
            sink = self._local_sinks.get(item[1])
            if sink is not None:
                send_json = getattr(sink, "send_json", None)
                if send_json is not None:
                    send_json(item[2])
                else:
                    sink.send(orjson.loads(item[2]))
        elif op == "done":
            future = self._rpcs.get(item[1])
            if future is not None and not future.done():
                future.set_result((item[2], item[3]))
        elif op == "c":
            sink = self._local_sinks.get(item[1])
            if sink is not None:
                sink.close(item[2], item[3])
        elif op in ("cmd", "join", "quick"):
            self._serve(item)
        elif op == "replaced":
            self._replaced(item[1], item[2])
        elif op == "read":
            self._read(item[1], item[2])
        elif op == "stray":
            self._spawn(self._stray(item[1], item[2]))
        elif op == "claimed":
            self._on_claimed(item[1], item[2])
        elif op == "released":
            if item[2] != self.node and not self._closing:
                self.owners.pop(item[1], None)
                self._spawn(self._claim(item[1]))
        elif op == "back":
            if item[1] != self.node:
                self._back(item[1])
        elif op == "lobby":
            if item[4] != self.node:
                self._apply_listing(item[1], item[2], item[3])
        elif (handler := self.handlers.get(op)) is not None:
            handler(item)

    def _serve(self, item: Item) -> None:
        op, rpc, node, cid, code = item[:5]
        room = self.rooms.get(code)
        if room is None:
            if rpc:
                self._post(node, ["done", rpc, "moved", None])
            elif op == "cmd" and len(item) > 11:  # a move sent on without an answer: back to its sender
                self._post(node, ["stray", self.node, item])
            return
        sink = self._remote_sink(node, cid)
        if op == "cmd":
            cmd = _forwarded(item, sink)
            session = cmd.session
            if not rpc:
                room.submit_nowait(cmd)  # one with a fid is acknowledged once handled (forwarded_done)
                return
            done = room.submit(cmd)
            done.add_done_callback(lambda f: self._answer(node, rpc, session, f.result()))
            return
        sid, name, token_hash, request_id = item[5:9]
        session_obj = self.sessions.get(sid)
        if session_obj is None:
            session_obj = self.sessions[sid] = Session(sid, name, token_hash)
        fields = 12 if op == "join" else 10  # the guest profile comes last (none from an older node)
        session_obj.profile = item[fields - 1] if len(item) >= fields else None
        work: Coroutine[Any, Any, str | None]
        if op == "join":
            password, role = item[9:11]
            work = Manager.join(self, session_obj, sink, request_id, code, password, role)  # type: ignore[arg-type]
        else:
            work = self._quick_join(session_obj, sink, request_id, room)
        self._spawn(self._run_rpc(work, node, rpc, sid, sink, request_id))

    async def _run_rpc(
        self, work: Any, node: str, rpc: int, session: str, sink: Sink | None, request_id: Any
    ) -> None:
        error = None
        try:
            error = await work
        except CommandError as exc:
            error = exc.code
            if sink is not None:
                reply: Message = {"type": "error", "code": exc.code, "message": exc.message}
                sink.send({**reply, "id": request_id} if request_id is not None else reply)
        self._answer(node, rpc, session, error)

    def _answer(self, node: str, rpc: int, session: str | None, error: str | None) -> None:
        room = self.session_rooms.get(session) if session is not None else None
        code = room.code if isinstance(room, Room) else None
        self._post(node, ["done", rpc, error, code])

    async def _quick_join(
        self, session: Session, sink: Sink | None, request_id: Any, room: Room
    ) -> str | None:
        """A quick player (of this node, or sent here by another) joins ``room`` of this node if a seat
        is still free under the game's lock, counting joins on their way; else ``full``."""
        async with self._quick_locks.setdefault(room.game_name, asyncio.Lock()):
            on_the_way = self._quick_pending.get(room.code, ())
            taken = len(room.players()) + sum(1 for s in on_the_way if room.member_by_session(s) is None)
            if room.state not in ("waiting", "countdown") or taken >= room.capacity:
                return "full"
            self._quick_pending.setdefault(room.code, set()).add(session.id)
        try:
            return await room.submit(Command("join", session.id, session.join_payload(), sink, request_id))
        finally:
            pending = self._quick_pending[room.code]
            pending.discard(session.id)
            if not pending:
                del self._quick_pending[room.code]

    # --- ownership ---------------------------------------------------------------------------

    async def _claim(self, code: str) -> bool:
        """Adopt ``code`` if nobody holds it: replay its log as a restart would, re-arm timers and bots."""
        if code in self.rooms or self._closing:
            return code in self.rooms
        record = await self.store.claim(code)
        if record is None:
            return False
        self._adopt(record)
        return True

    def _adopt(self, record: RoomRecord) -> None:
        code = record.code
        local = [
            session
            for sid, room in self.session_rooms.items()
            if isinstance(room, RemoteRoom)
            and room.code == code
            and (session := self.sessions.get(sid)) is not None
            and session.sink is not None
        ]
        try:
            room = self._new_room(record.config)
            room.replay(record.log)
        except Exception:
            log.exception("room=%s could not be recovered; closing it", code)
            self._spawn(self.store.close_room(code, "recovery_failed"))
            return
        self.store.membership.pop(code, None)  # the replay re-derived what Redis already holds
        if room.state is CLOSED:
            self._spawn(self.store.close_room(code, room.config.get("closed_reason", "closed")))
            return
        self.rooms[code] = room
        self.owners[code] = self.node
        self._listed_update(room)
        room.start()
        room.after_recovery()
        for session in local:
            room.submit(Command("reconnect", session.id, {}, session.sink))
        self._post("*", ["claimed", code, self.node])
        log.info("event=room_claimed room=%s node=%s", code, self.node)

    def _on_claimed(self, code: str, node: str) -> None:
        """``node`` adopted ``code``: our connections in it re-attach there (a fresh snapshot each)."""
        for rpc, room in list(self._rpc_rooms.items()):  # sent to the old owner: send them again
            future = self._rpcs.get(rpc)
            if room == code and future is not None and not future.done():
                future.set_result(("moved", None))
        if node == self.node:
            self._send_unsure(code, node)  # our connections were re-attached as it was adopted
            return
        self.owners[code] = node
        if code in self.rooms:
            self._step_down(code, node)
            return
        reattached = self._reattach_room(code)
        if code in self._unsure:
            self._spawn(self._send_unsure_after(code, reattached))

    async def _send_unsure_after(self, code: str, reattached: list[asyncio.Future[str | None]]) -> None:
        """The moves sent on without an answer, once their senders are re-attached: the new owner
        takes a move only through the connection that now speaks for its member."""
        await asyncio.gather(*reattached, return_exceptions=True)
        owner = self.owners.get(code)
        if owner is not None:
            self._send_unsure(code, owner)

    def _back(self, node: str) -> None:
        """``node`` is subscribed again after a Redis outage. What was sent to it meanwhile is lost (pub/sub
        keeps nothing): our connections in its rooms re-attach (a snapshot each; the re-attach sent when
        our own subscription came back is lost if we were back first), and the moves it did not confirm
        go again (each applies at most once)."""
        for code in {r.code for r in self.session_rooms.values() if isinstance(r, RemoteRoom)}:
            if self.owners.get(code) == node:
                reattached = self._reattach_room(code)
                if code in self._unsure:
                    self._spawn(self._send_unsure_after(code, reattached))

    def _reattach_room(self, code: str) -> list[asyncio.Future[str | None]]:
        reattached = []
        for sid, room in list(self.session_rooms.items()):
            if isinstance(room, RemoteRoom) and room.code == code:
                session = self.sessions.get(sid)
                if session is not None and session.sink is not None:
                    reattached.append(room.submit(Command("reconnect", sid, {}, session.sink)))
        return reattached

    def _step_down(self, code: str, owner: str | None = None) -> None:
        """Another node owns ``code`` now (we were paused or cut off): stop our copy, never write again."""
        room = self.rooms.pop(code, None)
        self.store.tokens.pop(code, None)
        if owner is None:
            self.owners.pop(code, None)
        else:
            self.owners[code] = owner
        if room is not None:
            log.warning("event=room_lost room=%s node=%s", code, self.node)
            self._spawn(self._retire(room))

    async def _retire(self, room: Room) -> None:
        with contextlib.suppress(Exception):
            await room.stop()
        self.store.membership.pop(room.code, None)
        for member in room.members.values():
            if member.bot or self.session_rooms.get(member.session) is not room:
                continue
            session = self.sessions.get(member.session)
            if session is not None and session.sink is not None:
                self.session_rooms[member.session] = RemoteRoom(self, room.code)  # type: ignore[assignment]
            else:
                self.session_rooms.pop(member.session, None)
        self._reattach_room(room.code)

    async def _resync(self) -> None:
        """After a Redis outage (pub/sub lost messages): every connection here gets a fresh snapshot,
        and the other nodes are told this node hears again (``back``)."""
        self._post("*", ["back", self.node])
        for room in self.rooms.values():
            for member in room.members.values():
                session = self.sessions.get(member.session)
                sink = session.sink if session is not None else None
                if not member.bot and sink is not None and member.sink is sink:
                    room.submit(Command("reconnect", member.session, {}, sink))
        for code in {r.code for r in self.session_rooms.values() if isinstance(r, RemoteRoom)}:
            self._reattach_room(code)

    # --- background loops ------------------------------------------------------------------

    async def _heartbeat(self) -> None:
        failures = 0
        while True:
            await asyncio.sleep(self.lease / 4)
            try:
                for code in await self.store.renew():
                    self._step_down(code)
                self._forget_unsure()
                await self._beat()
            except Exception:
                failures = self._failed("heartbeat", failures)
            else:
                failures = self._recovered("heartbeat", failures)

    def _failed(self, task: str, failures: int) -> int:
        """Log a failure of a periodic task: the first of a run with its traceback, the others of the
        run only counted (a Redis outage printed a traceback per heartbeat and per claim pass)."""
        if not failures:
            log.warning("event=%s_failed node=%s", task, self.node, exc_info=True)
        return failures + 1

    def _recovered(self, task: str, failures: int) -> int:
        if failures:
            log.warning("event=%s_recovered node=%s failures=%d", task, self.node, failures)
        return 0

    async def _beat(self) -> None:
        """Absolute counts with a TTL (never INCR/DECR), and which nodes are alive."""
        store, redis = self.store, self.store.redis
        info = {"rooms": len(self.rooms), "connections": self.count_connections(), "at": time.time()}
        pipe = redis.pipeline(transaction=False)
        pipe.set(store.key("nodeinfo", self.node), orjson.dumps(info), px=int(self.lease * 1000))
        pipe.sadd(store.key("nodes"), self.node)
        await pipe.execute()
        alive = set((await self.cluster_stats())["nodes"])
        gone = self._nodes - alive
        self._nodes = alive
        if gone:
            self._drop_connections_of(gone)
            for hook in self.nodes_gone:
                hook(gone)

    def _drop_connections_of(self, nodes: set[str]) -> None:
        """Members connected through nodes that died are disconnected (their grace period starts)."""
        for room in self.rooms.values():
            for member in room.members.values():
                sink = member.sink
                if isinstance(sink, RemoteSink) and sink.node in nodes:
                    room.submit(Command("disconnect", member.session, {}, sink))

    async def cluster_stats(self) -> dict[str, Any]:
        """Rooms and connections of every live node (from their last heartbeat)."""
        store, redis = self.store, self.store.redis
        nodes = sorted(text(n) for n in await redis.smembers(store.key("nodes")))
        infos = await redis.mget([store.key("nodeinfo", n) for n in nodes]) if nodes else []
        alive: dict[str, Any] = {}
        dead = []
        for node, raw in zip(nodes, infos, strict=True):
            if raw is None:
                dead.append(node)
            else:
                alive[node] = orjson.loads(raw)
        if dead:
            await redis.srem(store.key("nodes"), *dead)
        return {
            "nodes": list(alive),
            "rooms": sum(i["rooms"] for i in alive.values()),
            "connections": sum(i["connections"] for i in alive.values()),
        }

    async def _claimer(self) -> None:
        failures = 0
        while True:
            await asyncio.sleep(self.lease / 8)
            try:
                await self._claim_orphans()
            except Exception:
                failures = self._failed("claim", failures)
            else:
                failures = self._recovered("claim", failures)

    async def _claim_orphans(self) -> None:
        orphans = await self.store.orphans()
        random.shuffle(orphans)  # nodes claiming at once spread the rooms between them
        gate = asyncio.Semaphore(16)  # a dead node's rooms come back in parallel, not one by one

        async def claim(code: str) -> None:
            async with gate:
                await self._claim(code)

        await asyncio.gather(*(claim(code) for code in orphans))


def _unreachable(code: str, cmd: Command, failure: Exception) -> CommandError:
    """Redis failed under a forwarded command (it was not run): its waiter gets an answer, not a hang."""
    log.warning("event=forward_failed room=%s kind=%s error=%r", code, cmd.kind, failure)
    return CommandError("room_unavailable", "the room cannot be reached just now; try again")


def _forwarded(item: Item, sink: Sink | None) -> Command:
    """The command a ``cmd`` bus item carries, answered through ``sink``; its ``fid`` if it has one
    (a move sent on without an answer; none from a node older than ``Command.fid``)."""
    kind, session, payload, request_id, at, quiet = item[5:11]
    return Command(kind, session, payload, sink, request_id, at, quiet, item[11] if len(item) > 11 else None)
