"""Ports for the servers the tests start, which no other test process and no outgoing connection takes.

A port from ``bind(0)`` is one of the kernel's ephemeral ports: once the probing socket closes, the
other xdist worker's next ``bind(0)`` or any client's outgoing connection may get it before the server
binds it. Then the server fails to start, or worse, the health check reaches the other worker's server
on that port and the test runs against a server with another configuration. So each test process
takes ports from a block of its own below the ephemeral range, in turn, skipping any that something
holds.

A process owns its block by holding an exclusive ``flock`` on the block's file in the temporary
directory for as long as it runs (the kernel lets go when it exits, however it ends). So the workers
of one run, and those of another run on the same machine at the same time (a suite started while CI
runs), never share a block: sharing one let a test reach the other run's server.
"""

from __future__ import annotations

import fcntl
import itertools
import os
import socket
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO

_FIRST = 20_000  # below Linux's default ephemeral range (32768-60999)
_BLOCK = 1_000
_BLOCKS = 12  # 20000-31999
LOCKS = Path(tempfile.gettempdir()) / "parlour-test-ports"


def _claim() -> tuple[int, IO[bytes]]:
    """The first block no other process holds, and the open lock file that holds it for this one."""
    LOCKS.mkdir(exist_ok=True)
    worker = os.environ.get("PYTEST_XDIST_WORKER", "gw0").removeprefix("gw")
    first = int(worker) % _BLOCKS if worker.isdigit() else 0  # where this worker looks first
    for n in range(_BLOCKS):
        block = (first + n) % _BLOCKS
        lock = (LOCKS / f"{block}.lock").open("ab")
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            lock.close()
            continue
        return block, lock
    raise RuntimeError(f"all {_BLOCKS} port blocks are held by other test processes ({LOCKS})")


_claimed: tuple[range, IO[bytes], Iterator[int]] | None = None  # the block, its lock, the next port


def block() -> range:
    """This process's ports, its block claimed on first use (a benchmark's spawned clients, which
    import the module that imports this one but start no server, claim none)."""
    global _claimed
    if _claimed is None:
        number, lock = _claim()
        ports = range(_FIRST + number * _BLOCK, _FIRST + (number + 1) * _BLOCK)
        _claimed = (ports, lock, itertools.cycle(ports))
    return _claimed[0]


def free_port() -> int:
    """The next port of this process's block that nothing is bound to."""
    ports = block()
    assert _claimed is not None
    for port in itertools.islice(_claimed[2], _BLOCK):
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise RuntimeError(f"no free port in {ports.start}-{ports.stop - 1}")
