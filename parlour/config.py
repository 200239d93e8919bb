"""Server configuration: defaults, overridden by ``PARLOUR_*`` environment variables, then by CLI flags."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from typing import Any


@dataclass(frozen=True, slots=True)
class Config:
    """Every knob of ``parlour serve``. The env name of ``field`` is ``PARLOUR_<FIELD>``."""

    host: str = "127.0.0.1"
    port: int = 8000
    data_dir: str = "./data"
    log_level: str = "info"
    grace_seconds: float = 60.0
    empty_room_seconds: float = 600.0
    ready_countdown: float = 5.0
    quickplay_countdown: float = 10.0
    rate_per_second: float = 20.0
    rate_burst: int = 40
    outbound_queue: int = 256
    max_frame: int = 64 * 1024
    ws_deflate: bool = False
    eio3_ping_interval: float = 25.0
    eio3_ping_timeout: float = 20.0
    redis_url: str = ""  # cluster mode when set (docs/scaling.md)
    lease_seconds: float = 3.0  # how long a dead node's rooms wait before another node claims them
    workers: int = 1  # processes sharing the port (cluster mode only)
    reuse_port: bool = False  # bind with SO_REUSEPORT (set for each worker by ``--workers``)
    bot_delay: tuple[float, float] = (0.6, 1.6)  # seconds (min, max) before a bot acts
    public_url: str = ""  # the base of every invite link, e.g. https://cards.example.org

    def __post_init__(self) -> None:
        if self.public_url:
            url = self.public_url.strip().rstrip("/")
            if not url.startswith(("http://", "https://")) or " " in url or url.count("/") > 2:
                raise SystemExit(
                    f"public URL {self.public_url!r}: give scheme and host only, e.g. https://cards.example.org"
                )
            object.__setattr__(self, "public_url", url)

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
