"""Adapters for the seed documents' wire protocols; each translates to native room commands.

``routes(manager)`` is the hook ``parlour.net.app`` mounts: the plain-websocket endpoints
(``/dots`` for Dots & Boxes packets, ``/ws`` for the Cheat actions) and the Socket.IO server at
``/socket.io/`` for both UNO event sets. Every adapter session is an in-process native session
(``native_link``), so no game rules and no second room API live here.
"""

from __future__ import annotations

from typing import Any

from starlette.routing import BaseRoute, Mount, WebSocketRoute
from starlette.websockets import WebSocket

from parlour.net.adapters import cheat_actions, dots_packets
from parlour.net.adapters.native_link import connector
from parlour.net.adapters.sio_server import UnoSocketIO


async def _dots(websocket: WebSocket) -> None:
    state = websocket.app.state
    registry = getattr(state, "dots_registry", None)
    if registry is None:  # one per app, over the names every node shares (store/names.py)
        registry = state.dots_registry = dots_packets.Registry(state.names)
    connect = connector(state, "dots", websocket.scope)
    await dots_packets.serve(websocket, connect, registry, state.manager.command_as)


async def _cheat(websocket: WebSocket) -> None:
    await cheat_actions.serve(websocket, connector(websocket.app.state, "cheat", websocket.scope))


def routes(manager: Any = None) -> list[BaseRoute]:
    """The adapter endpoints. Sessions reach the manager through the app's state at connect time."""
    return [
        WebSocketRoute("/dots", _dots),
        WebSocketRoute("/ws", _cheat),
        Mount("/socket.io", app=UnoSocketIO().asgi()),
    ]
