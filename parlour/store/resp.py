"""A plain Redis connection for a cluster node's hot path: hiredis writes its commands and parses its replies.

redis-py's asyncio client spends ~60-65 µs of user CPU per round trip (connection pool, retry
wrapper, locks, encoders); this connection ~11-15 µs (``bench/redis_roundtrip.py``, docs/benchmarks.md,
"Cluster"). A node makes one to three round trips per action (log append,
publishes, the pub/sub read), so the hot path uses this instead: the log appends and publishes
(``pipeline.Pipeliner``) and the node's subscription (``rooms/cluster/bus.py``). Everything else
(leases, claims, sessions, the lobby) stays on redis-py. hiredis is Redis's own C client library.
"""

from __future__ import annotations

import asyncio
from typing import Any

import hiredis
from redis.connection import parse_url
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import NoScriptError, ResponseError

CONNECT_TIMEOUT = 2.0


def _error(reply: hiredis.ReplyError) -> ResponseError:
    message = str(reply)
    return NoScriptError(message) if message.startswith("NOSCRIPT") else ResponseError(message)


class RespConnection:
    """One connection to the Redis at ``url`` (``redis://`` or ``unix://``, with its password and db),
    opened on first use and again after a failure. An error reply is returned as its exception
    (redis-py's classes); a broken connection raises redis-py's ``ConnectionError``."""

    def __init__(self, url: str) -> None:
        self.options: dict[str, Any] = parse_url(url)  # type: ignore[no-untyped-call]
        self._reader: asyncio.StreamReader | None = None
        self._writer: asyncio.StreamWriter | None = None
        self._parser = hiredis.Reader()

    async def open(self) -> None:
        options = self.options
        try:
            if "path" in options:
                opening = asyncio.open_unix_connection(options["path"])
            else:
                opening = asyncio.open_connection(options.get("host", "localhost"), options.get("port", 6379))
            self._reader, self._writer = await asyncio.wait_for(opening, CONNECT_TIMEOUT)
        except (OSError, TimeoutError) as exc:
            raise RedisConnectionError(f"cannot connect to Redis: {exc}") from exc
        self._parser = hiredis.Reader()
        hello: list[tuple[Any, ...]] = []
        if options.get("password"):
            user = options.get("username")
            hello.append(("AUTH", user, options["password"]) if user else ("AUTH", options["password"]))
        if options.get("db"):
            hello.append(("SELECT", options["db"]))
        for reply in await self.run(hello) if hello else []:
            if isinstance(reply, Exception):
                self.close()
                raise reply

    async def run(self, commands: list[tuple[Any, ...]], replies: int | None = None) -> list[Any]:
        """Send ``commands`` in one write and return their replies, in order: ``replies`` of them
        when some commands have none (after ``CLIENT REPLY SKIP``)."""
        if self._writer is None or self._stale():
            # Redis closed it while it sat idle (a restart): nothing was sent on it, so open another
            # rather than fail the batch (a failed batch's publishes are dropped, store/pipeline.py).
            self.close()
            await self.open()
        self.send(commands)
        return [await self.read() for _ in range(len(commands) if replies is None else replies)]

    def send(self, commands: list[tuple[Any, ...]]) -> None:
        if self._writer is None or self._reader is None:
            raise RedisConnectionError("not connected to Redis")
        if self._stale():  # found out without a read to wait on
            self.close()
            raise RedisConnectionError("connection to Redis lost")
        # hiredis writes RESP arrays in C: a third of the cost of building them in Python.
        self._writer.write(b"".join(map(hiredis.pack_command, commands)))

    def _stale(self) -> bool:
        """Redis closed the connection (or it broke) and nothing of it is left to read."""
        return self._writer is not None and (
            self._writer.is_closing() or (self._reader is not None and self._reader.at_eof())
        )

    async def read(self) -> Any:
        """The next reply (or pushed message) from Redis."""
        while True:
            try:
                reply = self._parser.gets()
            except hiredis.ProtocolError as exc:
                self.close()
                raise RedisConnectionError(f"bad reply from Redis: {exc}") from exc
            if reply is not False:
                return _error(reply) if isinstance(reply, hiredis.ReplyError) else reply
            if self._reader is None:
                raise RedisConnectionError("not connected to Redis")
            try:
                data = await self._reader.read(1 << 16)
            except OSError as exc:
                self.close()
                raise RedisConnectionError(f"connection to Redis lost: {exc}") from exc
            if not data:
                self.close()
                raise RedisConnectionError("connection closed by Redis")
            self._parser.feed(data)

    def close(self) -> None:
        writer, self._writer, self._reader = self._writer, None, None
        if writer is not None:
            writer.close()
