"""Server configuration: defaults, overridden by ``PARLOUR_*`` environment variables, then by CLI flags."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from functools import cache
from typing import Any


@dataclass(frozen=True, slots=True)
class Config:
    """Every knob of ``parlour serve``. The env name of ``field`` is ``PARLOUR_<FIELD>``."""

    host: str = "127.0.0.1"
    port: int = 8000
    data_dir: str = "./data"
    log_retention_days: float = 7.0
    """How long the room log's records are kept once no open room needs them to recover (an audit
    trail; finished games keep their own logs for replays). ``inf`` keeps them all."""
    log_level: str = "info"
    grace_seconds: float = 60.0
    empty_room_seconds: float = 600.0
    ready_countdown: float = 5.0
    quickplay_countdown: float = 10.0
    rate_per_second: float = 20.0
    rate_burst: int = 40
    protocol_rates: str = ""
    """Per-protocol overrides of the two above: ``dots=30/60,socketio=25/50`` (rate/burst)."""
    outbound_queue: int = 256
    max_frame: int = 64 * 1024
    ws_deflate: bool = False
    eio3_ping_interval: float = 25.0
    eio3_ping_timeout: float = 20.0
    eio4_ping_interval: float = 25.0
    eio4_ping_timeout: float = 20.0
    redis_url: str = ""  # cluster mode when set (docs/scaling.md)
    lease_seconds: float = 3.0  # how long a dead node's rooms wait before another node claims them
    workers: int = 1  # processes sharing the port (cluster mode only)
    reuse_port: bool = False  # bind with SO_REUSEPORT (set for each worker by ``--workers``)
    handoff_dir: str = ""  # set for each worker by ``--workers``: sockets pass here (net/handoff.py)
    bot_delay: tuple[float, float] = (0.6, 1.6)  # seconds (min, max) before a bot acts
    # Limits that hold against a hostile client (docs/reliability.md).
    max_rooms: int = 2000
    rooms_per_ip: int = 20
    connections_per_ip: int = 64
    sessions_per_ip_per_minute: int = 120
    code_misses_per_ip_per_minute: int = 10
    password_failures_per_room: int = 10
    chat_per_10_seconds: int = 10
    identify_seconds: float = 30.0
    public_url: str = ""  # the base of every invite link, e.g. https://cards.example.org
    trusted_proxies: str = "127.0.0.1"
    """Comma-separated addresses (or ``*``) whose ``X-Forwarded-For`` names the client: a reverse proxy
    in front. Per-address limits and a kick's address ban then count each client, not the proxy."""

    def __post_init__(self) -> None:
        if self.public_url:
            url = self.public_url.strip().rstrip("/")
            if not url.startswith(("http://", "https://")) or " " in url or url.count("/") > 2:
                raise SystemExit(
                    f"public URL {self.public_url!r}: give scheme and host only, e.g. https://cards.example.org"
                )
            object.__setattr__(self, "public_url", url)
        _protocol_rates(self.protocol_rates)  # refuse a malformed value at startup
        if not self.log_retention_days >= 0:  # NaN too: it would make every record look old
            raise SystemExit(
                f"log retention {self.log_retention_days!r}: give a number of days, 0 or more (inf: all)"
            )

    def rate_for(self, protocol: str) -> tuple[float, int]:
        """The (messages per second, burst) of a connection speaking ``protocol``: ``native``,
        ``dots``, ``cheat`` or ``socketio``."""
        return _protocol_rates(self.protocol_rates).get(protocol, (self.rate_per_second, self.rate_burst))

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None, **overrides: Any) -> Config:
        """Defaults < environment < explicit ``overrides`` (None values are ignored)."""
        env = os.environ if env is None else env
        values: dict[str, Any] = {}
        for f in fields(cls):
            raw = env.get(f"PARLOUR_{f.name.upper()}")
            if raw is not None and raw != "":
                kind = type(getattr(cls(), f.name))
                try:
                    values[f.name] = _PARSERS.get(kind, kind)(raw)
                except ValueError:
                    raise SystemExit(
                        f"PARLOUR_{f.name.upper()}={raw!r} is not a valid {kind.__name__}"
                    ) from None
        values.update({k: v for k, v in overrides.items() if v is not None})
        return replace(cls(), **values)


PROTOCOLS = ("native", "dots", "cheat", "socketio")


@cache  # read for every connection a protocol adapter opens (Allowance.for_config): parse it once
def _protocol_rates(text: str) -> Mapping[str, tuple[float, int]]:
    rates: dict[str, tuple[float, int]] = {}
    for item in filter(None, (part.strip() for part in text.split(","))):
        name, _, value = item.partition("=")
        rate, _, burst = value.partition("/")
        try:
            if name.strip() not in PROTOCOLS:
                raise ValueError(name)
            rates[name.strip()] = (float(rate), int(burst))
        except ValueError:
            raise SystemExit(
                f"PARLOUR_PROTOCOL_RATES: {item!r} is not <protocol>=<per second>/<burst>, "
                f"protocol one of {', '.join(PROTOCOLS)}"
            ) from None
    return rates


def _range(raw: str) -> tuple[float, float]:
    """``"a"`` or ``"a,b"`` (seconds): the range ``(a, a)`` or ``(a, b)``."""
    parts = [float(p) for p in raw.split(",")]
    if len(parts) > 2 or parts[0] < 0 or parts[-1] < parts[0]:
        raise ValueError(raw)
    return (parts[0], parts[-1])


def _bool(raw: str) -> bool:
    value = raw.strip().lower()
    if value in ("1", "true", "yes", "on"):
        return True
    if value in ("0", "false", "no", "off"):
        return False
    raise ValueError(raw)


_PARSERS: dict[type, Any] = {bool: _bool, tuple: _range}
