"""Redis store for cluster mode: room logs in Streams, leases with fencing tokens, sessions, games.

One node owns a room at a time. Ownership is a lease key ``lease:<code>`` holding ``"<token>|<node>"``
with a TTL, renewed by the owner's heartbeat; ``token`` comes from ``INCR fence:<code>``, so it grows
on every change of owner. Every write a room makes (log append, close, the session → room index)
is a Lua script that first checks the lease still holds this node's token: a paused or partitioned
former owner can never write after another node claimed the room (it gets ``Fenced`` instead).

Appends made in one event-loop tick go to Redis as one script call, in the node's shared pipeline
(store/pipeline.py: the bus's publishes ride in the same round trips); each caller's await
resolves once the script ran. Finished games are kept in Redis lists: run Redis with AOF
(``appendonly yes``) for them to survive a Redis restart (docs/scaling.md, "Durability").
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import socket
import time
from collections.abc import AsyncIterator, Callable
from functools import partial
from typing import Any, cast

import orjson
from redis import asyncio as aioredis
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import NoScriptError, ResponseError
from redis.exceptions import TimeoutError as RedisTimeoutError
from redis.maint_notifications import MaintNotificationsConfig

from parlour.dumps import json_bytes
from parlour.store.base import (
    Fenced,
    GameQuery,
    GameRecord,
    PlayerTotals,
    ProfileRecord,
    RoomRecord,
    SessionRecord,
    decode_cursor,
    encode_cursor,
    player_games,
)
from parlour.store.pipeline import Pipeliner

log = logging.getLogger("parlour.store")

_CHECKPOINT = b'{"k":"checkpoint"'
_QUICK_LOCK_MS = 2000  # far longer than opening a room takes; a dead holder's hold ends with it
_QUICK_LOCK_SECONDS = 3.0
_QUICK_POINTER_SECONDS = 86400  # a pointer to a room long closed only costs one look

# All the appends of one loop tick, in one call.
# KEYS: sroom, applied, gids, then for each append: lease, log, games
# ARGV: for each append: lease value, record, is_checkpoint, game or "", membership, code, append id,
#       game id, index or ""
# Returns per append 1 (appended), 0 (fenced: the lease is another node's) or the error of that
# append alone (one room's failure does not fail the others in the call). The append id, recorded
# once the append has fully succeeded, makes a retried call (its reply lost with the connection)
# apply each append once. A game is pushed on
# its room's list and found by its public id through ``gids`` (id → "<room>|<index>").
_APPEND = """
local function append(k, a, code, aid)
  local id = redis.call('XADD', KEYS[k + 1], '*', 'd', ARGV[a + 2])
  if ARGV[a + 3] == '1' then redis.call('XTRIM', KEYS[k + 1], 'MINID', id) end
  if ARGV[a + 4] ~= '' then
    local count = redis.call('RPUSH', KEYS[k + 2], ARGV[a + 4])
    redis.call('HSET', KEYS[3], ARGV[a + 8], code .. '|' .. (count - 1))
  end
  if ARGV[a + 9] ~= '' then
    local g = cjson.decode(ARGV[a + 9])
    for _, entry in ipairs(g.sets) do redis.call('ZADD', entry, g.score, ARGV[a + 8]) end
    for _, s in ipairs(g.totals) do
      redis.call('HSET', s.key, 'name', s.name, 'bot', s.bot)
      local played = redis.call('HINCRBY', s.key, 'played', 1)
      local won = redis.call('HINCRBY', s.key, 'won', s.won)
      for key, v in pairs(s.stats) do redis.call('HINCRBY', s.key, 'stat:' .. key, v) end
      redis.call('ZADD', s.board, won * 1000000 + math.floor(won * 999999 / played), s.profile)
      redis.call('SADD', s.mine, s.game)
    end
  end
  if ARGV[a + 5] ~= '' then
    local pairs_ = cjson.decode(ARGV[a + 5])
    for i = 1, #pairs_, 2 do
      if pairs_[i + 1] == '' then
        if redis.call('HGET', KEYS[1], pairs_[i]) == code then redis.call('HDEL', KEYS[1], pairs_[i]) end
      else
        redis.call('HSET', KEYS[1], pairs_[i], pairs_[i + 1])
      end
    end
  end
  redis.call('HSET', KEYS[2], code, aid)  -- last: an append that failed is not marked applied
