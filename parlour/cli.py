"""The ``parlour`` command line. Heavy imports happen inside ``serve`` so ``--help`` stays instant."""

from __future__ import annotations

import argparse
import errno
import functools
import gc
import socket
import sys
from collections.abc import Sequence
from typing import Any

from parlour.config import Config


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="parlour", description="Self-hosted real-time multiplayer card and board games."
    )
    sub = parser.add_subparsers(dest="command", required=True)
    serve = sub.add_parser(
        "serve",
        help="run the server",
        description="Run the HTTP + websocket server. Every option also reads PARLOUR_<NAME> from the "
        "environment (e.g. PARLOUR_PORT, PARLOUR_GRACE_SECONDS); flags win over the environment.",
    )
    serve.add_argument("--host", help="interface to bind (default 127.0.0.1, env PARLOUR_HOST)")
    serve.add_argument("--port", type=int, help="TCP port (default 8000, env PARLOUR_PORT)")
    serve.add_argument(
        "--public-url",
        help="base of every invite link, e.g. https://cards.example.org (env PARLOUR_PUBLIC_URL)",
    )
    serve.add_argument(
        "--data-dir", help="directory for the SQLite database (default ./data, env PARLOUR_DATA_DIR)"
    )
    serve.add_argument(
        "--log-level", choices=["debug", "info", "warning", "error"], help="env PARLOUR_LOG_LEVEL"
    )
    serve.add_argument(
        "--redis",
        dest="redis_url",
        help="cluster mode: rooms, logs and sessions in this Redis, e.g. redis://HOST:6379/0 "
        "(env PARLOUR_REDIS_URL; docs/scaling.md)",
    )
    serve.add_argument(
        "--workers", type=int, help="processes sharing the port, cluster mode only (env PARLOUR_WORKERS)"
    )
    backup = sub.add_parser(
        "backup",
        help="copy the SQLite database while the server runs",
        description="Write a consistent copy of the data directory's database (what the running "
        "server has committed, at one moment) to DEST, a new file. To restore: stop the server and "
        "put the copy in an empty data directory as parlour.db. In cluster mode the data is Redis's: "
        "back Redis up instead (docs/scaling.md).",
    )
    backup.add_argument("dest", help="the new file to write, e.g. backups/parlour-2026-12-02.db")
    backup.add_argument(
        "--data-dir", help="the server's data directory (default ./data, env PARLOUR_DATA_DIR)"
    )
    from parlour.bots.simulate import add_simulate_parser  # engines only: still instant

    add_simulate_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.command == "simulate":
        return args.func(args)
    if args.command == "backup":
        from parlour.store.backup import backup

        config = Config.from_env(data_dir=args.data_dir)
        if config.redis_url:
            raise SystemExit(
                "parlour: PARLOUR_REDIS_URL is set: in cluster mode rooms and games live in Redis, "
                "so back Redis up instead (its AOF file; docs/scaling.md, Durability)"
            )
        print(backup(config.data_dir, args.dest).report())
        return 0
    if args.command == "serve":
        config = Config.from_env(
            host=args.host,
            port=args.port,
            data_dir=args.data_dir,
            log_level=args.log_level,
            public_url=args.public_url,
            redis_url=args.redis_url,
            workers=args.workers,
        )
        if not config.reuse_port:  # a worker binds beside its siblings: its supervisor looked
            _require_free_port(config)
        if config.workers > 1:
            from parlour.net.workers import supervise

            return supervise(config)
        serve(config)
    return 0


