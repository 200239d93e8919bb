"""Commands: the only way anything changes a room, whatever protocol or timer it came from."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from parlour.rooms.members import Sink


class CommandError(Exception):
    """A refused command. ``code`` is stable and documented in docs/protocol.md."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass(slots=True)
class Command:
    """One request for a room.

    ``session`` identifies the actor (None for timers and the system); ``sink`` receives the reply
    (an ``error`` or the success message, carrying ``request_id``). ``payload`` is JSON data and is
    what gets logged, so handlers that draw randomness or hash secrets write the result back into
    it before the command is logged. A ``quiet`` command's sink gets its ``error`` but no bare ``ok``:
    an in-process adapter that would only discard it (the native protocol answers every id).
    ``fid`` names a move another node of a cluster forwarded without waiting for an answer: it may
    come again, after its room moved, and applies once (``RoomState.forwarded``).
    """

    kind: str
    session: str | None = None
    payload: dict[str, Any] = field(default_factory=dict)
    sink: Sink | None = None
    request_id: Any = None
    at: float = field(default_factory=time.time)
    quiet: bool = False
    fid: str | None = None

    def record(self) -> dict[str, Any]:
        """The log form: everything replay needs, nothing that identifies a connection."""
        if self.fid is not None:
            return {"k": self.kind, "s": self.session, "p": self.payload, "t": self.at, "f": self.fid}
        return {"k": self.kind, "s": self.session, "p": self.payload, "t": self.at}

    @classmethod
    def from_record(cls, record: dict[str, Any]) -> Command:
        return cls(record["k"], record["s"], record["p"], None, None, record["t"], fid=record.get("f"))
