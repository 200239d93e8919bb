"""The websocket transport of python-engineio's (Engine.IO v4) sessions, run without a task per packet.

python-engineio reads each websocket packet through a fresh task under ``asyncio.wait_for`` (for the
idle timeout) and wakes its writer task through another ``wait_for`` per batch: on the Socket.IO
UNO protocols that was a sixth of the server's busy time. This is the same transport with one
reader loop (the ASGI task itself) and one writer task per connection, which writes what it finds
queued at a wake-up in one system call (``parlour.send_texts``), and the idle timeout kept by a
timer that is re-armed only when it fires. The protocol is python-engineio's, unchanged: the
upgrade from polling (``2probe`` → ``3probe``, a noop ending the pending poll, then ``5``), every
packet handed to the session's own ``receive`` (pongs, messages, close), the session's queue
written in order, and the session closed when the socket ends. Installed by ``install`` on one
``engineio.AsyncServer`` (its ``websocket`` driver entry), nothing global.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
from collections.abc import Awaitable, Callable
from typing import Any

from engineio import exceptions
from engineio import packet as eio_packet

from parlour.net.websocket_protocol import SEND_TEXTS, TEXT_LANE, TextLane

TakeNow = Callable[[str, str], bool]
"""``take_now(eio_sid, data)``: handle a Socket.IO event packet (``data`` = ``2[...]``) at once and
return True, or return False having done nothing (the packet then takes the ordinary path)."""


def install(server: Any, take_now: TakeNow | None = None) -> None:
    """Serve ``server``'s websocket connections and upgrades with ``WebSocketTransport``; with
    ``take_now``, event packets arriving while the connection is idle are offered to it first, in
    ``data_received`` (``parlour.text_lane``), before the ASGI queue, the reader and the session."""
    driver = functools.partial(WebSocketTransport, take_now=take_now)
    server._async = {**server._async, "websocket": driver}


class WebSocketTransport:
    """Stands where python-engineio's ASGI ``WebSocket`` driver class stands: made with the
    session's websocket handler (we keep only its session) and called with the request's environ."""

    def __init__(self, handler: Any, server: Any, take_now: TakeNow | None = None) -> None:
        self.socket = handler.__self__
        self.server = server
        self.take_now = take_now

    async def __call__(self, environ: dict[str, Any]) -> str:
        receive, send = environ["asgi.receive"], environ["asgi.send"]
        await send({"type": "websocket.accept"})
        await self._run(environ, receive, send)
        return ""

    async def _run(self, environ: dict[str, Any], receive: Any, send: Any) -> None:
        socket, server = self.socket, self.server
        limit = server.max_http_buffer_size

        async def read() -> Any:
            """The next packet's text (or bytes); None when the socket ended or sent too much."""
            event = await receive()
            if event["type"] != "websocket.receive":
                return None
            data = event.get("text")
            if data is None:
                data = event.get("bytes")
            return None if data is None or len(data) > limit else data

        if socket.connected:  # an upgrade: the session runs on polling until the probe succeeds
            socket.upgrading = True
            if await read() != "2probe":
                socket.upgrading = False
                return
            await send({"type": "websocket.send", "text": "3probe"})
            await socket.queue.put(eio_packet.Packet(eio_packet.NOOP))  # ends the pending poll
            if await read() != "5":
                socket.upgraded = socket.upgrading = False
                return
            socket.upgraded, socket.upgrading = True, False
        else:
            socket.connected = socket.upgraded = True
        extensions = environ["asgi.scope"].get("extensions") or {}
        lane = extensions.get(TEXT_LANE) if self.take_now is not None else None
        writer = asyncio.ensure_future(self._write(send, extensions.get(SEND_TEXTS)))
        try:
            await self._read(read, lane)
        finally:
            await socket.queue.put(None)  # the writer's end
            await writer
            await socket.close(wait=False, abort=True, reason=server.reason.TRANSPORT_CLOSE)

    async def _read(self, read: Any, lane: TextLane | None) -> None:
        """Hand every packet to the session, in order, until the socket ends or stays silent for
        ``ping_interval + ping_timeout`` (python-engineio's idle limit); ``lane`` offers event
        packets to ``take_now`` first while no earlier packet is being handled."""
        socket, server = self.socket, self.server
        idle = _IdleTimer(server.ping_interval + server.ping_timeout)
        if lane is not None and self.take_now is not None:
            take_now, sid, limit = self.take_now, socket.sid, server.max_http_buffer_size

            def offer(text: str) -> bool:
                if text.startswith("42[") and len(text) <= limit and take_now(sid, text[1:]):
                    idle.last = idle.loop.time()
                    return True
                return False

            lane.handler = offer
        try:
            while True:
                idle.waiting()
                try:
                    data = await read()
                except asyncio.CancelledError:
                    if not idle.fired:
                        raise
                    idle.task.uncancel()
                    return
                except Exception:
                    return
                idle.heard()
                if data is None:
                    return
                if lane is not None:
                    lane.busy = True  # packets arriving meanwhile wait their turn in the queue
                try:
                    await socket.receive(eio_packet.Packet(encoded_packet=data))
                except exceptions.UnknownPacketError:
                    pass
                except exceptions.SocketIsClosedError:
                    return
                except Exception:
                    server.logger.exception("Unknown receive error")
                finally:
                    if lane is not None:
                        lane.busy = False
        finally:
            idle.cancel()
            if lane is not None:
                lane.handler = None

    async def _write(self, send: Any, send_texts: Any) -> None:
        """Write the session's queue in order until its end (None) or a failed write: what one wake-up
        finds queued (e.g. the events one move sends this client) in one write through
        ``parlour.send_texts`` when the socket takes it, else frame by frame through ASGI."""
        queue = self.socket.queue
        try:
            while True:
                packets = [await queue.get()]
                queue.task_done()
                while not queue.empty():
                    packets.append(queue.get_nowait())
                    queue.task_done()
                texts: list[bytes] = []
                for pkt in packets:
                    encoded = None if pkt is None else pkt.encode()
                    if isinstance(encoded, str):
                        texts.append(encoded.encode())
                        continue
                    await _send_texts(send, send_texts, texts)
                    texts = []
                    if encoded is None:
                        return
                    await send({"type": "websocket.send", "bytes": encoded})
                await _send_texts(send, send_texts, texts)
        except Exception:
            return
        finally:
            with contextlib.suppress(Exception):
                await send({"type": "websocket.close"})


