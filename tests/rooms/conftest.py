"""In-process room tests (see ``harness``). The repository root goes on ``sys.path`` so test modules
can import ``tests.*`` helpers however pytest is started."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

ROOT = str(Path(__file__).resolve().parents[2])
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

from tests.rooms.harness import Harness  # noqa: E402


@pytest.fixture
async def harness() -> AsyncIterator[Harness]:
    h = Harness()
    yield h
    await h.manager.close()
