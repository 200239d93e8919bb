"""Suite-wide ordering: the tests marked ``slow`` run first.

pytest-xdist hands tests to its workers in collection order, so a minutes-long test collected last
runs alone at the end while the other worker idles; started first, it overlaps the short ones."""

from __future__ import annotations

import pytest


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)