end
local out = {}
for n = 1, (#KEYS - 3) / 3 do
  local k, a = n * 3 + 1, (n - 1) * 9
  local code, aid = ARGV[a + 6], ARGV[a + 7]
  if redis.call('HGET', KEYS[2], code) == aid then
    out[n] = 1
  elseif redis.call('GET', KEYS[k]) ~= ARGV[a + 1] then
    out[n] = 0
  else
    local ok, err = pcall(append, k, a, code, aid)
    out[n] = ok and 1 or (type(err) == 'table' and err.err or tostring(err))
  end
end
return out
"""

# KEYS: room, open, fence, lease   ARGV: config, node, lease ms
_CREATE = """
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'config', ARGV[1])
redis.call('SADD', KEYS[2], ARGV[4])
local token = redis.call('INCR', KEYS[3])
redis.call('SET', KEYS[4], token .. '|' .. ARGV[2], 'PX', ARGV[3])
return token
"""

# KEYS: lease, fence, open   ARGV: node, lease ms, code. A claim: only of an open room nobody holds.
_CLAIM = """
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
if redis.call('SISMEMBER', KEYS[3], ARGV[3]) == 0 then return 0 end
local token = redis.call('INCR', KEYS[2])
redis.call('SET', KEYS[1], token .. '|' .. ARGV[1], 'PX', ARGV[2])
return token
"""

# KEYS: lease1, fence1, lease2, fence2...   ARGV: lease ms, value1, token1, value2, token2...
# Renews each lease still ours; one that expired but nobody claimed since (the fence is still our
# token) is taken back. Returns the indexes (1-based) of the rooms lost to another owner.
_RENEW = """
local lost = {}
for i = 1, #KEYS, 2 do
  local n = (i + 1) / 2
  local value = ARGV[n * 2]
  local current = redis.call('GET', KEYS[i])
  if current == value then
    redis.call('PEXPIRE', KEYS[i], ARGV[1])
  elseif current == false and redis.call('GET', KEYS[i + 1]) == ARGV[n * 2 + 1] then
    redis.call('SET', KEYS[i], value, 'PX', ARGV[1])
  else
    table.insert(lost, n)
  end
end
return lost
"""

# KEYS: lease, room, open, log, sroom, applied   ARGV: value, reason, at, code, membership
_CLOSE = """
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[2], 'closed_reason', ARGV[2], 'closed_at', ARGV[3])
redis.call('SREM', KEYS[3], ARGV[4])
redis.call('DEL', KEYS[4], KEYS[1])
redis.call('HDEL', KEYS[6], ARGV[4])
if ARGV[5] ~= '' then
  local pairs_ = cjson.decode(ARGV[5])
  for i = 1, #pairs_, 2 do
    if redis.call('HGET', KEYS[5], pairs_[i]) == ARGV[4] then redis.call('HDEL', KEYS[5], pairs_[i]) end
  end
end
return 1
"""

# KEYS: lease   ARGV: value
_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""

# KEYS: open   ARGV: prefix of lease keys, limit. Open rooms nobody holds a lease on.
_ORPHANS = """
local out = {}
for _, code in ipairs(redis.call('SMEMBERS', KEYS[1])) do
  if redis.call('EXISTS', ARGV[1] .. code) == 0 then
    table.insert(out, code)
    if #out >= tonumber(ARGV[2]) then break end
  end