def _tcp_socket(config: Config) -> socket.socket:
    """An unbound TCP socket of the family ``config.host`` is in, its address reusable at once."""
    sock = socket.socket(socket.AF_INET6 if ":" in config.host else socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    return sock


def _require_free_port(config: Config) -> None:
    """Stop at once, in words, when the address cannot be listened on: uvicorn says so only after the
    start-up work (every room recovered), in a log line under a banner that claims the server runs."""
    with _tcp_socket(config) as probe:  # SO_REUSEADDR, as uvicorn binds
        try:
            probe.bind((config.host, config.port))
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                raise SystemExit(
                    f"parlour: port {config.port} is already in use on {config.host} (another Parlour, or "
                    f"another program): stop it, or start with --port {config.port + 1}"
                ) from None
            raise SystemExit(
                f"parlour: cannot listen on {config.host}:{config.port}: {exc.strerror or exc}"
            ) from None


def _say_where(config: Config) -> None:
    """Tell the person starting the server where friends can reach it."""
    from parlour.net.invite import is_loopback, lan_urls

    if config.public_url:
        print(f"Parlour: invite links point at {config.public_url}", flush=True)
    elif is_loopback(config.host):
        print(
            f"Parlour: http://{config.host}:{config.port} — only this computer can join; "
            "start with --host 0.0.0.0 to invite others on your network",
            flush=True,
        )
    else:
        for url in lan_urls(config):
            print(f"Parlour: friends on your network can join at {url}", flush=True)


def serve(config: Config) -> None:
    """Run until Ctrl-C / SIGTERM; uvicorn then runs the app's shutdown, which flushes the store."""
    import uvicorn

    from parlour.net.app import create_app
    from parlour.net.http_protocol import ParlourHttpToolsProtocol
    from parlour.net.logs import configure_logging
    from parlour.net.websocket_protocol import ParlourWebSocketProtocol

    configure_logging(config.log_level)
    _say_where(config)
    # Cyclic GC was ~35% of server CPU under load: 2,000 connections keep a large heap of long-lived
    # objects alive, and every action allocates hundreds of short-lived dicts and lists (views, events,
    # messages), so with the default thresholds (700, 10, 10) young collections ran constantly and the
    # older generations re-traversed the whole heap. Almost nothing the server allocates forms cycles
    # (reference counting frees it), so the older generations are collected far less often (every
    # million allocations). Young collections stay small: one traverses every object allocated since
    # the last that is still alive, at ~0.6 µs each under load, so a threshold of 50,000 made pauses of
    # 20-80 ms at 200 busy rooms, above the 30 ms p99 the rooms aim for; 5,000 keeps them under ~20 ms.
    # See docs/benchmarks.md, "Server load" and "Issue 11, tenth round".
    gc.set_threshold(5_000, 200, 100)
    loop = "asyncio" if sys.platform == "win32" else "uvloop"
    app = create_app(config)
    server = uvicorn.Server(
        uvicorn.Config(
            app,
            host=config.host,
            port=config.port,
            loop=loop,
            http=ParlourHttpToolsProtocol,  # httptools, passing on bytes sent after an upgrade request
            ws=ParlourWebSocketProtocol,  # uvicorn's websockets-sansio, plus a fast lane for game frames
            ws_max_size=1 << 20,
            proxy_headers=True,  # the client's address from a trusted proxy's X-Forwarded-For
            forwarded_allow_ips=config.trusted_proxies,
            # permessage-deflate costs ~21-24% of server CPU per action and doubles memory per
            # connection (a zlib compressor + decompressor each) for ~1.4 KB frames: off unless asked.
            ws_per_message_deflate=config.ws_deflate,
            ws_ping_interval=20.0,
            lifespan="on",
            log_config=None,
            access_log=False,
            timeout_graceful_shutdown=3,
        )
    )

    def ws_protocols() -> Any:
        """What uvicorn builds for an upgraded connection: net/handoff.py adopts handed sockets with it."""
        lifespan = getattr(server, "lifespan", None)
        protocol: Any = getattr(server.config, "ws_protocol_class", None)  # set once uvicorn started
        if lifespan is None or protocol is None:
            return None
        return functools.partial(
            protocol,
            config=server.config,
            server_state=server.server_state,
            app_state=lifespan.state,
        )

    app.state.ws_protocols = ws_protocols
    # One of ``--workers``: the kernel spreads connections over the workers sharing the port.
    server.run(sockets=[reuse_port_socket(config)] if config.reuse_port else None)
    if not server.started:  # e.g. the port is taken: fail like ``uvicorn.run`` does
        sys.exit(3)


def reuse_port_socket(config: Config) -> socket.socket:
    """A listening TCP socket on ``config``'s port that other workers may bind too.

    Handed to uvicorn as a socket object, not as a file descriptor: uvicorn wraps a descriptor as
    ``AF_UNIX``, so the event loop then never sets ``TCP_NODELAY`` on accepted connections and
    Nagle's algorithm met the client's delayed ACK: ~40 ms added to every reply of a worker.
    """
    sock = _tcp_socket(config)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    sock.bind((config.host, config.port))
    return sock
