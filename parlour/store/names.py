"""Names the seed-protocol adapters must read alike on every node.

The Dots protocol names rooms (a name → the room's code) and gives its admin a token (its hash →
the room and the admin's session); the socket-uno tutorial re-seats a dropped client by its browser
(a hash of cookie and name → the room and the nonce its session token is derived from). One
process keeps them in a dict (``LocalNames``); a cluster keeps them in Redis (``RedisNames``), so a
client on any node finds what a client on another node created.

Values that name a room start with its code (``"<code>"`` or ``"<code>|<more>"``): a name whose
room has closed counts as free, so a name held by a node that died is not lost for good.
"""

from __future__ import annotations

import sys
import time
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from parlour.store.redis import RedisStore

PENDING = "|pending"
"""The value of a name being bound (its room is still being made): taken, but for a room nobody
can join yet."""
PENDING_SECONDS = 30.0
SWEEP_FROM = 1024
"""``LocalNames`` drops expired values once it holds this many (then twice what is left)."""


class Names(Protocol):
    async def reserve(self, kind: str, key: str) -> bool:
        """Take ``key`` (as ``PENDING``) if it is free or names a room that has closed."""

    async def put(self, kind: str, key: str, value: str, ttl: float | None = None) -> None:
        """Bind ``key`` to ``value`` (for ``ttl`` seconds when given)."""

    async def get(self, kind: str, key: str) -> str | None:
        """What ``key`` is bound to, if anything."""

    async def drop(self, kind: str, key: str, value: str) -> None:
        """Unbind ``key`` if it is still bound to ``value`` (not a newer owner's binding)."""


class LocalNames:
    """``Names`` of one process. Its adapters release what they bind, so nothing goes stale."""

    def __init__(self) -> None:
        self._values: dict[tuple[str, str], tuple[str, float]] = {}
        self._sweep_at = SWEEP_FROM

    async def reserve(self, kind: str, key: str) -> bool:
        if await self.get(kind, key) is not None:
            return False
        self._values[kind, key] = (PENDING, time.monotonic() + PENDING_SECONDS)
        return True

    async def put(self, kind: str, key: str, value: str, ttl: float | None = None) -> None:
        now = time.monotonic()
        self._values[kind, key] = (value, now + ttl if ttl is not None else float("inf"))
        if len(self._values) >= self._sweep_at:  # expired values nobody reads again: amortised O(1)
            self._values = {k: v for k, v in self._values.items() if v[1] >= now}
            self._sweep_at = max(SWEEP_FROM, 2 * len(self._values))

    async def get(self, kind: str, key: str) -> str | None:
        found = self._values.get((kind, key))
        if found is None:
            return None
        if found[1] < time.monotonic():
            del self._values[kind, key]
            return None
        return found[0]

    async def drop(self, kind: str, key: str, value: str) -> None:
        found = self._values.get((kind, key))
        if found is not None and found[0] == value:
            del self._values[kind, key]


# KEYS: name, open   ARGV: pending value, pending ms
# Free: unbound, or bound to a room no longer open (a pending binding has its own TTL).
_RESERVE = """
local v = redis.call('GET', KEYS[1])
if v then
  local code = string.match(v, '^[^|]*')
  if code == '' or redis.call('SISMEMBER', KEYS[2], code) == 1 then return 0 end
end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 1
"""

# KEYS: name   ARGV: value
_DROP = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""


class RedisNames:
    """``Names`` of a cluster: ``<prefix>name:<kind>:<key>`` strings in the cluster's Redis."""

    def __init__(self, store: RedisStore) -> None:
        self.store = store
        self._reserve = store.redis.register_script(_RESERVE)
        self._drop = store.redis.register_script(_DROP)

    def _key(self, kind: str, key: str) -> str:
        return self.store.key("name", kind, key)

    async def reserve(self, kind: str, key: str) -> bool:
        keys = [self._key(kind, key), self.store.key("open")]
        return bool(await self._reserve(keys=keys, args=[PENDING, int(PENDING_SECONDS * 1000)]))

    async def put(self, kind: str, key: str, value: str, ttl: float | None = None) -> None:
        await self.store.redis.set(self._key(kind, key), value, px=int(ttl * 1000) if ttl else None)

    async def get(self, kind: str, key: str) -> str | None:
        raw = await self.store.redis.get(self._key(kind, key))
        return raw.decode() if isinstance(raw, bytes) else raw

    async def drop(self, kind: str, key: str, value: str) -> None:
        await self._drop(keys=[self._key(kind, key)], args=[value])


def names_for(store: object) -> Names:
    """Shared names for a cluster's ``RedisStore``, else this process's own (Redis not imported)."""
    module = sys.modules.get("parlour.store.redis")  # never imported: no RedisStore exists
    if module is not None and isinstance(store, module.RedisStore):
        return RedisNames(store)
    return LocalNames()
