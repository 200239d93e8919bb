"""uvicorn's httptools protocol, with a websocket upgrade that neither loses nor re-parses bytes.

* A client may write its first websocket frames in the same TCP write as the HTTP upgrade request.
  httptools stops at the end of the request (``HttpParserUpgrade`` carries the offset) and uvicorn
  hands the websocket protocol a rebuilt request only, so those frames were lost and never answered.
  Here the rest of the chunk follows the request into the websocket protocol, which holds it until
  the app has accepted the connection (``ParlourWebSocketProtocol.data_received``).
* uvicorn rebuilds the request's bytes from what httptools parsed and ``websockets`` parses them
  again, line by line in Python (a tenth of a websocket's set-up CPU, docs/benchmarks.md, "Issue 11,
  sixth round: set-up"). Here the ``websockets`` request is made from httptools' fields, with the
  checks ``websockets``' parser makes; a request that fails one takes uvicorn's way, so that
  ``websockets`` refuses it exactly as before.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable

import httptools
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
from websockets.datastructures import Headers
from websockets.http11 import MAX_LINE_LENGTH, MAX_NUM_HEADERS, Request, _token_re, _value_re

from parlour.net.websocket_protocol import ParlourWebSocketProtocol


class ParlourHttpToolsProtocol(HttpToolsProtocol):
    """``HttpToolsProtocol`` whose websocket upgrade passes on what followed the request."""

    def data_received(self, data: bytes) -> None:
        self._unset_keepalive_if_required()
        try:
            self.parser.feed_data(data)
        except httptools.HttpParserError:
            self.logger.warning("Invalid HTTP request received.")
            self.send_400_response("Invalid HTTP request received.")
        except httptools.HttpParserUpgrade as upgrade:
            if not self._should_upgrade():
                self._unsupported_upgrade_warning()
                return
            self.handle_websocket_upgrade()
            # This protocol's part is over: drop the parser that holds it (as uvicorn's
            # ``connection_lost`` does, which an upgraded connection never reaches here), so that
            # reference counting frees it now rather than the cyclic collector in a pause later.
            self.parser = None  # type: ignore[assignment]
            rest = data[upgrade.args[0] :]  # the offset just past the request in this chunk
            protocol = self.transport.get_protocol()  # the websocket protocol, set just now
            if rest and isinstance(protocol, asyncio.Protocol):
                protocol.data_received(rest)

    def handle_websocket_upgrade(self) -> None:
        kind = self.ws_protocol_class
        request = upgrade_request(self.scope["method"], self.url, self.scope["headers"])
        if request is None or kind is None or not issubclass(kind, ParlourWebSocketProtocol):
            super().handle_websocket_upgrade()
            return
        self.connections.discard(self)
        protocol = kind(config=self.config, server_state=self.server_state, app_state=self.app_state)
        protocol.adopt(self)
        protocol.open_parsed(request)
        self.transport.set_protocol(protocol)


def upgrade_request(method: str, target: bytes, fields: Iterable[tuple[bytes, bytes]]) -> Request | None:
    """The ``websockets`` request for what httptools parsed, or None where ``websockets``' own parser
    would refuse the request's bytes (it then does, from the bytes uvicorn rebuilds)."""
    if len(method) + len(target) + 16 > MAX_LINE_LENGTH or not target.isascii():  # with room to spare
        return None
    headers = Headers()
    for count, (name, raw) in enumerate(fields, 1):
        value = raw.strip(b" \t")
        if (
            count > MAX_NUM_HEADERS
            or len(name) + len(raw) + 8 > MAX_LINE_LENGTH
            or not _token_re.fullmatch(name)
            or not _value_re.fullmatch(value)
        ):
            return None
        headers.set_insecure(name.decode("ascii"), value.decode("iso-8859-1"))
    if "Transfer-Encoding" in headers or not set(headers.get_all("Content-Length")) <= {"0"}:
        return None
    return Request(target.decode("ascii"), headers, method, "HTTP/1.1")
