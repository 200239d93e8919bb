"""The command-latency histogram the server keeps in plain counters exports exactly what a
prometheus_client ``Histogram`` fed the same observations exports (``/metrics`` readers see no change)."""

from __future__ import annotations

import re

from prometheus_client import CollectorRegistry, Histogram, generate_latest

from parlour.net.metrics import COMMAND_BUCKETS, Metrics


def _section(page: str) -> str:
    """The ``parlour_command_seconds`` families of a page, creation times masked (they differ by clock)."""
    start = page.index("# HELP parlour_command_seconds ")
    rest = page[start:]
    end = re.search(r"^# HELP (?!parlour_command_seconds)", rest, re.MULTILINE)
    section = rest if end is None else rest[: end.start()]
    return re.sub(r"(_created\{[^}]*\}) \S+", r"\1 T", section)


def test_command_histogram_exports_what_prometheus_client_would() -> None:
    registry = CollectorRegistry()
    reference = Histogram(
        "parlour_command_seconds",
        "Room command latency (queue pop to delivery, including the log commit)",
        ["kind"],
        buckets=COMMAND_BUCKETS[:-1],
        registry=registry,
    )
    metrics = Metrics()
    # On a bound, between bounds, past the last one, zero: each lands where prometheus_client puts it.
    observed = [("join", 0.0003), ("action", 0.0005), ("action", 0.0007), ("join", 2.0)]
    observed += [("action", 0.001), ("leave", 0.25), ("action", 0.0), ("action", 1.0)]
    for kind, seconds in observed:
        reference.labels(kind).observe(seconds)
        metrics.command(None, kind, None, seconds)  # type: ignore[arg-type]
    ours = _section(metrics.render().decode())
    assert ours == _section(generate_latest(registry).decode())
    assert 'parlour_command_seconds_bucket{kind="action",le="0.001"} 4.0' in ours
    assert 'parlour_command_seconds_count{kind="join"} 2.0' in ours
