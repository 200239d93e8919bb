"""Comparing a compiled engine with its source, call by call (tests/games/test_*_compiled.py)."""

from __future__ import annotations

from typing import Any

from parlour.games.base import IllegalAction, InvalidSettings


def outcome_of(call: Any, *args: Any) -> tuple[Any, ...]:
    """What a call did, comparable across the two modules: its result or its refusal."""
    try:
        result = call(*args)
    except (IllegalAction, InvalidSettings) as refused:
        return ("refused", type(refused).__name__, getattr(refused, "code", None), str(refused))
    except Exception as err:
        return ("raised", type(err).__name__)
    if isinstance(result, list) and result and hasattr(result[0], "for_seat"):  # events
        return ("ok", [(e.type, e.public, e.private) for e in result])
    return ("ok", repr(result) if type(result).__name__ in ("Settings", "State") else result)
