"""Adapter tests run against a real ``parlour serve`` per xdist worker, with fast room clocks.

The process handling is the server tests' ``ServerProcess`` (``tests/server/conftest.py``),
loaded by path because sibling conftests do not share fixtures.
"""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))

_spec = importlib.util.spec_from_file_location(
    "server_conftest", Path(__file__).parent.parent / "server" / "conftest.py"
)
assert _spec is not None and _spec.loader is not None
server_conftest = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(server_conftest)

FAST_CLOCKS = {
    **server_conftest.FAST_ENV,
    "PARLOUR_READY_COUNTDOWN": "0.3",
    "PARLOUR_QUICKPLAY_COUNTDOWN": "2",
    "PARLOUR_GRACE_SECONDS": "3",
}


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """One server process for this worker's adapter tests."""
    proc = server_conftest.ServerProcess(tmp_path_factory.mktemp("parlour-adapters"), dict(FAST_CLOCKS))
    proc.start()
    yield proc
    assert proc.alive(), "the server must survive every adapter test"
    proc.stop()


@pytest.fixture
def server_with(tmp_path: Path) -> Iterator[Callable[[dict[str, str]], Any]]:
    """Start servers of their own, with extra environment (e.g. a low rate limit)."""
    started: list[Any] = []

    def start(env: dict[str, str]) -> Any:
        data = tmp_path / f"server{len(started)}"
        data.mkdir()
        proc = server_conftest.ServerProcess(data, {**FAST_CLOCKS, **env})
        proc.start()
        started.append(proc)
        return proc

    yield start
    for proc in started:
        assert proc.alive(), "the server must survive every adapter test"
        proc.stop()


@pytest.fixture
def fresh_server(server_with: Callable[[dict[str, str]], Any]) -> Any:
    """A server of its own, for tests of process-wide behaviour such as quick play."""
    return server_with({})
