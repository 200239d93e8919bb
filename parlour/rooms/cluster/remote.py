"""The two stand-ins that let the single-process ``Manager`` code route across nodes.

``RemoteSink`` lives on a room's owner and stands for a member whose connection is on another
node: what the room sends it is posted to that node's channel. ``RemoteRoom`` lives on the node
that holds a connection and stands for the room its session is in, owned elsewhere: commands
submitted to it are forwarded to the owner.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from parlour.rooms.commands import Command
from parlour.rooms.members import Message

if TYPE_CHECKING:
    from parlour.rooms.cluster.bus import Bus
    from parlour.rooms.cluster.manager import ClusterManager


class RemoteSink:
    """A member's connection on node ``node`` (its id there is ``cid``).

    One object per (node, cid) on the owner, so the room's "is this the member's current sink"
    checks work by identity exactly as for local connections.
    """

    json = True  # the bus encodes with orjson, so views may stay pre-encoded (rooms/encoding.py)
    retried = True
    """A request through this sink that meets another owner's fence (``Fenced``) is not answered here:
    the node that forwarded it sends it on to the room's new owner (``RoomActor._fail``)."""

    def __init__(self, bus: Bus, node: str, cid: int) -> None:
        self.bus = bus
        self.node = node
        self.cid = cid

    def send(self, message: Message) -> None:
        self.bus.post(self.node, ["m", self.cid, message])

    def send_json(self, data: bytes) -> None:
        """A message the room encoded whole (rooms/encoding.py): carried as raw bytes (bus.py)."""
        self.bus.post_frame(self.node, self.cid, data)

    def close(self, code: int = 1000, reason: str = "") -> None:
        self.bus.post(self.node, ["c", self.cid, code, reason])


class RemoteRoom:
    """The room (owned by another node) a session connected here is in."""

    def __init__(self, manager: ClusterManager, code: str) -> None:
        self.manager = manager
        self.code = code

    def submit(self, cmd: Command) -> asyncio.Future[str | None]:
        future: asyncio.Future[str | None] = asyncio.get_running_loop().create_future()
        self.manager.forward(self.code, cmd, future)
        return future

    def submit_nowait(self, cmd: Command) -> None:
        self.manager.forward(self.code, cmd, None)
