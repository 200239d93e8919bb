"""uvicorn's websocket protocol with a fast lane for the frames a game sends most.

Measured under load (docs/benchmarks.md, "Server load"), most of the server's time per game action
went to moving frames through layers: the ASGI ``send`` coroutine, Starlette's wrappers, uvicorn's
checks, ``websockets``' frame objects, and, inbound, a pause and resume of reading for every frame.
This subclass keeps uvicorn and ``websockets`` for everything that is not a plain data frame (the
handshake, pings, closing, fragmented or compressed messages) and adds:

* the ASGI extension ``parlour.send_text``: a plain function that writes one complete, unmasked
  text frame (RFC 6455 §5.2) straight to the transport and returns True, or returns False when the
  frame must take the ordinary ASGI path (socket closing or closed, write buffer full, or an
  extension such as permessage-deflate negotiated);
* the ASGI extension ``parlour.send_texts``: the same for several frames in one write (one system
  call for what one event produces for one client, e.g. a Dots MOVE and the TURN after it);
* the ASGI extension ``parlour.send_frames``: bytes that are already whole text frames (``text_frames``),
  written as they are: what a room broadcasts alike to many sockets is framed once, not per socket;
* the ASGI extension ``parlour.text_lane``: a ``TextLane`` the app may give a ``handler``; a text
  message arriving while the app is idle (nothing queued for it, ``busy`` false) goes to the handler
  at once, and only if it returns False (it is not one the handler takes) down the ASGI queue, so the
  frames a game sends most skip the queue, the task wake-up and the ``receive`` layers;
* reading paused only once ``INBOUND_BACKLOG`` messages wait for the app, instead of after each;
* the ASGI extension ``parlour.abort``: drops the TCP connection at once, unsent data and all, for a
  peer that stopped reading (a websocket close would wait behind the data it never reads);
* the ASGI extension ``parlour.hand_over`` (net/handoff.py): before the handshake, gives the socket to
  another worker of this machine and forgets the connection here.
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from typing import Any

from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.protocol import State

SEND_TEXT = "parlour.send_text"
SEND_TEXTS = "parlour.send_texts"
SEND_FRAMES = "parlour.send_frames"
TEXT_LANE = "parlour.text_lane"
ABORT = "parlour.abort"
HAND_OVER = "parlour.hand_over"
INBOUND_BACKLOG = 16  # messages queued for the app before reading pauses (backpressure)

_TEXT_FIN = 0x81  # FIN bit + opcode 1 (text)


def text_frame(payload: bytes) -> bytes:
    """One final, unmasked text frame carrying ``payload`` (already UTF-8)."""
    n = len(payload)
    if n < 126:
        return bytes((_TEXT_FIN, n)) + payload
    if n < 65536:
        return struct.pack("!BBH", _TEXT_FIN, 126, n) + payload
    return struct.pack("!BBQ", _TEXT_FIN, 127, n) + payload


def text_frames(payloads: list[bytes]) -> bytes:
    """Several final, unmasked text frames, one after the other (for ``parlour.send_frames``)."""
    return b"".join([text_frame(p) for p in payloads])


class TextLane:
    """Set by the app: ``handler(text) -> bool`` takes a message now or declines it; ``busy`` while
    the app is still handling an earlier message (which the lane must not overtake)."""

    __slots__ = ("busy", "handler")

    def __init__(self) -> None:
        self.handler: Callable[[str], bool] | None = None
        self.busy = False


class ParlourWebSocketProtocol(WebSocketsSansIOProtocol):
    """``WebSocketsSansIOProtocol`` plus the ``parlour.send_text`` extension (see the module doc)."""

    def handle_connect(self, event: Any) -> None:
        super().handle_connect(event)
        scope = getattr(self, "scope", None)
        if scope is not None and self.handshake_initiated and not self.close_sent:
            scope["extensions"][SEND_TEXT] = self.send_text_now
            scope["extensions"][SEND_TEXTS] = self.send_texts_now
            scope["extensions"][SEND_FRAMES] = self.send_frames_now
            scope["extensions"][TEXT_LANE] = self.lane
            scope["extensions"][ABORT] = self.transport.abort
            scope["extensions"][HAND_OVER] = self.hand_over

    def send_text_now(self, payload: bytes) -> bool:
        """Write ``payload`` as one text frame now if nothing stands in the way; else return False."""
        if not self._lane_open():
            return False
        self.transport.write(text_frame(payload))
        return True

    def send_texts_now(self, payloads: list[bytes]) -> bool:
        """Write each payload as a text frame, all in one write, if nothing stands in the way."""
        if not self._lane_open():
            return False
        self.transport.write(text_frames(payloads))
        return True

    def send_frames_now(self, frames: bytes) -> bool:
        """Write frames built by ``text_frames`` now if nothing stands in the way; else return False."""
        if not self._lane_open():
            return False
        self.transport.write(frames)
        return True

    def hand_over(self, send: Callable[[int], bool]) -> bool:
        """Before the handshake: ``send(fd)`` passes the socket on (to another process, which then owns
        the connection); if it did, this side lets go without a word (no close frame, no HTTP answer,
        no error logged for the missing handshake)."""
        sock = self.transport.get_extra_info("socket")
        if sock is None or self.handshake_complete or self.close_sent or self.disconnected:
            return False
        if not send(sock.fileno()):
            return False
        self.handshake_complete = self.close_sent = True
        self.transport.abort()
        return True

    def _lane_open(self) -> bool:
        return not (
            self.close_sent
            or self.disconnected
            or not self.handshake_complete
            or self.initial_response is not None
            or not self.writable.is_set()
            or self.conn.state is not State.OPEN
            or self.conn.extensions
        )

    lane: TextLane | None = None

    def connection_made(self, transport: Any) -> None:
        super().connection_made(transport)
        self.lane = TextLane()

    def send_receive_event_to_app(self) -> None:
        lane = self.lane
        if (
            lane is not None
            and lane.handler is not None
            and not lane.busy
            and self.curr_msg_data_type == "text"
            and len(self.frames) == 1
            and not self.close_sent
            and self.queue.empty()
        ):
            try:
                text = bytes(self.frames[0]).decode()
            except UnicodeDecodeError:
                text = None  # the parent refuses it and closes the connection
            try:
                taken = text is not None and lane.handler(text)
            except Exception:  # the handler must not raise; if it does, the ASGI path answers
                self.logger.exception("parlour text lane handler failed")
                taken = False
            if taken:
                self.frames = []
                return
        self._queue_for_app()

    def _queue_for_app(self) -> None:
        # uvicorn pauses reading after every message until the app takes it; pausing only once a
        # backlog builds keeps the same bound on memory without two event-loop calls per frame.
        paused = self.read_paused
        self.read_paused = True  # stops the parent from pausing; restored just below
        super().send_receive_event_to_app()
        self.read_paused = paused
        if not paused and self.queue.qsize() >= INBOUND_BACKLOG:
            self.read_paused = True
            self.transport.pause_reading()
