"""JSON for sinks that write it: one encoder for the whole server, and the pre-encoded view parts.

A game message's view is the engine's ``public_view`` (the same for every recipient) plus its
``seat_view``. For sinks that encode with orjson (``Sink.json``) the room encodes the public part
once per action and hands each recipient an ``orjson.Fragment`` joining it to that recipient's own
part, instead of every recipient's whole view being built and encoded again.
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


def joined_object(first: bytes, second: bytes) -> orjson.Fragment:
    """The JSON object with the members of the encoded objects ``first`` and ``second`` (no key in both)."""
    if first == b"{}":
        return orjson.Fragment(second)
    if second == b"{}":
        return orjson.Fragment(first)
    return orjson.Fragment(first[:-1] + b"," + second[1:])
