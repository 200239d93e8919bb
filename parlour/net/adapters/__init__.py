"""Adapters for the seed documents' wire protocols; each translates to native room commands.

``routes()`` gives the plain-websocket endpoints (``/dots``, ``/ws``) and ``wrap(app)`` puts the
Socket.IO server (``/socket.io/``) in front of the app. No game rules live here.
"""

from __future__ import annotations

from starlette.applications import Starlette
from starlette.routing import BaseRoute, WebSocketRoute
from starlette.types import ASGIApp
from starlette.websockets import WebSocket

from parlour.net.adapters import cheat_actions, dots_packets
from parlour.net.adapters.native_link import connector
from parlour.net.adapters.sio_server import UnoSocketIO


async def _dots(websocket: WebSocket) -> None:
    await dots_packets.serve(websocket, connector(websocket.app.state))


async def _cheat(websocket: WebSocket) -> None:
    await cheat_actions.serve(websocket, connector(websocket.app.state))


def routes() -> list[BaseRoute]:
    """The plain-websocket adapter endpoints."""
    return [WebSocketRoute("/dots", _dots), WebSocketRoute("/ws", _cheat)]


def wrap(app: Starlette) -> ASGIApp:
    """``app`` behind the Socket.IO server for the two UNO event sets."""
    return UnoSocketIO(lambda: connector(app.state)).asgi(app)
