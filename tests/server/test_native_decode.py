"""The native decoder against the store's encoder: what the 64-bit guard on actions is for."""

from __future__ import annotations

from parlour.net.native import Action, _decode_message, storable


def test_the_typed_decoder_yields_what_the_store_cannot_write() -> None:
    """Why ``NativeClient.act`` still runs ``storable`` on an action ``action_now`` decoded: msgspec
    decodes integers past 64 bits as Python ints and nests deeper than orjson writes, so a decoded
    action can hold what the log refuses (tests/server/test_hardening.py shows the refusal on the wire)."""
    big = _decode_message('{"type":"action","action":{"type":"line","n":18446744073709551616}}')
    deep = _decode_message('{"type":"action","action":{"x":' + "[" * 300 + "]" * 300 + "}}")
    fits = _decode_message('{"type":"action","action":{"n":18446744073709551615,"m":-9223372036854775808}}')
    assert isinstance(big, Action) and big.action["n"] == 2**64
    assert isinstance(deep, Action) and isinstance(fits, Action)
    assert not storable(big.action) and not storable(deep.action)
    assert storable(fits.action)
