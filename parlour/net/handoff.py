"""``--workers``: a websocket that names its room goes to the worker that owns the room.

The kernel spreads the workers' connections at random (``SO_REUSEPORT``), so in a room of four nearly
every action crossed to the other worker through Redis and back: a publish each way, a wake-up and a
read on both sides. A client that knows its room when it connects says so, ``/api/ws?room=CODE`` (the
web client does on an invite link ``/r/CODE`` and when it reconnects). The worker that accepted the
connection looks up the room's owner; when that is a sibling worker on this machine, it passes the
socket itself (``SCM_RIGHTS`` over a Unix datagram socket in a directory only this server's user may
enter) together with the upgrade request it read and any frames the client wrote with it, and forgets
it. The owner carries on as if it had accepted the connection: the handshake, the client's address and
every limit are its own. Nothing
changes for the client, which still needs only one URL; a hint that names no room, a room owned on
another machine, or a sibling that cannot take the socket leaves the connection where it is, as any
connection without a hint: routing through Redis works for all of them.
"""

from __future__ import annotations

import array
import asyncio
import contextlib
import logging
import os
import socket
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

from parlour.net.websocket_protocol import HAND_OVER

log = logging.getLogger("parlour.handoff")

HANDED = b"x-parlour-handed-over"
"""Header added to a request handed to another worker: it is never handed on again."""
_MAX_REQUEST = 64 * 1024

ProtocolFactory = Callable[[], asyncio.Protocol]


class Handoff:
    """This worker's end: it receives sockets at ``<directory>/<node>.sock`` and sends them to siblings'."""

    def __init__(self, directory: str, node: str, protocols: Callable[[], ProtocolFactory | None]) -> None:
        self.directory = Path(directory)
        self.node = node
        self._protocols = protocols
        self._inbox: socket.socket | None = None
        self._outbox = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self._outbox.setblocking(False)

    def path(self, node: str) -> Path:
        return self.directory / f"{node}.sock"

    def start(self) -> None:
        path = self.path(self.node)
        with contextlib.suppress(FileNotFoundError):
            path.unlink()
        inbox = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        inbox.bind(str(path))
        inbox.setblocking(False)
        self._inbox = inbox
        asyncio.get_running_loop().add_reader(inbox.fileno(), self._receive)

    def close(self) -> None:
        inbox, self._inbox = self._inbox, None
        if inbox is not None:
            asyncio.get_running_loop().remove_reader(inbox.fileno())
            inbox.close()
            with contextlib.suppress(FileNotFoundError):
                self.path(self.node).unlink()
        self._outbox.close()

    # --- sending -------------------------------------------------------------------------------

    async def route(self, scope: Mapping[str, Any], owner_of: Callable[[str], Awaitable[str | None]]) -> bool:
        """Hand this websocket to the sibling that owns the room it names; True if it went."""
        hand_over = scope.get("extensions", {}).get(HAND_OVER)
        code = _hint(scope)
        if hand_over is None or code is None or any(name == HANDED for name, _ in scope["headers"]):
            return False
        owner = await owner_of(code)
        if owner is None or owner == self.node or not self.path(owner).exists():
            return False  # no such room, ours already, or owned by a node on another machine
        request = _request(scope)

        def send(fd: int, early: bytes) -> bool:
            # The frames the client wrote with its request were read here already: they travel after
            # the request, so the owner reads them as this worker would have.
            if len(request) + len(early) > _MAX_REQUEST:
                return False
            try:
                # (``socket.send_fds`` ignores its address argument on Python 3.11: sendmsg itself.)
                rights = [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", [fd]))]
                self._outbox.sendmsg([request, early], rights, 0, str(self.path(owner)))
            except OSError as exc:  # gone, or its queue is full: serve the connection here
                log.info("event=handoff_refused to=%s error=%r", owner, exc)
                return False
            return True

        return bool(hand_over(send))

    # --- receiving -----------------------------------------------------------------------------

    def _receive(self) -> None:
        inbox = self._inbox
        while inbox is not None:
            try:
                request, fds, flags, _ = socket.recv_fds(inbox, _MAX_REQUEST, 4)
            except BlockingIOError:
                return
            except OSError:
                log.exception("event=handoff_receive_failed")
                return
            keep = fds[0] if fds and not flags & (socket.MSG_TRUNC | socket.MSG_CTRUNC) else None
            for fd in fds:  # a sibling sends one socket with its whole request; close anything else
                if fd != keep:
                    os.close(fd)
            if keep is not None:
                self._adopt(socket.socket(fileno=keep), request)

    def _adopt(self, sock: socket.socket, request: bytes) -> None:
        factory = self._protocols()
        if factory is None or sock.family not in (socket.AF_INET, socket.AF_INET6):
            sock.close()
            return
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # as for an accepted connection
        loop = asyncio.get_running_loop()

        async def adopt() -> None:
            try:
                _, protocol = await loop.connect_accepted_socket(factory, sock)
            except OSError:
                sock.close()
                return
            # The upgrade request, as read, and any frames the client sent with it.
            protocol.data_received(request)  # type: ignore[attr-defined]

        task = loop.create_task(adopt())
        task.add_done_callback(_log_failure)


def _log_failure(task: asyncio.Task[None]) -> None:
    if not task.cancelled() and task.exception() is not None:
        log.error("event=handoff_adopt_failed", exc_info=task.exception())


def _hint(scope: Mapping[str, Any]) -> str | None:
    values = parse_qs(scope.get("query_string", b"").decode("latin-1")).get("room")
    code = values[0].strip().upper() if values else ""
    return code if code.isalnum() and 0 < len(code) <= 16 else None


def _request(scope: Mapping[str, Any]) -> bytes:
    """The upgrade request as the client sent it (as uvicorn rebuilds it for its websocket protocol),
    marked as handed over."""
    target = scope["raw_path"] + (b"?" + scope["query_string"] if scope.get("query_string") else b"")
    lines = [b"GET ", target, b" HTTP/1.1\r\n"]
    for name, value in scope["headers"]:
        lines += [name, b": ", value, b"\r\n"]
    lines += [HANDED, b": 1\r\n\r\n"]
    return b"".join(lines)
