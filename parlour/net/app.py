"""The ASGI application: native websocket, HTTP API, metrics, the static client, protocol adapters.

Protocol adapters (the seeds' Socket.IO UNO events, the Cheat ``/ws`` and the Dots ``/dots``
protocols) are modules listed in ``ADAPTERS``; each exposes ``routes(manager) -> list[BaseRoute]``
and is mounted when present. They translate to the same room commands through their own sinks.
"""

from __future__ import annotations

import gc
import html
import importlib
import logging
import os
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from os import PathLike
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, PlainTextResponse, Response
from starlette.routing import BaseRoute, Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.types import Receive, Scope, Send
from starlette.websockets import WebSocket

from parlour.bots.catalog import describe as describe_catalog
from parlour.config import Config
from parlour.games.compiled import compiled_modules
from parlour.net import history, native
from parlour.net.handoff import Handoff
from parlour.net.invite import routes_for
from parlour.net.limits import AddressLimits
from parlour.net.metrics import FailureCounter, Metrics
from parlour.net.replay import routes as replay_routes
from parlour.net.security import SecurityHeaders
from parlour.rooms import Manager, RoomLimits, Timings
from parlour.rooms.bot_seats import bot_factory
from parlour.store import open_store
from parlour.store.base import Store
from parlour.store.names import names_for

log = logging.getLogger("parlour.net")

WEB_DIR = Path(__file__).resolve().parent.parent / "web"
ADAPTERS = ("parlour.net.adapters",)
PLACEHOLDER = """<!doctype html><meta charset="utf-8"><title>Parlour</title>
<h1>Parlour</h1><p>The server is running, but the browser client is not built yet
(<code>parlour/web/index.html</code> is missing). The native protocol is at <code>/api/ws</code>;
see <code>docs/protocol.md</code>.</p>"""


def _games_in_words() -> str:
    """The catalog's games as the page's description names them ("UNO, Cheat and Dots & Boxes"): link
    previews read it without running the page, so the server writes it in (``{games}`` in index.html)."""
    titles = [game["title"] for game in describe_catalog()["games"]]
    return " and ".join([", ".join(titles[:-1]), titles[-1]] if len(titles) > 1 else titles)


def _adapter_routes(manager: Manager) -> list[BaseRoute]:
    routes: list[BaseRoute] = []
    for name in ADAPTERS:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name != name:
                raise
            continue
        routes.extend(module.routes(manager))
    return routes


def create_app(config: Config, store: Store | None = None) -> Starlette:
    """A Starlette app for ``config``; ``store`` defaults to SQLite in ``config.data_dir``, or to
    Redis when ``config.redis_url`` is set (one node of a cluster, docs/scaling.md)."""
    metrics = Metrics()
    holder: dict[str, Store] = {}
    cluster = cluster_manager_class() if config.redis_url else None
    options: dict[str, Any] = {"lease_seconds": config.lease_seconds} if cluster else {}
    manager = (cluster or Manager)(
        store=None,  # type: ignore[arg-type]  # set in lifespan, before any request
        timings=Timings(
            grace=config.grace_seconds,
            empty_room=config.empty_room_seconds,
            ready_countdown=config.ready_countdown,
            quick_play_countdown=config.quickplay_countdown,
        ),
        bot_factory=bot_factory(config.bot_delay),
        on_processed=metrics.command,
        limits=RoomLimits(
            max_rooms=config.max_rooms,
            rooms_per_owner=config.rooms_per_ip,
            password_failures=config.password_failures_per_room,
        ),
        **options,
    )
    limits = AddressLimits(config)
    metrics.watch_rooms(lambda: list(manager.rooms.values()))
    metrics.watch_limits(lambda: limits.refused, lambda: len(manager.quarantined))
    if cluster is not None:
        manager.count_connections = lambda: metrics.open_connections  # type: ignore[attr-defined]

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        failures = FailureCounter(metrics.failures)
        logging.getLogger("parlour").addHandler(failures)
        holder["store"] = manager.store = store or await open_store(
            config.data_dir, config.redis_url, config.lease_seconds, config.log_retention_days
        )
        app.state.names = names_for(holder["store"])
        await manager.recover()
        handoff = None
        if cluster is not None and config.handoff_dir:
            protocols = getattr(app.state, "ws_protocols", lambda: None)  # set by ``parlour serve``
            handoff = Handoff(config.handoff_dir, manager.node, protocols)  # type: ignore[attr-defined]
            handoff.start()
        app.state.handoff = handoff
        # Everything alive now (modules, the app, recovered rooms) lives as long as the process:
        # collect the garbage recovery left and move the survivors to the permanent generation, so
        # later collections never traverse them again (docs/benchmarks.md, "Server load").
        gc.collect()
        gc.freeze()
        log.info(
            "event=started host=%s port=%s data_dir=%s compiled=%s",
            config.host,
            config.port,
            config.data_dir,
            ",".join(compiled_modules()) or "none",
        )
        try:
            yield
        finally:
            if handoff is not None:
                handoff.close()
            await manager.close()
            await holder["store"].close()
            logging.getLogger("parlour").removeHandler(failures)
            log.info("event=stopped")

    async def healthz(request: Request) -> Response:
        health: dict[str, Any] = {
            "status": "ok",
            "rooms": len(manager.rooms),
            "connections": metrics.open_connections,
            "quarantined_rooms": len(manager.quarantined),
        }
        if cluster is not None:
            health["node"] = manager.node  # type: ignore[attr-defined]
            try:
                health["cluster"] = await manager.cluster_stats()  # type: ignore[attr-defined]
            except Exception as exc:  # Redis down: a probe gets a reason, not a traceback and a 500
                reason = f"redis unavailable: {type(exc).__name__}"
                health.update(status="degraded", cluster={"error": reason})
                return JSONResponse(health, status_code=503)
        return JSONResponse(health)

    async def metrics_page(request: Request) -> Response:
        page = metrics.render()
        if cluster is not None:
            page += cluster_metrics(await manager.cluster_stats())  # type: ignore[attr-defined]
        return Response(page, media_type="text/plain; version=0.0.4; charset=utf-8")

    async def rooms(request: Request) -> Response:
        return JSONResponse({"rooms": manager.public_rooms(request.query_params.get("game"))})

    async def catalog(request: Request) -> Response:
        return JSONResponse(describe_catalog())

    async def index(request: Request) -> Response:
        page = WEB_DIR / "index.html"
        if page.is_file():
            text = page.read_text(encoding="utf-8").replace("{games}", html.escape(_games_in_words()))
            return HTMLResponse(text, headers={"Cache-Control": "no-cache"})
        return HTMLResponse(PLACEHOLDER)

    invite, invite_qr = routes_for(config, manager.invite_facts)
    routes: list[BaseRoute] = [
        WebSocketRoute("/api/ws", native.endpoint),
        Route("/api/invite/{code}", invite),
        Route("/api/invite/{code}/qr.svg", invite_qr),
        Route("/healthz", healthz),
        Route("/metrics", metrics_page),
        Route("/api/rooms", rooms),
        Route("/api/catalog", catalog),
        *history.routes(manager),
        Route("/", index),
        Route("/r/{code}", index),
        *replay_routes(manager),
        *_adapter_routes(manager),
        Mount("/", _ClientFiles(directory=WEB_DIR, check_dir=False)),
    ]
    app = ParlourApp(routes=routes, lifespan=lifespan, exception_handlers={404: _not_found})
    app.add_middleware(SecurityHeaders)
    app.sockets = {
        route.path: route.endpoint
        for route in routes
        if isinstance(route, WebSocketRoute) and not route.param_convertors
    }
    app.state.config = config
    app.state.limits = limits
    app.state.metrics = metrics
    app.state.manager = manager
    return app


