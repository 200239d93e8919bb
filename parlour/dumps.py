"""The server's one JSON encoder (orjson): messages to clients, and the records the store writes.

It sits beside ``config`` below every layer that does I/O, so the store and the rooms share it.
"""

from __future__ import annotations

from typing import Any

import orjson


def json_bytes(value: Any) -> bytes:
    """``value`` as UTF-8 JSON.

    OPT_NON_STR_KEYS doubles orjson's cost on every dict, and nearly every message has only str
    keys: try without it; the rare message with int keys (scores by seat, ...) takes the retry.
    """
    try:
        return orjson.dumps(value)
    except TypeError:
        return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS)
