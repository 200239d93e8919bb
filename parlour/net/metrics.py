"""Prometheus metrics, on a registry per app so several servers can live in one test process."""

from __future__ import annotations

import logging
import time
from bisect import bisect_left
from collections import Counter as Tally
from collections.abc import Callable, Iterable, Mapping

from prometheus_client import CollectorRegistry, Counter, Gauge, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, HistogramMetricFamily
from prometheus_client.registry import Collector

from parlour.rooms import Room


class _RoomCollector(Collector):
    """``parlour_rooms{state,game}`` computed at scrape time from the live rooms."""

    def __init__(self, rooms: Callable[[], Iterable[Room]]) -> None:
        self._rooms = rooms

    def collect(self) -> Iterable[GaugeMetricFamily]:
        family = GaugeMetricFamily("parlour_rooms", "Open rooms by state and game", labels=["state", "game"])
        for (state, game), count in sorted(Tally((r.state, r.game_name) for r in self._rooms()).items()):
            family.add_metric([state, game], count)
        yield family


class _FrameCollector(Collector):
    """``parlour_messages_in/out`` from the plain ints the hot path increments (no lock per frame)."""

    def __init__(self, metrics: Metrics) -> None:
        self._metrics = metrics

    def collect(self) -> Iterable[CounterMetricFamily]:
        m = self._metrics
        yield CounterMetricFamily("parlour_messages_in", "Frames received from clients", value=m.messages_in)
        yield CounterMetricFamily("parlour_messages_out", "Messages sent to clients", value=m.messages_out)


COMMAND_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1.0, float("inf"))
_LE = tuple("+Inf" if bound == float("inf") else repr(bound) for bound in COMMAND_BUCKETS)  # as ``le``


class _CommandTimes(Collector):
    """``parlour_command_seconds{kind}``, the histogram of room command latency, kept in plain lists
    the room loop adds to: a prometheus ``Histogram`` took a lock and two ``inc`` per command."""

    def __init__(self) -> None:
        self.kinds: dict[str, _Times] = {}

    def observe(self, kind: str, seconds: float) -> None:
        times = self.kinds.get(kind)
        if times is None:
            times = self.kinds[kind] = _Times()
        times.counts[bisect_left(COMMAND_BUCKETS, seconds)] += 1
        times.sum += seconds

    def collect(self) -> Iterable[HistogramMetricFamily]:
        help_text = "Room command latency (queue pop to delivery, including the log commit)"
        family = HistogramMetricFamily("parlour_command_seconds", help_text, labels=["kind"])
        for kind, times in self.kinds.items():
            total, buckets = 0, []
            for le, count in zip(_LE, times.counts, strict=True):
                total += count
                buckets.append((le, total))
            family.add_metric([kind], buckets, times.sum)
            family.add_sample("parlour_command_seconds_created", {"kind": kind}, times.created)
        yield family


class _Times:
    """One command kind's bucket counts (not cumulative), sum of seconds, and first sighting."""

    __slots__ = ("counts", "created", "sum")

    def __init__(self) -> None:
        self.counts = [0] * len(COMMAND_BUCKETS)
        self.sum = 0.0
        self.created = time.time()


class _LimitCollector(Collector):
    """Refusals by limit and quarantined rooms, read at scrape time."""

    def __init__(self, refused: Callable[[], Mapping[str, int]], quarantined: Callable[[], int]) -> None:
        self._refused = refused
        self._quarantined = quarantined

    def collect(self) -> Iterable[CounterMetricFamily | GaugeMetricFamily]:
        family = CounterMetricFamily(
            "parlour_limit_refusals", "Requests refused by a per-address limit", labels=["limit"]
        )
        for limit, count in sorted(self._refused().items()):
            family.add_metric([limit], count)
        yield family
        yield GaugeMetricFamily(
            "parlour_rooms_quarantined",
            "Rooms whose stored records could not be read or replayed at startup",
            value=self._quarantined(),
        )


class FailureCounter(logging.Handler):
    """Counts every record logged with an exception (``log.exception``) under ``parlour``, by
    logger: each caught failure is one log line and one step of ``parlour_failures``."""

    def __init__(self, counter: Counter) -> None:
        super().__init__(logging.ERROR)
        self.counter = counter

    def emit(self, record: logging.LogRecord) -> None:
        if record.exc_info:
            self.counter.labels(record.name).inc()


class Metrics:
    def __init__(self) -> None:
        self.open_connections = 0
        self.registry = CollectorRegistry()
        self.connections = Gauge(
            "parlour_connections", "Open client connections, every protocol", registry=self.registry
        )
        self.failures = Counter(
            "parlour_failures",
            "Exceptions caught while handling client input, by where",
            ["where"],
            registry=self.registry,
        )
        # Frame counts: plain ints (``+= 1`` on the event loop), folded into /metrics at scrape time.
        self.messages_in = 0
        self.messages_out = 0
        self.registry.register(_FrameCollector(self))
        self.errors = Counter("parlour_errors", "Error replies by code", ["code"], registry=self.registry)
        self.command_times = _CommandTimes()
        self.registry.register(self.command_times)

    def connected(self, delta: int) -> None:
        self.open_connections += delta
        self.connections.inc(delta)

    def watch_limits(self, refused: Callable[[], Mapping[str, int]], quarantined: Callable[[], int]) -> None:
        self.registry.register(_LimitCollector(refused, quarantined))

    def watch_rooms(self, rooms: Callable[[], Iterable[Room]]) -> None:
        self.registry.register(_RoomCollector(rooms))

    def command(self, room: Room, kind: str, error: str | None, seconds: float) -> None:
        self.command_times.observe(kind, seconds)

    def render(self) -> bytes:
        return generate_latest(self.registry)