end
return out
"""


def text(raw: bytes | str) -> str:
    """A Redis reply as text (the client returns bytes)."""
    return raw.decode() if isinstance(raw, bytes) else raw


def node_name() -> str:
    """A name unique to this process run (host, pid, random suffix): a restarted node is a new node."""
    return f"{socket.gethostname()}-{os.getpid()}-{os.urandom(3).hex()}"


_Pending = tuple[str, bytes, GameRecord | None, "asyncio.Future[None]"]


class RedisStore:
    """The ``Store`` of cluster mode, plus the leases of the rooms this node owns."""

    def __init__(self, url: str, node: str, lease_seconds: float = 3.0, prefix: str = "pl:") -> None:
        self.url = url
        self.node = node
        self.lease_ms = int(lease_seconds * 1000)
        self.prefix = prefix
        # redis-py checks a pooled connection (closed by the server, or holding stray bytes) before
        # lending it, and replaces it, except while its "maintenance notifications" (a Redis Enterprise
        # feature, on by default) are on: then each connection a Redis restart closed failed one
        # command. A blanket retry instead would repeat commands that must not run twice.
        self.redis: aioredis.Redis = aioredis.Redis.from_url(
            url,
            socket_connect_timeout=2.0,
            maint_notifications_config=MaintNotificationsConfig(enabled=False),
        )
        self.pipeliner = Pipeliner(url)
        """The hot path's round trips: log appends here, the bus's publishes (rooms/cluster/bus.py)."""
        self.tokens: dict[str, int] = {}
        """Fencing token of every room this node owns."""
        self.on_fenced: Callable[[str], None] | None = None
        """Called (once per refused write) when a room turns out to be owned elsewhere."""
        self.membership: dict[str, dict[str, str]] = {}
        """Per room: session → room code ("" = left), written with the room's next log record."""
        self._pending: list[_Pending] = []
        self._flush_scheduled = False
        self._loop: asyncio.AbstractEventLoop | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        r = self.redis
        self._append_sha: str | None = None
        self._appends = 0
        self._create = r.register_script(_CREATE)
        self._claim = r.register_script(_CLAIM)
        self._renew = r.register_script(_RENEW)
        self._close = r.register_script(_CLOSE)
        self._release = r.register_script(_RELEASE)
        self._orphans = r.register_script(_ORPHANS)

    def key(self, *parts: str) -> str:
        return self.prefix + ":".join(parts)

    def lease_value(self, code: str) -> str:
        return f"{self.tokens.get(code, 0)}|{self.node}"

    # --- lifecycle -----------------------------------------------------------

    async def open(self) -> None:
        self._loop = asyncio.get_running_loop()
        try:
            await self.redis.ping()
        except Exception as exc:
            raise SystemExit(f"cannot reach Redis at {self.url}: {exc}") from None
        await self._check_durability()

    async def _check_durability(self) -> None:
        """Rooms, their logs and the sessions live in Redis alone: without AOF a Redis restart loses
        them (with RDB snapshots only, it brings back logs minutes old). Say so once, at start, where
        the operator looks; a managed Redis may refuse ``CONFIG``, and then nothing can be told."""
        try:
            found = await self.redis.config_get("appendonly")
        except ResponseError:
            log.info("event=redis_durability_unknown reason=config_get_refused")
            return
        appendonly = found.get("appendonly", "")  # redis-py decodes CONFIG GET's reply
        if appendonly != "yes":
            log.warning(
                "event=redis_not_durable appendonly=%s; a Redis restart loses every room: run Redis"
                " with appendonly yes (docs/scaling.md, Durability)",
                appendonly or "unknown",
            )

    async def close(self) -> None:
        if self._pending:
            self._flush()
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)
        await self.pipeliner.idle()
        self.pipeliner.connection.close()
        await self.redis.aclose()

    # --- sessions ------------------------------------------------------------

    async def save_session(self, session: SessionRecord) -> None:
        data = json_bytes(
            {
                "id": session.id,
                "name": session.name,
                "created_at": session.created_at,
                "profile": session.profile,
            }
        )
        await self.redis.set(self.key("session", session.token_hash), data)

    async def find_session(self, token_hash: str) -> SessionRecord | None:
        raw = await self.redis.get(self.key("session", token_hash))
        if raw is None:
            return None
        data = orjson.loads(raw)
        return SessionRecord(data["id"], data["name"], token_hash, data["created_at"], data.get("profile"))

    # --- profiles ------------------------------------------------------------

    async def save_profile(self, profile: ProfileRecord) -> None:
        data = {"name": profile.name, "secret_hash": profile.secret_hash, "created_at": profile.created_at}
        await self.redis.hset(self.key("profile", profile.id), mapping=data)  # type: ignore[arg-type]

    async def find_profile(self, profile_id: str) -> ProfileRecord | None:
        raw = await self.redis.hgetall(self.key("profile", profile_id))
        if not raw:
            return None
        data = {text(k): text(v) for k, v in raw.items()}
        return ProfileRecord(profile_id, data["name"], data["secret_hash"], float(data["created_at"]))

    async def session_room(self, session: str) -> str | None:
        """The room ``session`` is a member of, as its owner last committed it."""
        raw = await self.redis.hget(self.key("sroom"), session)
        return text(raw) if raw else None

    # --- rooms ---------------------------------------------------------------

    async def create_room(self, code: str, config: dict[str, Any]) -> bool:
        """Record the room and take its lease (token 1 for a new code): the creator owns it."""
        keys = [self.key("room", code), self.key("open"), self.key("fence", code), self.key("lease", code)]
        token = await self._create(keys=keys, args=[json_bytes(config), self.node, self.lease_ms, code])
        if not token:
            return False
        self.tokens[code] = int(token)
        return True

    async def append(self, code: str, record: dict[str, Any], game: GameRecord | None = None) -> None:
        loop = self._loop or asyncio.get_running_loop()
        done: asyncio.Future[None] = loop.create_future()
        self._pending.append((code, json_bytes(record), game, done))
        if not self._flush_scheduled:
            self._flush_scheduled = True
            loop.call_soon(self._flush)
        await done

    def append_then(
        self,
        code: str,
        record: dict[str, Any],
        game: GameRecord | None,
        then: Callable[[BaseException | None], None],
    ) -> None:
        """``append`` in a task (a round trip to Redis costs far more than the task step)."""
        task = (self._loop or asyncio.get_running_loop()).create_task(self.append(code, record, game))
        self._tasks.add(task)
        task.add_done_callback(partial(_appended, self._tasks, then))

    def _flush(self) -> None:
        """This tick's appends, as one call of the append script."""
        self._flush_scheduled = False
        batch, self._pending = self._pending, []
        if not batch:
            return
        keys = [self.key("sroom"), self.key("applied"), self.key("gids")]
        args: list[Any] = []
        for code, data, game, _ in batch:
            self._appends += 1
            changes = self.membership.pop(code, None)
            flat = [x for pair in changes.items() for x in pair] if changes else None
            keys += [self.key("lease", code), self.key("log", code), self.key("games", code)]
            args += [
                self.lease_value(code),
                data,
                "1" if data.startswith(_CHECKPOINT) else "0",
                b"" if game is None else json_bytes(_game_dict(game)),
                json_bytes(flat) if flat else b"",
                code,
                f"{self.node}:{self._appends}",
                "" if game is None else game.id,
                b"" if game is None else json_bytes(self._index(game)),
            ]
        task = asyncio.get_running_loop().create_task(self._write(batch, keys, args))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _write(self, batch: list[_Pending], keys: list[str], args: list[Any]) -> None:
        """EVALSHA, not redis-py's script objects: in a pipeline they send a SCRIPT EXISTS round
        trip first. A Redis that lost its scripts (restarted) answers NOSCRIPT: load it again."""
        # A connection error leaves it unknown whether Redis applied the batch: never report it as
        # failed (the room would drop a record that may be in the log). Retry the same appends
        # until Redis answers; the append ids make a repeat harmless, and a room whose lease ran
        # out meanwhile gets Fenced.
        while True:
            try:
                if self._append_sha is None:
                    self._append_sha = await self.redis.script_load(_APPEND)
                results = await self.pipeliner.call("EVALSHA", self._append_sha, len(keys), *keys, *args)
                break
            except NoScriptError:
                self._append_sha = None
            except (ConnectionError, OSError, RedisConnectionError, RedisTimeoutError):
                log.warning("event=append_retry rooms=%d", len(batch))
                await asyncio.sleep(0.2)
            except Exception as exc:
                for *_, done in batch:
                    if not done.done():
                        done.set_exception(exc)
                return
        for (code, *_, done), result in zip(batch, results, strict=True):
            if done.done():
                continue
            if result == 1:
                done.set_result(None)
            elif result == 0:
                done.set_exception(Fenced(code))
                self._lost(code)
            else:
                done.set_exception(ResponseError(text(result)))

    def _lost(self, code: str) -> None:
        if self.tokens.pop(code, None) is not None and self.on_fenced is not None:
            self.on_fenced(code)

    async def close_room(self, code: str, reason: str) -> None:
        changes = self.membership.pop(code, None)
        flat = [x for pair in changes.items() for x in pair] if changes else None
        done = await self._close(
            keys=[
                self.key("lease", code),
                self.key("room", code),
                self.key("open"),
                self.key("log", code),
                self.key("sroom"),
                self.key("applied"),
            ],
            args=[self.lease_value(code), reason, time.time(), code, json_bytes(flat) if flat else b""],
        )
        if done:
            self.tokens.pop(code, None)
        else:
            self._lost(code)

    async def open_rooms(self) -> list[RoomRecord]:
        """In cluster mode rooms come back by being claimed (``claim``), not all at startup."""
        return []

    async def games(self, room: str) -> list[GameRecord]:
        rows = await self.redis.lrange(self.key("games", room), 0, -1)
        return [GameRecord(**orjson.loads(row)) for row in rows]

    # --- history ---------------------------------------------------------------

    def _index(self, game: GameRecord) -> dict[str, Any]:
        """What the append script writes with a game: the sorted sets listing it and its players'
        totals (``hist:`` sets score by end time; ``board:<game>`` by wins, then win rate)."""
        visibility = "priv" if game.private else "pub"
        sets = [self.key("hist", "room", game.room)]
        if not game.private:
            sets += [self.key("hist", "pub"), self.key("hist", "pub", game.game)]
        totals = []
        for seat in player_games(game):
            sets += [
                self.key("hist", "player", seat.profile, visibility),
                self.key("hist", "player", seat.profile, visibility, game.game),
            ]
            if seat.counted:
                totals.append(
                    {
                        "key": self.key("totals", game.game, seat.profile),
                        "board": self.key("board", game.game),
                        "mine": self.key("played", seat.profile),
                        "profile": seat.profile,
                        "game": game.game,
                        "name": seat.name,
                        "bot": seat.bot or "",
                        "won": int(seat.won),
                        "stats": seat.stats or {"_": 0},  # an empty object would reach Lua as an array
                    }
                )
        # The score as text: Lua would print a number with 14 digits, losing the end time's fraction.
        return {"score": repr(game.ended_at), "sets": list(dict.fromkeys(sets)), "totals": totals}

    async def list_games(self, query: GameQuery) -> tuple[list[GameRecord], str | None]:
        start = decode_cursor(query.before, str, (float("inf"), "~"))
        want = query.limit + 1
        suffix = (query.game,) if query.game is not None else ()
        if query.room is not None:
            sources = [self.key("hist", "room", query.room)]
        elif query.player is not None:
            sources = [self.key("hist", "player", query.player, "pub", *suffix)]
            if query.viewer is not None:
                sources.append(self.key("hist", "player", query.player, "priv", *suffix))
        else:
            sources = [self.key("hist", "pub", *suffix)]
            if query.viewer is not None:
                sources.append(self.key("hist", "player", query.viewer, "priv", *suffix))
        found: list[GameRecord] = []
        position = start
        while len(found) < want:
            batch = await self._page(sources, position, want)
            if not batch:
                break
            records = await self._records([gid for _, gid in batch])
            for (score, gid), record in zip(batch, records, strict=True):
                position = (score, gid)
                if record is not None and _matches(record, query):
                    record.log = []
                    found.append(record)
                    if len(found) == want:
                        break
        page = found[: query.limit]
        last = page[-1] if len(found) > query.limit else None
        return page, (encode_cursor(last.ended_at, last.id) if last is not None else None)

    async def _page(self, keys: list[str], start: tuple[float, str], want: int) -> list[tuple[float, str]]:
        """The next ``want`` ids after ``start`` over the sorted sets ``keys``, newest first."""
        ended_at, last = start
        high = "+inf" if ended_at == float("inf") else repr(ended_at)
        pipe = self.redis.pipeline(transaction=False)
        for key in keys:
            pipe.zrevrangebyscore(key, high, "-inf", start=0, num=want + 64, withscores=True)
        merged: dict[str, float] = {}
        for rows in await pipe.execute():
            for member, score in rows:
                gid = text(member)
                if score < ended_at or (score == ended_at and gid < last):
                    merged[gid] = score
        ordered = sorted(((score, gid) for gid, score in merged.items()), reverse=True)
        return ordered[:want]

    async def _records(self, gids: list[str]) -> list[GameRecord | None]:
        if not gids:
            return []
        places = await self.redis.hmget(self.key("gids"), gids)
        pipe = self.redis.pipeline(transaction=False)
        for place in places:
            room, index = text(place or b"|0").rsplit("|", 1)
            pipe.lindex(self.key("games", room), int(index))
        rows = await pipe.execute()
        return [
            GameRecord(**orjson.loads(row)) if row and place else None
            for row, place in zip(rows, places, strict=True)
        ]

    async def player_totals(self, profile: str) -> list[PlayerTotals]:
        games = sorted(text(g) for g in await self.redis.smembers(self.key("played", profile)))
        pipe = self.redis.pipeline(transaction=False)
        for game in games:
            pipe.hgetall(self.key("totals", game, profile))
        return [_totals(profile, game, raw) for game, raw in zip(games, await pipe.execute(), strict=True)]

    async def leaderboard(self, game: str, min_played: int, limit: int) -> list[PlayerTotals]:
        """Read down the board (scored by wins, then a rounded win rate) until ``limit`` profiles with
        enough games are found and the score drops below theirs; ties are then ordered exactly, by
        win rate and then profile, as the SQLite store orders them."""
        board, offset, chunk = self.key("board", game), 0, max(limit * 2, 50)
        found: list[tuple[float, PlayerTotals]] = []
        while True:
            reply = await self.redis.zrevrange(board, offset, offset + chunk - 1, withscores=True)
            rows = [(text(member), float(score)) for member, score in cast(list[tuple[bytes, float]], reply)]
            if not rows:
                break
            offset += chunk
            pipe = self.redis.pipeline(transaction=False)
            for member, _ in rows:
                pipe.hgetall(self.key("totals", game, member))
            for (member, score), raw in zip(rows, await pipe.execute(), strict=True):
                totals = _totals(member, game, raw)
                if totals.played >= min_played:
                    found.append((score, totals))
            if len(found) >= limit and rows[-1][1] < found[limit - 1][0]:
                break
        ranked = sorted((t for _, t in found), key=lambda t: (-t.won, -t.won / t.played, t.profile))
        return ranked[:limit]

    async def game(self, game_id: str) -> GameRecord | None:
        where = await self.redis.hget(self.key("gids"), game_id)
        if where is None:
            return None
        room, index = text(where).rsplit("|", 1)
        row = await self.redis.lindex(self.key("games", room), int(index))
        return None if row is None else GameRecord(**orjson.loads(row))

    # --- ownership -----------------------------------------------------------

    async def owner(self, code: str) -> str | None:
        """The node holding ``code``'s lease, if any."""
        raw = await self.redis.get(self.key("lease", code))
        return text(raw).split("|", 1)[1] if raw else None

    async def is_open(self, code: str) -> bool:
        return bool(await self.redis.sismember(self.key("open"), code))

    async def open_game(self, code: str) -> str | None:
        """The game an open room ``code`` plays (for an invite link's page), or None if none is open."""
        pipe = self.redis.pipeline(transaction=False)
        pipe.sismember(self.key("open"), code)
        pipe.hget(self.key("room", code), "config")
        is_open, config = await pipe.execute()
        if not is_open or config is None:
            return None
        game = orjson.loads(config).get("game")
        return game if isinstance(game, str) else None

    async def orphans(self, limit: int = 1000) -> list[str]:
        """Open rooms whose lease expired or was released: any node may claim them."""
        raw = await self._orphans(keys=[self.key("open")], args=[self.key("lease", ""), limit])
        return [text(c) for c in raw]

    async def claim(self, code: str) -> RoomRecord | None:
        """Take an unowned open room: a new fencing token, then its config and log as committed."""
        token = await self._claim(
            keys=[self.key("lease", code), self.key("fence", code), self.key("open")],
            args=[self.node, self.lease_ms, code],
        )
        if not token:
            return None
        self.tokens[code] = int(token)
        pipe = self.redis.pipeline(transaction=False)
        pipe.hget(self.key("room", code), "config")
        pipe.xrange(self.key("log", code))
        config, entries = await pipe.execute()
        return RoomRecord(code, orjson.loads(config), [orjson.loads(e[b"d"]) for _, e in entries])

    async def renew(self) -> list[str]:
        """Renew every lease this node holds; returns the rooms now owned by another node."""
        codes = list(self.tokens)
        if not codes:
            return []
        keys: list[str] = []
        args: list[Any] = [self.lease_ms]
        for code in codes:
            keys += [self.key("lease", code), self.key("fence", code)]
            args += [self.lease_value(code), self.tokens[code]]
        lost = await self._renew(keys=keys, args=args)
        gone = [codes[int(n) - 1] for n in lost]
        for code in gone:
            self.tokens.pop(code, None)
        return gone

    async def release(self, code: str) -> None:
        """Give the lease up (graceful shutdown): another node may claim the room at once."""
        value = self.lease_value(code)
        self.tokens.pop(code, None)
        await self._release(keys=[self.key("lease", code)], args=[value])

    # --- quick play ------------------------------------------------------------

    @contextlib.asynccontextmanager
    async def quick_opening(self, game: str) -> AsyncIterator[str | None]:
        """Held while this node decides whether to open a quick-play room of ``game``; yields the
        quick room last opened for it anywhere. One node at a time decides, so two quick players
        who ask on two nodes at once meet in one room instead of each opening one (the lobby's news
        of a room takes a moment to reach the other nodes). The hold expires by itself if its node
        dies; a hold that cannot be had within a few seconds is done without, as before it existed.
        """
        key, holder = self.key("quicklock", game), f"{self.node}/{os.urandom(6).hex()}"
        deadline = time.monotonic() + _QUICK_LOCK_SECONDS
        while not (held := bool(await self.redis.set(key, holder, nx=True, px=_QUICK_LOCK_MS))):
            if time.monotonic() > deadline:
                log.warning("event=quick_lock_timeout game=%s", game)
                break
            await asyncio.sleep(0.01)
        try:
            newest = await self.redis.get(self.key("quick", game))
            yield text(newest) if newest else None
        finally:
            if held:
                await self._release(keys=[key], args=[holder])

    async def opened_quick_room(self, game: str, code: str) -> None:
        """``code`` is now the quick room of ``game`` that the next quick player anywhere tries."""
        await self.redis.set(self.key("quick", game), code, ex=_QUICK_POINTER_SECONDS)


