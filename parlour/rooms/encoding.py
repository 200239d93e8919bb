"""Pre-encoded view parts for sinks that write JSON themselves.

A game message's view is the engine's ``public_view`` (the same for every recipient) plus its
``seat_view``. For sinks that encode with orjson (``Sink.json``) the room encodes the public part
once per action and hands each recipient an ``orjson.Fragment`` joining it to that recipient's own
part, instead of every recipient's whole view being built and encoded again.
"""

from __future__ import annotations

import orjson


def joined_object(first: bytes, second: bytes) -> orjson.Fragment:
    """The JSON object with the members of the encoded objects ``first`` and ``second`` (no key in both)."""
    if first == b"{}":
        return orjson.Fragment(second)
    if second == b"{}":
        return orjson.Fragment(first)
    return orjson.Fragment(first[:-1] + b"," + second[1:])
