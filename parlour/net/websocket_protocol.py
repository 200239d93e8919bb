"""uvicorn's websocket protocol with a fast lane for the frames a game sends most.

Measured under load (docs/benchmarks.md, "Server load"), most of the server's time per game action
went to moving frames through layers: the ASGI ``send`` coroutine, Starlette's wrappers, uvicorn's
checks, ``websockets``' frame objects, and, inbound, a pause and resume of reading for every frame.
This subclass keeps uvicorn and ``websockets`` for everything that is not a plain data frame (the
handshake, pings, closing, fragmented or compressed messages) and adds:

* the ASGI extension ``parlour.send_frames``: a plain function that writes bytes that are already
  whole, unmasked text frames (RFC 6455 §5.2; ``text_frames``) straight to the transport in one write
  and returns True, or returns False when they must take the ordinary ASGI path (socket closing or
  closed, write buffer full, or an extension such as permessage-deflate negotiated); the native
  connection writes its frames this way, several in one write when it held them (net/connection.py);
* the ASGI extension ``parlour.send_texts``: the same for payloads, framed here (one system call for
  what one event produces for one client, e.g. a Dots MOVE and the TURN after it);
* the ASGI extension ``parlour.text_lane``: a ``TextLane`` the app may give a ``handler``; a text
  message arriving while the app is idle (nothing queued for it, ``busy`` false) goes to the handler
  at once, and only if it returns False (it is not one the handler takes) down the ASGI queue, so the
  frames a game sends most skip the queue, the task wake-up and the ``receive`` layers;
* inbound, the complete, small, masked, final text frames a client sends most (a move is 20-120
  bytes) parsed here (``text_frame_at``), when nothing is half-parsed in ``websockets`` (a frame
  boundary, no fragmented message, no extension, connection open): each message then goes to the
  text lane or the ASGI queue as if ``websockets`` had parsed it, without its per-frame generator,
  ``Frame`` object and event list (5-6% of the server's CPU under load, docs/benchmarks.md, "Issue
  11, fifth round"). From the first frame
  that is anything else (a ping, a close, binary data, a frame cut off at the end of the chunk, a
  64-bit length, invalid UTF-8, an unmasked frame), the rest of the chunk goes to ``websockets``,
  which so parses from a frame boundary and answers exactly as before;
* reading paused only once ``INBOUND_BACKLOG`` messages wait for the app, instead of after each;
* the ASGI extension ``parlour.abort``: drops the TCP connection at once, unsent data and all, for a
  peer that stopped reading (a websocket close would wait behind the data it never reads);
* the ASGI extension ``parlour.hand_over`` (net/handoff.py): before the handshake, gives the socket to
  another worker of this machine, with any bytes held after the request, and forgets the connection here.
* bytes that arrive before the app has accepted (a client's first frames, written with its upgrade
  request: ``http_protocol`` passes them on) held, reading paused, and parsed once the 101 is out;
* ``open_parsed``: the handshake from a request httptools parsed already (``http_protocol``).
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Generator
from types import GeneratorType
from typing import Any

from uvicorn.logging import TRACE_LOG_LEVEL
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.http11 import Request
from websockets.protocol import Protocol, State
from websockets.streams import StreamReader

try:
    from websockets.speedups import apply_mask
except ImportError:  # websockets built without its C extension
    from websockets.utils import apply_mask

SEND_TEXTS = "parlour.send_texts"
SEND_FRAMES = "parlour.send_frames"
TEXT_LANE = "parlour.text_lane"
ABORT = "parlour.abort"
HAND_OVER = "parlour.hand_over"
INBOUND_BACKLOG = 16  # messages queued for the app before reading pauses (backpressure)

_TEXT_FIN = 0x81  # FIN bit + opcode 1 (text)


# The header of every text frame short enough for a 7-bit length (nearly all a game sends), built once.
_SHORT_HEADERS = [bytes((_TEXT_FIN, n)) for n in range(126)]


_pack_medium = struct.Struct("!BBH").pack  # the header of a frame with a 16-bit length


def frame_header(n: int) -> bytes:
    """The header of a final, unmasked text frame whose payload is ``n`` bytes."""
    if n < 126:
        return _SHORT_HEADERS[n]
    if n < 65536:
        return _pack_medium(_TEXT_FIN, 126, n)
    return struct.pack("!BBQ", _TEXT_FIN, 127, n)


def text_frame(payload: bytes) -> bytes:
    """One final, unmasked text frame carrying ``payload`` (already UTF-8)."""
    return frame_header(len(payload)) + payload


def text_frames(payloads: list[bytes]) -> bytes:
    """Several final, unmasked text frames, one after the other (for ``parlour.send_frames``)."""
    parts: list[bytes] = []
    for payload in payloads:
        parts += (frame_header(len(payload)), payload)
    return b"".join(parts)


def text_frame_at(data: bytes, pos: int, max_size: int | None) -> tuple[bytes, int] | None:
    """The unmasked payload of the client frame at ``data[pos:]`` and the offset just after it, if
    that frame is complete, final, masked, text, without reserved bits, with a 7- or 16-bit length
    no larger than ``max_size``; else None (``websockets`` must parse it: a control or binary frame,
    a fragment, a frame still arriving, a 64-bit length, or one it refuses with a close code)."""
    n = len(data)
    if n - pos < 6 or data[pos] != _TEXT_FIN:  # FIN, RSV1-3 clear, opcode 1; header + mask at least
        return None
    second = data[pos + 1]
    if second < 0x80:  # unmasked: a protocol error (1002) websockets reports
        return None
    length = second & 0x7F
    head = pos + 2
    if length == 126:
        if n - pos < 8:
            return None
        length = (data[head] << 8) | data[head + 1]
        head += 2
    elif length == 127:
        return None
    if max_size is not None and length > max_size:
        return None
    end = head + 4 + length
    if end > n:
        return None
    return apply_mask(data[head + 4 : end], data[head : head + 4]), end


# What a ``websockets`` parser waiting at a frame boundary is suspended in: ``Protocol.parse``
# (reached through ``ServerProtocol.parse`` once the handshake is done) waiting in ``at_eof`` for
# the next frame's first byte. Anywhere else (``Frame.parse`` after part of a header, ``discard``
# after a close) it holds state of its own that bytes must not bypass.
_PARSE_CODE = Protocol.parse.__code__
_AT_EOF_CODE = StreamReader.at_eof.__code__


def at_frame_boundary(parser: Generator[None]) -> bool:
    """True when a ``websockets`` parser generator has consumed whole frames only."""
    outer: object = parser
    while isinstance(outer, GeneratorType):
        inner = outer.gi_yieldfrom
        if not isinstance(inner, GeneratorType):
            return False
        if outer.gi_code is _PARSE_CODE:
            return inner.gi_code is _AT_EOF_CODE
        outer = inner
    return False


class TextLane:
    """Set by the app: ``handler(text) -> bool`` takes a message now or declines it; ``busy`` while
    the app is still handling an earlier message (which the lane must not overtake); ``flush()``
    writes what the app sent and holds (for a reply, net/connection.py), called
    before ``websockets`` writes a frame of its own (a close must not overtake it)."""

    __slots__ = ("busy", "flush", "handler")

    def __init__(self) -> None:
        self.handler: Callable[[str], bool] | None = None
        self.flush: Callable[[], None] | None = None
        self.busy = False


class ParlourWebSocketProtocol(WebSocketsSansIOProtocol):
    """``WebSocketsSansIOProtocol`` plus the ``parlour.*`` extensions (see the module doc)."""

    def open_parsed(self, request: Request) -> None:
        """Start from an upgrade request parsed already (``http_protocol``): ``websockets``' frame
        parser takes the place of its request parser, then the handshake goes on as if that parser
        had read ``request``."""
        conn = self.conn
        conn.parser = Protocol.parse(conn)
        next(conn.parser)
        self.handle_connect(request)

    def handle_connect(self, event: Any) -> None:
        super().handle_connect(event)
        scope = getattr(self, "scope", None)
        if scope is not None and self.handshake_initiated and not self.close_sent:
            scope["extensions"][SEND_TEXTS] = self.send_texts_now
            scope["extensions"][SEND_FRAMES] = self.send_frames_now
            scope["extensions"][TEXT_LANE] = self.lane
            scope["extensions"][ABORT] = self.transport.abort
            scope["extensions"][HAND_OVER] = self.hand_over

    async def send(self, message: Any) -> None:
        await super().send(message)
        if self.early and self.handshake_complete:
            early, self.early = self.early, b""
            if not self.transport.is_closing():
                self.transport.resume_reading()
            if self.initial_response is None and not self.close_sent:
                self.data_received(early)  # accepted: the held frames, in order, after the 101

    def send_texts_now(self, payloads: list[bytes]) -> bool:
        """Write each payload as a text frame, all in one write, if nothing stands in the way."""
        return self.send_frames_now(text_frames(payloads))

    def send_frames_now(self, frames: bytes) -> bool:
        """Write frames built by ``text_frames`` now if nothing stands in the way; else return False."""
        if (
            self.close_sent
            or self.disconnected
            or not self.handshake_complete
            or self.initial_response is not None
            or not self.writable.is_set()
            or self.conn.state is not State.OPEN
            or self.conn.extensions
        ):
            return False
        self.transport.write(frames)
        return True

    def hand_over(self, send: Callable[[int, bytes], bool]) -> bool:
        """Before the handshake: ``send(fd, early)`` passes the socket on (to another process, which
        then owns the connection) with the bytes the client sent after its request, held here and so
        no longer in the socket; if it did, this side lets go without a word (no close frame, no HTTP
        answer, no error logged for the missing handshake)."""
        sock = self.transport.get_extra_info("socket")
        if sock is None or self.handshake_complete or self.close_sent or self.disconnected:
            return False
        if not send(sock.fileno(), self.early):
            return False
        self.handshake_complete = self.close_sent = True
        self.transport.abort()
        return True

    lane: TextLane | None = None
    # Whether ``websockets``' parser stands at a frame boundary with nothing of its own buffered,
    # half-parsed or negotiated (``_parser_clean``): it changes only when ``websockets`` parses, so
    # it is read again only after that, not per chunk.
    parser_clean = False
    max_text: int | None = None  # the largest message taken here: websockets' own limit

    def connection_made(self, transport: Any) -> None:
        super().connection_made(transport)
        self._made()

    def connection_lost(self, exc: Exception | None) -> None:
        super().connection_lost(exc)
        # Unlink what made this protocol part of a reference cycle (the scope's extensions are its
        # own bound methods; the lane holds the app's handlers), so reference counting frees the
        # connection's objects once the app lets go, instead of the cyclic collector: ~115 objects
        # per connection, freed in pauses of 5-35 ms under load (docs/benchmarks.md, "Issue 11,
        # tenth round").
        scope = getattr(self, "scope", None)
        if scope is not None:
            extensions = scope.get("extensions", {})
            for key in (SEND_TEXTS, SEND_FRAMES, ABORT, HAND_OVER):
                extensions.pop(key, None)
        self.lane = None

    def adopt(self, upgraded: Any) -> None:
        """``connection_made`` for the connection the HTTP protocol ``upgraded`` is handing over: its
        transport and the addresses it looked up already (each lookup is a system call and a socket
        object), instead of looking them up again."""
        self.connections.add(self)
        self.transport = upgraded.transport
        self.server, self.client = upgraded.server, upgraded.client
        self.scheme = "wss" if upgraded.scheme == "https" else "ws"
        if self.logger.level <= TRACE_LOG_LEVEL:
            prefix = f"{self.client[0]}:{self.client[1]} - " if self.client else ""
            self.logger.log(TRACE_LOG_LEVEL, "%sWebSocket connection made", prefix)
        self._made()

    def _made(self) -> None:
        self.lane = TextLane()
        conn = self.conn
        size, fragment = conn.max_message_size, conn.max_fragment_size
        self.max_text = size if fragment is None else fragment if size is None else min(size, fragment)

    early: bytes = b""  # what the client sent after its upgrade request, before the app accepted

    def data_received(self, data: bytes) -> None:
        if self.handshake_initiated and not self.handshake_complete:
            # Frames written with (or right after) the upgrade request: websockets would parse them
            # now and answer a ping before the 101. Held, with reading paused, until the app answers.
            if not self.early:
                self.transport.pause_reading()
            self.early += data
            return
        if (
            self.parser_clean
            and self.handshake_complete
            and not self.close_sent
            and not self.disconnected
            and self.conn.state is State.OPEN
        ):
            pos = self._take_text_frames(data)
            if pos == len(data):
                return
            data = data[pos:]
        self._flush_app()  # parsing may answer (a pong, a close): what the app sent goes first
        super().data_received(data)
        self.parser_clean = self._parser_clean()

    def _parser_clean(self) -> bool:
        conn = self.conn
        reader = conn.reader
        return not (
            conn.extensions  # e.g. permessage-deflate: frames carry compressed data
            or conn.current_size is not None  # a fragmented message in progress
            or self.frames
            or reader.buffer
            or reader.eof
        ) and at_frame_boundary(conn.parser)

    def _take_text_frames(self, data: bytes) -> int:
        """Hand each leading text frame's message to the app; the offset of the first byte not taken."""
        conn = self.conn
        limit = self.max_text
        pos = 0
        while True:
            frame = text_frame_at(data, pos, limit)
            if frame is None:
                return pos
            payload, end = frame
            try:
                text = payload.decode()
            except UnicodeDecodeError:
                return pos  # websockets parses it and send_receive_event_to_app closes with 1007
            pos = end
            handler = self._idle_handler()
            if handler is None or not self._hand(handler, text):
                self._queue_text(text)
            if self.close_sent or conn.state is not State.OPEN or self.transport.is_closing():
                return pos  # the app closed or dropped the connection (e.g. its rate limit)

    def send_receive_event_to_app(self) -> None:
        if self.curr_msg_data_type != "text" or self.close_sent:
            self._queue_for_app()  # binary data, or a message the parent drops after the app's close
            return
        try:
            text = b"".join(self.frames).decode()
        except UnicodeDecodeError:
            self._refuse_invalid_text()
            return
        self.frames = []
        handler = self._idle_handler()
        if handler is None or not self._hand(handler, text):
            self._queue_text(text)

    def _refuse_invalid_text(self) -> None:
        """A text message that is not UTF-8: close with 1007 as uvicorn does, but without the traceback
        uvicorn logs at error level for what is only a client's bad input."""
        self._flush_app()
        self.frames = []
        self.logger.info("websocket closed (1007): a text message was not valid UTF-8")
        self.conn.send_close(1007)
        self.handle_parser_exception()

    def _flush_app(self) -> None:
        lane = self.lane
        if lane is not None and lane.flush is not None:
            lane.flush()

    def shutdown(self) -> None:
        self._flush_app()
        super().shutdown()

    def _idle_handler(self) -> Callable[[str], bool] | None:
        """The lane's handler, if it may take a message now: no earlier one is still with the app
        or waiting for it, and the app has not closed the websocket."""
        lane = self.lane
        if lane is None or lane.busy or self.close_sent or not self.queue.empty():
            return None
        return lane.handler

    def _hand(self, handler: Callable[[str], bool], text: str) -> bool:
        try:
            return handler(text)
        except Exception:  # the handler must not raise; if it does, the ASGI path answers
            self.logger.exception("parlour text lane handler failed")
            return False

    def _queue_text(self, text: str) -> None:
        """A text message, decoded once here, down the ASGI queue (what the parent would queue)."""
        self.queue.put_nowait({"type": "websocket.receive", "text": text})
        self._bound_backlog()

    def _queue_for_app(self) -> None:
        paused = self.read_paused
        self.read_paused = True  # stops the parent from pausing; restored just below
        super().send_receive_event_to_app()
        self.read_paused = paused
        self._bound_backlog()

    def _bound_backlog(self) -> None:
        # uvicorn pauses reading after every message until the app takes it; pausing only once a
        # backlog builds keeps the same bound on memory without two event-loop calls per frame.
        if not self.read_paused and self.queue.qsize() >= INBOUND_BACKLOG:
            self.read_paused = True
            self.transport.pause_reading()
