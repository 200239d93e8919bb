"""Loop timers for one room, reconciled against the deadlines the room state holds.

The room keeps deadlines (wall-clock seconds) as plain data, which is what the log replays;
this class only makes sure one loop callback exists per live deadline. A firing timer becomes a
``timer`` command, so it is serialised, validated and logged like any other command.
"""

from __future__ import annotations

import asyncio
import time
import weakref
from collections.abc import Callable


class Timers:
    """``sync(deadlines)`` after each command; ``fire(name, deadline)`` is called when one is due.

    ``fire`` is a method of the room that holds these timers, held weakly: a closed room is then
    freed by reference counting, not left in a cycle for the cyclic collector."""

    def __init__(self, fire: Callable[[str, float], None]) -> None:
        self._fire = weakref.WeakMethod(fire)  # type: ignore[arg-type]
        self._handles: dict[str, tuple[float, asyncio.TimerHandle]] = {}
        self._loop: asyncio.AbstractEventLoop | None = None  # get_running_loop() costs a getpid()

    def sync(self, deadlines: dict[str, float]) -> None:
        handles = self._handles
        if not handles and not deadlines:  # the usual case mid-game without a turn clock
            return
        for name in list(handles):
            if deadlines.get(name) != handles[name][0]:
                handles.pop(name)[1].cancel()
        if handles.keys() == deadlines.keys():  # the usual case: nothing new to schedule
            return
        loop = self._loop
        if loop is None:
            loop = self._loop = asyncio.get_running_loop()
        now = time.time()
        for name, deadline in deadlines.items():
            if name not in handles:
                delay = max(0.0, deadline - now)
                handle = loop.call_later(delay, self._due, name, deadline)
                handles[name] = (deadline, handle)

    def _due(self, name: str, deadline: float) -> None:
        self._handles.pop(name, None)
        fire = self._fire()
        if fire is not None:
            fire(name, deadline)

    def cancel_all(self) -> None:
        for _, handle in self._handles.values():
            handle.cancel()
        self._handles.clear()
