"""Limits per client address, shared by every endpoint (native, ``/dots``, ``/ws``, Socket.IO).

A per-connection rate limit stops one socket; these stop one host that opens many: open
connections, new sessions and room-code misses are counted per address (an IPv6 address by its
/64, which is what one subscriber usually gets). See docs/reliability.md for the figures.
"""

from __future__ import annotations

import functools
import ipaddress
import logging
import time
from collections import Counter
from typing import Any

from parlour.config import Config
from parlour.net.connection import TokenBucket

log = logging.getLogger("parlour.net")


def _available(bucket: TokenBucket) -> float:
    """The bucket's tokens now, without taking one."""
    return min(bucket.capacity, bucket.tokens + (time.monotonic() - bucket.stamp) * bucket.rate)


def client_key(scope: Any) -> str:
    """The address a limit is kept for: the peer's IP (an IPv6 address by its /64)."""
    client = scope.get("client") if isinstance(scope, dict) else None
    return _address_key(str(client[0]) if client else "unknown")


@functools.lru_cache(maxsize=4096)
def _address_key(host: str) -> str:
    """Parsing an address was a few per cent of a connection's set-up, and peers come back."""
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return str(host)
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        return str(ipaddress.IPv6Network((address, 64), strict=False))
    return str(address)


class _Buckets:
    """One token bucket per address, created full, forgotten once full again (bounded memory)."""

    def __init__(self, per_minute: int) -> None:
        self.per_minute = per_minute
        self.buckets: dict[str, TokenBucket] = {}

    def take(self, key: str) -> bool:
        bucket = self.buckets.get(key)
        if bucket is None:
            if len(self.buckets) > 10_000:
                self.buckets = {k: b for k, b in self.buckets.items() if _available(b) < b.capacity}
            bucket = self.buckets[key] = TokenBucket(self.per_minute / 60.0, max(1, self.per_minute))
        return bucket.take()


class AddressLimits:
    """What one address may hold open and how fast it may open new things."""

    def __init__(self, config: Config) -> None:
        self.config = config
        self.connections: Counter[str] = Counter()
        self.sessions = _Buckets(config.sessions_per_ip_per_minute)
        self.misses = _Buckets(config.code_misses_per_ip_per_minute)
        self.refused: Counter[str] = Counter()
        """Refusals by limit, for ``/metrics``."""

    def connect(self, key: str) -> bool:
        """Count a new connection from ``key``; False (nothing counted) when it has too many open."""
        if self.connections[key] >= self.config.connections_per_ip:
            self._refuse("connections", key)
            return False
        self.connections[key] += 1
        return True

    def disconnect(self, key: str) -> None:
        self.connections[key] -= 1
        if self.connections[key] <= 0:
            del self.connections[key]

    def new_session(self, key: str) -> bool:
        """May ``key`` start another session (identify) now?"""
        if self.sessions.take(key):
            return True
        self._refuse("sessions", key)
        return False

    def code_miss(self, key: str) -> bool:
        """``key`` asked for a room code that does not exist; False once it guesses too often."""
        if self.misses.take(key):
            return True
        self._refuse("code_misses", key)
        return False

    def guessing(self, key: str) -> bool:
        """True while ``key`` has no code misses left (its lookups are refused unseen)."""
        bucket = self.misses.buckets.get(key)
        return bucket is not None and _available(bucket) < 1

    def _refuse(self, limit: str, key: str) -> None:
        self.refused[limit] += 1
        log.warning("event=limit_refused limit=%s client=%s", limit, key)