async def _send_texts(send: Any, send_texts: Any, texts: list[bytes]) -> None:
    if texts and (send_texts is None or not send_texts(texts)):
        for text in texts:
            await send({"type": "websocket.send", "text": text.decode()})


class Cuttable:
    """``receive`` as python-engineio's ASGI layer is given it. That layer keeps ``receive`` in a class
    it defines for every request (``translate_request``'s ``AwaitablePayload``): a reference cycle,
    which only the cyclic collector frees, and which held the connection's protocol and everything
    it refers to until then. ``cut()`` once the request is over leaves the class holding only this."""

    __slots__ = ("receive",)

    def __init__(self, receive: Callable[[], Awaitable[Any]]) -> None:
        self.receive: Callable[[], Awaitable[Any]] | None = receive

    def __call__(self) -> Awaitable[Any]:
        receive = self.receive
        if receive is None:
            raise RuntimeError("the request is over")
        return receive()

    def cut(self) -> None:
        self.receive = None


class _IdleTimer:
    """Cancels the reading task once it has waited ``limit`` seconds for a packet: one timer per
    connection, re-armed only when it fires (not once per packet)."""

    def __init__(self, limit: float) -> None:
        self.limit = limit
        self.loop = asyncio.get_running_loop()
        task = asyncio.current_task()
        assert task is not None
        self.task = task
        self.last = 0.0
        self.reading = False
        self.fired = False
        self.timer = self.loop.call_later(limit, self._check)

    def waiting(self) -> None:
        """The reader starts waiting: the limit counts from now (as ``wait_for`` on each read would)."""
        self.reading = True
        self.last = self.loop.time()

    def heard(self) -> None:
        self.reading = False

    def _check(self) -> None:
        silent = self.loop.time() - self.last
        if self.reading and silent >= self.limit:
            self.fired = True
            self.task.cancel()
        else:
            self.timer = self.loop.call_later(max(self.limit - silent, 0.1), self._check)

    def cancel(self) -> None:
        self.timer.cancel()
