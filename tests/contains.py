"""The search every secrecy check uses (the contract test, the bots' games, the server's leak scan)."""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

import orjson


def contains(haystack: Any, needle: Any) -> bool:
    """Whether the JSON value ``haystack`` holds ``needle`` anywhere (same type and value: a card's id
    ``1`` is not the boolean ``True``)."""
    if haystack == needle and type(haystack) is type(needle):
        return True
    if isinstance(haystack, dict):
        return any(contains(v, needle) for v in haystack.values())
    if isinstance(haystack, list):
        return any(contains(v, needle) for v in haystack)
    return False


def key(value: Any) -> Hashable:
    """``value`` as ``nodes`` holds it: its type and value, a list or object as its sorted JSON (whose
    numbers, nested too, keep their type: ``[1]`` is not ``[true]``)."""
    if isinstance(value, dict | list):
        return type(value), orjson.dumps(value, option=orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS)
    return type(value), value


def nodes(haystack: Any) -> set[Hashable]:
    """Every value the JSON value ``haystack`` holds, itself included: ``key(needle) in nodes(haystack)``
    is ``contains(haystack, needle)``, for one walk of a value that many needles are looked for in."""
    found: set[Hashable] = set()
    stack = [haystack]
    while stack:
        item = stack.pop()
        found.add(key(item))
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return found
