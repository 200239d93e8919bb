"""Adapters for the seed documents' wire protocols; each translates to native room commands.

``routes(manager)`` is the hook ``parlour.net.app`` mounts: the plain-websocket endpoints
(``/dots`` for Dots & Boxes packets, ``/ws`` for the Cheat actions) and the Socket.IO server at
``/socket.io/`` for both UNO event sets. Every adapter session is an in-process native session
(``native_link``), so no game rules and no second room API live here.
"""

from __future__ import annotations

import asyncio
import importlib
from typing import Any

from starlette.routing import BaseRoute, Mount, WebSocketRoute
from starlette.types import ASGIApp, Receive, Scope, Send
from starlette.websockets import WebSocket

from parlour.net.adapters import cheat_actions, dots_packets
from parlour.net.adapters.native_link import connector


async def _dots(websocket: WebSocket) -> None:
    state = websocket.app.state
    registry = getattr(state, "dots_registry", None)
    if registry is None:  # one per app, over the names every node shares (store/names.py)
        registry = state.dots_registry = dots_packets.Registry(state.names)
    connect = connector(state, "dots", websocket.scope)
    await dots_packets.serve(websocket, connect, registry, state.manager.command_as)


async def _cheat(websocket: WebSocket) -> None:
    await cheat_actions.serve(websocket, connector(websocket.app.state, "cheat", websocket.scope))


class _SocketIO:
    """``/socket.io/``, built on its first request (``sio_server.UnoSocketIO``).

    python-socketio loads every client and message queue it has (its package imports them all, and
    aiohttp and redis-py with them where installed): more CPU than the rest of the server's start-up
    together. A server no Socket.IO client reaches never pays it. The first client waits for the
    import, done in a thread so the rooms go on meanwhile; clients arriving during it wait for the same.
    """

    def __init__(self) -> None:
        self._app: ASGIApp | None = None
        self._loading: asyncio.Future[Any] | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        app = self._app
        if app is None:
            if self._loading is None:
                self._loading = asyncio.ensure_future(
                    asyncio.to_thread(importlib.import_module, "parlour.net.adapters.sio_server")
                )
            module = await asyncio.shield(self._loading)
            if self._app is None:
                self._app = module.UnoSocketIO().asgi()
            app = self._app
        await app(scope, receive, send)


def routes(manager: Any = None) -> list[BaseRoute]:
    """The adapter endpoints. Sessions reach the manager through the app's state at connect time."""
    return [
        WebSocketRoute("/dots", _dots),
        WebSocketRoute("/ws", _cheat),
        Mount("/socket.io", app=_SocketIO()),
    ]
