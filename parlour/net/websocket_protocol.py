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
* reading paused only once ``INBOUND_BACKLOG`` messages wait for the app, instead of after each.
"""

from __future__ import annotations

import struct
from typing import Any

from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.protocol import State

SEND_TEXT = "parlour.send_text"
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


class ParlourWebSocketProtocol(WebSocketsSansIOProtocol):
    """``WebSocketsSansIOProtocol`` plus the ``parlour.send_text`` extension (see the module doc)."""

    def handle_connect(self, event: Any) -> None:
        super().handle_connect(event)
        scope = getattr(self, "scope", None)
        if scope is not None and self.handshake_initiated and not self.close_sent:
            scope["extensions"][SEND_TEXT] = self.send_text_now

    def send_text_now(self, payload: bytes) -> bool:
        """Write ``payload`` as one text frame now if nothing stands in the way; else return False."""
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
        self.transport.write(text_frame(payload))
        return True

    def send_receive_event_to_app(self) -> None:
        # uvicorn pauses reading after every message until the app takes it; pausing only once a
        # backlog builds keeps the same bound on memory without two event-loop calls per frame.
        paused = self.read_paused
        self.read_paused = True  # stops the parent from pausing; restored just below
        super().send_receive_event_to_app()
        self.read_paused = paused
        if not paused and self.queue.qsize() >= INBOUND_BACKLOG:
            self.read_paused = True
            self.transport.pause_reading()