class ParlourApp(Starlette):
    """Starlette, with its fixed-path websocket routes (``/api/ws``, ``/dots``, ``/ws``) called directly.

    Every middleware here acts on HTTP responses only (error pages, security headers, exception
    handlers) and passes a websocket through; the route table is a list of patterns tried in turn.
    A websocket upgrade to one of these paths skips both: one dict lookup instead of six layers of
    calls and a dozen regular expressions per connection (docs/benchmarks.md, "Issue 11, fifth
    round"). Any other scope, and any request under a ``root_path``, takes the ordinary stack.
    """

    sockets: dict[str, Callable[[WebSocket], Awaitable[None]]]
    """Path → endpoint (set by ``create_app``)."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "websocket" and not scope.get("root_path"):
            endpoint = self.sockets.get(scope["path"])
            if endpoint is not None:
                scope["app"] = self
                await endpoint(WebSocket(scope, receive, send))
                return
        await super().__call__(scope, receive, send)


def cluster_manager_class() -> type[Manager]:
    from parlour.rooms.cluster.manager import ClusterManager

    return ClusterManager


def cluster_metrics(stats: dict[str, Any]) -> bytes:
    """The whole cluster as every node last reported it (absolute counts with a TTL)."""
    lines = []
    for name, value, text in (
        ("parlour_cluster_nodes", len(stats["nodes"]), "Live nodes in the cluster"),
        ("parlour_cluster_rooms", stats["rooms"], "Rooms owned by all live nodes"),
        ("parlour_cluster_connections", stats["connections"], "Connections held by all live nodes"),
    ):
        lines += [f"# HELP {name} {text}", f"# TYPE {name} gauge", f"{name} {value}"]
    return ("\n".join(lines) + "\n").encode()


async def _not_found(request: Request, exc: Exception) -> Response:
    """A person's browser gets a page that leads back to the start (a bare "Not Found" did not); any
    other client the plain words."""
    page = WEB_DIR / "not-found.html"
    if "text/html" in request.headers.get("accept", "") and page.is_file():
        return HTMLResponse(page.read_text(encoding="utf-8"), status_code=404)
    return PlainTextResponse("Not Found", status_code=404)


class _ClientFiles(StaticFiles):
    """The client's static files; a plain 404 (not a 500) while ``parlour/web`` does not exist yet."""

    async def check_config(self) -> None:
        if WEB_DIR.is_dir():
            await super().check_config()

    def file_response(
        self,
        full_path: PathLike[str] | str,
        stat_result: os.stat_result,
        scope: Scope,
        status_code: int = 200,
    ) -> Response:
        """Each load asks whether a file changed (a 304 when not). With no word on caching, a browser kept
        the modules of before an upgrade for a while and loaded them beside new ones, and the page
        stopped at "connecting…" on an import of a name the old module lacked."""
        response = super().file_response(full_path, stat_result, scope, status_code)
        response.headers["Cache-Control"] = "no-cache"
        return response
