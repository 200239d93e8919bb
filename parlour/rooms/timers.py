"""Loop timers for one room, reconciled against the deadlines the room state holds.

The room keeps deadlines (wall-clock seconds) as plain data, which is what the log replays;
this class only makes sure one loop callback exists per live deadline. A firing timer becomes a
``timer`` command, so it is serialised, validated and logged like any other command.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable


class Timers:
    """``sync(deadlines)`` after each command; ``fire(name, deadline)`` is called when one is due."""

    def __init__(self, fire: Callable[[str, float], None]) -> None:
        self._fire = fire
        self._handles: dict[str, tuple[float, asyncio.TimerHandle]] = {}

    def sync(self, deadlines: dict[str, float]) -> None:
        loop = asyncio.get_running_loop()
        for name in list(self._handles):
            if deadlines.get(name) != self._handles[name][0]:
                self._handles.pop(name)[1].cancel()
        now = time.time()
        for name, deadline in deadlines.items():
            if name not in self._handles:
                delay = max(0.0, deadline - now)
                handle = loop.call_later(delay, self._due, name, deadline)
                self._handles[name] = (deadline, handle)

    def _due(self, name: str, deadline: float) -> None:
        self._handles.pop(name, None)
        self._fire(name, deadline)

    def cancel_all(self) -> None:
        for _, handle in self._handles.values():
            handle.cancel()
        self._handles.clear()
