"""The gate every Socket.IO packet from a client passes first, on both protocol versions (v4 through
python-socketio in ``sio_server``, v2 through ``socketio_v2``).

The allowance belongs to the Engine.IO connection, not to its namespace: connecting the namespace
again (``40``) is a packet like any other and buys no fresh allowance, and a sustained flood closes
the whole connection. Events a client may not send (the reserved ``connect``/``disconnect``, a name
that is not a string, more than one argument) are refused with the same words on both versions.
"""

from __future__ import annotations

import enum
from typing import Any

from parlour.net.connection import TokenBucket

RESERVED = frozenset({"connect", "disconnect"})
"""Event names only the server raises (python-socketio's ``reserved_events``)."""


class Verdict(enum.Enum):
    PASS = "pass"
    DROP = "drop"
    """Over the rate: the packet is ignored."""
    CLOSE = "close"
    """A sustained flood: the whole Engine.IO connection is closed."""


class Allowance:
    """One Engine.IO connection's packet rate: ``patience`` runs out for a sustained flood."""

    __slots__ = ("bucket", "patience")

    def __init__(self, rate: float, burst: int) -> None:
        self.bucket = TokenBucket(rate, burst)
        self.patience = TokenBucket(5.0, 50)

    def take(self) -> Verdict:
        if self.bucket.take():
            return Verdict.PASS
        return Verdict.DROP if self.patience.take() else Verdict.CLOSE

    def refund(self) -> None:
        """Give back a PASS that was not used: the fast lane paid, then left the packet to the
        ordinary path, which pays for it again."""
        self.bucket.tokens = min(self.bucket.capacity, self.bucket.tokens + 1)


def refusal(data: Any) -> str | None:
    """Why an event packet's data ``[name, arg?]`` may not be handled, or None if it may."""
    event = data[0] if isinstance(data, list) and data else None
    if not isinstance(event, str) or event in RESERVED:
        return "that is not an event a client may send"
    if len(data) > 2:
        return f"{event} takes one argument"
    return None
