"""The search every secrecy check uses (the contract test, the bots' games, the server's leak scan)."""

from __future__ import annotations

from typing import Any


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
