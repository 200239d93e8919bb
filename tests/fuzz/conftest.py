"""The fuzz test's server: a real ``parlour serve`` with its log at info level (tracebacks show)."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = str(Path(__file__).resolve().parents[2])
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

from tests.server.conftest import FAST_ENV, ServerProcess  # noqa: E402


@pytest.fixture(scope="module")
def fuzz_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    proc = ServerProcess(tmp_path_factory.mktemp("parlour-fuzz"), {**FAST_ENV, "PARLOUR_LOG_LEVEL": "info"})
    proc.start()
    yield proc
    assert proc.alive(), "the server must survive the fuzzer"
    proc.stop()
