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
import logging
import os
import socket
import time
from collections.abc import Callable
from typing import Any

import orjson
from redis import asyncio as aioredis
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import NoScriptError
from redis.exceptions import TimeoutError as RedisTimeoutError

from parlour.dumps import json_bytes
from parlour.store.base import GameRecord, RoomRecord, SessionRecord
from parlour.store.pipeline import Pipeliner

log = logging.getLogger("parlour.store")

_CHECKPOINT = b'{"k":"checkpoint"'

# All the appends of one loop tick, in one call.
# KEYS: sroom, applied, then for each append: lease, log, games
# ARGV: for each append: lease value, record, is_checkpoint, game or "", membership, code, append id
# Returns 1 (appended) or 0 (fenced: the lease is another node's) per append. The append id makes
# a retried call (its reply lost with the connection) apply each append once.
_APPEND = """
local out = {}
for n = 1, (#KEYS - 2) / 3 do
  local k, a = n * 3, (n - 1) * 7
  local code, aid = ARGV[a + 6], ARGV[a + 7]
  if redis.call('HGET', KEYS[2], code) == aid then
    out[n] = 1
  elseif redis.call('GET', KEYS[k]) ~= ARGV[a + 1] then
    out[n] = 0
  else
    redis.call('HSET', KEYS[2], code, aid)
    local id = redis.call('XADD', KEYS[k + 1], '*', 'd', ARGV[a + 2])
    if ARGV[a + 3] == '1' then redis.call('XTRIM', KEYS[k + 1], 'MINID', id) end
    if ARGV[a + 4] ~= '' then redis.call('RPUSH', KEYS[k + 2], ARGV[a + 4]) end
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
    out[n] = 1
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


class Fenced(Exception):
    """This node no longer holds the room's lease: the write was refused."""

    def __init__(self, code: str) -> None:
        super().__init__(f"room {code} is owned by another node")
        self.code = code


_Pending = tuple[str, bytes, GameRecord | None, "asyncio.Future[None]"]


class RedisStore:
    """The ``Store`` of cluster mode, plus the leases of the rooms this node owns."""

    def __init__(self, url: str, node: str, lease_seconds: float = 3.0, prefix: str = "pl:") -> None:
        self.url = url
        self.node = node
        self.lease_ms = int(lease_seconds * 1000)
        self.prefix = prefix
        self.redis: aioredis.Redis = aioredis.Redis.from_url(url, socket_connect_timeout=2.0)
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
        data = json_bytes({"id": session.id, "name": session.name, "created_at": session.created_at})
        await self.redis.set(self.key("session", session.token_hash), data)

    async def find_session(self, token_hash: str) -> SessionRecord | None:
        raw = await self.redis.get(self.key("session", token_hash))
        if raw is None:
            return None
        data = orjson.loads(raw)
        return SessionRecord(data["id"], data["name"], token_hash, data["created_at"])

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

    def _flush(self) -> None:
        """This tick's appends, as one call of the append script."""
        self._flush_scheduled = False
        batch, self._pending = self._pending, []
        if not batch:
            return
        keys = [self.key("sroom"), self.key("applied")]
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
            else:
                done.set_exception(Fenced(code))
                self._lost(code)

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

    # --- ownership -----------------------------------------------------------

    async def owner(self, code: str) -> str | None:
        """The node holding ``code``'s lease, if any."""
        raw = await self.redis.get(self.key("lease", code))
        return text(raw).split("|", 1)[1] if raw else None

    async def is_open(self, code: str) -> bool:
        return bool(await self.redis.sismember(self.key("open"), code))

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
    }
