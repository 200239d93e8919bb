"""One Redis pipeline at a time for a node's hot path: the room logs' appends and the bus's publishes.

Over one plain connection (store/resp.py), every command queued while the loop runs goes out in
the next pipeline, one write and one read for all of them; while a pipeline is in flight, what is
queued waits and rides in the next one (so under load the batches grow instead of the round trips).
One pipeline at a time also keeps every command in the order it was queued: a room's messages are
published after its append, in posting order.

A connection error fails the whole batch (each caller decides: an append is retried, a publish is
dropped); an error reply fails only its own command.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from parlour.store.resp import RespConnection

log = logging.getLogger("parlour.store")

_Call = tuple[tuple[Any, ...], "asyncio.Future[Any] | None"]
_SKIP = ("CLIENT", "REPLY", "SKIP")


class Pipeliner:
    """Commands of one node, sent in order, in as few round trips as the load allows."""

    def __init__(self, url: str) -> None:
        self.connection = RespConnection(url)
        self._queue: list[_Call] = []
        self._task: asyncio.Task[None] | None = None

    def call(self, *args: Any) -> asyncio.Future[Any]:
        """Queue one command; the future gets its reply (or its error)."""
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._queue.append((args, future))
        self._start()
        return future

    def send(self, *args: Any) -> None:
        """Queue one command whose reply nobody waits for (``CLIENT REPLY SKIP``: Redis sends none,
        so a batch of these costs no read at all); only a broken connection is logged."""
        self._queue.append((args, None))
        self._start()

    def _start(self) -> None:
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._run())

    async def _run(self) -> None:
        try:
            await asyncio.sleep(0)  # let the rest of this loop iteration queue its commands too
            while self._queue:
                batch, self._queue = self._queue, []
                await self._execute(batch)
        finally:
            self._task = None
            if self._queue:  # queued after the loop above ended: start again
                self._start()

    async def _execute(self, batch: list[_Call]) -> None:
        commands: list[tuple[Any, ...]] = []
        for args, future in batch:
            if future is None:  # nobody reads the reply: Redis sends none (and we wait for none)
                commands.append(_SKIP)
            commands.append(args)
        waited = [(args, future) for args, future in batch if future is not None]
        try:
            results = await self.connection.run(commands, len(waited))
        except Exception as exc:
            self.connection.close()
            unwaited = 0
            for _, future in batch:
                if future is None:
                    unwaited += 1
                elif not future.done():
                    future.set_exception(exc)
            if unwaited:
                log.warning("event=redis_batch_failed dropped=%d error=%r", unwaited, exc)
            return
        for (_, future), result in zip(waited, results, strict=True):
            if future is not None and not future.done():
                if isinstance(result, Exception):
                    future.set_exception(result)
                else:
                    future.set_result(result)

    async def idle(self) -> None:
        """Wait until everything queued has been sent (at most ~1 s)."""
        for _ in range(100):
            if self._task is None:
                return
            await asyncio.sleep(0.01)
