"""Shield async tests from an event loop some other test left marked as running in this thread.

Playwright's sync API (a session-scoped browser in ``tests/browser``) keeps its asyncio loop
"running" in the worker's main thread between tests, and pytest-asyncio then refuses to start
its own ("Runner.run() cannot be called from a running event loop") in whatever test the xdist
scheduler runs next on that worker. Async tests here hide that loop for their duration.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest


@pytest.fixture(autouse=True)
def foreign_loop_guard() -> Iterator[None]:
    foreign = asyncio._get_running_loop()
    if foreign is not None:
        asyncio._set_running_loop(None)
    try:
        yield
    finally:
        if foreign is not None:
            asyncio._set_running_loop(foreign)