def _matches(record: GameRecord, query: GameQuery) -> bool:
    """The filters a sorted set did not already apply, and who may see a private game."""
    if query.game is not None and record.game != query.game:
        return False
    profiles = {seat.profile for seat in player_games(record)}
    if query.player is not None and query.player not in profiles:
        return False
    return not record.private or (query.viewer is not None and query.viewer in profiles)


def _totals(profile: str, game: str, raw: dict[Any, Any]) -> PlayerTotals:
    data = {text(k): text(v) for k, v in raw.items()}
    stats = {k[5:]: int(v) for k, v in data.items() if k.startswith("stat:") and k != "stat:_"}
    return PlayerTotals(
        profile,
        game,
        data.get("name", ""),
        data.get("bot") or None,
        int(data.get("played", 0)),
        int(data.get("won", 0)),
        stats,
    )


def _appended(
    tasks: set[asyncio.Task[None]], then: Callable[[BaseException | None], None], task: asyncio.Task[None]
) -> None:
    """An ``append_then`` task ended: the room continues with its outcome."""
    tasks.discard(task)
    then(asyncio.CancelledError() if task.cancelled() else task.exception())


def _game_dict(game: GameRecord) -> dict[str, Any]:
    return {
        "room": game.room,
        "number": game.number,
        "game": game.game,
        "settings": game.settings,
        "seed": game.seed,
        "players": game.players,
        "result": game.result,
        "started_at": game.started_at,
        "ended_at": game.ended_at,
        "log": game.log,
        "private": game.private,
    }
