"""Ports for the servers the tests start, which no other test process and no outgoing connection takes.

A port from ``bind(0)`` is one of the kernel's ephemeral ports: once the probing socket closes, the
other xdist worker's next ``bind(0)`` or any client's outgoing connection may get it before the server
binds it. Then the server fails to start, or worse, the health check reaches the other worker's server
on that port and the test runs against a server with another configuration. So each worker takes
ports from its own block below the ephemeral range, in turn, skipping any that something holds.
"""

from __future__ import annotations

import itertools
import os
import socket

_FIRST = 20_000  # below Linux's default ephemeral range (32768-60999)
_BLOCK = 1_000
_BLOCKS = 12  # 20000-31999
_worker = os.environ.get("PYTEST_XDIST_WORKER", "gw0").removeprefix("gw")
_base = _FIRST + (int(_worker) % _BLOCKS if _worker.isdigit() else 0) * _BLOCK
_next = itertools.cycle(range(_base, _base + _BLOCK))


def free_port() -> int:
    """The next port of this worker's block that nothing is bound to."""
    for port in itertools.islice(_next, _BLOCK):
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise RuntimeError(f"no free port in {_base}-{_base + _BLOCK - 1}")
