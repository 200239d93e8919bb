"""The shape of a game-log entry, shared by the engines' ``describe`` functions.

A log entry tells one public event in words: ``{"kind", "seat", "icon", "text"}`` where ``text`` is a
list of parts, each a plain string or a reference the client draws itself — ``{"seat": n}`` (a
player's name), ``{"card": card}`` (a face-up card), ``{"color": name}`` or ``{"rank": name}``.
Engines build entries from an event's ``public`` fields only, so an entry can never carry a hidden
card; the room numbers them and keeps the recent history for snapshots.
"""

from __future__ import annotations

from typing import Any

LogEntry = dict[str, Any]


def named(n: int) -> dict[str, int]:
    """A player's name, by seat (the client knows the names)."""
    return {"seat": n}


def entry(kind: str, who: int | None, icon: str, *text: Any, **extra: Any) -> LogEntry:
    """One log line; ``extra`` holds public details a client may draw (a Dots line, revealed cards)."""
    return {"kind": kind, "seat": who, "icon": icon, "text": list(text), **extra}


def plural(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"
