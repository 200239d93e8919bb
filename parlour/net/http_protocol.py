"""uvicorn's httptools protocol, keeping the bytes a client sends right after its upgrade request.

A client may write its first websocket frames in the same TCP write as the HTTP upgrade request.
httptools stops at the end of the request (``HttpParserUpgrade`` carries the offset) and uvicorn
hands the websocket protocol a rebuilt request only, so those frames were lost and never answered.
Here the rest of the chunk follows the request into the websocket protocol, which holds it until
the app has accepted the connection (``ParlourWebSocketProtocol.data_received``).
"""

from __future__ import annotations

import asyncio

import httptools
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol


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
            rest = data[upgrade.args[0] :]  # the offset just past the request in this chunk
            protocol = self.transport.get_protocol()  # the websocket protocol, set just now
            if rest and isinstance(protocol, asyncio.Protocol):
                protocol.data_received(rest)
