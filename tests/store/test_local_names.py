"""``LocalNames``, the one-process ``Names``: bound values expire, and expired ones nobody reads again
do not pile up (the socket-uno tutorial remembers every dropped seat for an hour)."""

from __future__ import annotations

from parlour.store.names import PENDING, SWEEP_FROM, LocalNames


async def test_values_expire_and_expired_ones_are_swept() -> None:
    names = LocalNames()
    await names.put("seat", "kept", "ROOM|nonce", ttl=3600.0)
    for n in range(4 * SWEEP_FROM):
        await names.put("seat", f"gone-{n}", "ROOM|nonce", ttl=0.0)  # expired at once
    assert await names.get("seat", "kept") == "ROOM|nonce"
    assert await names.get("seat", "gone-0") is None
    assert len(names._values) < 2 * SWEEP_FROM  # the sweep ran; nothing read the expired ones


async def test_reserve_put_and_drop_only_the_value_bound() -> None:
    names = LocalNames()
    assert await names.reserve("dots-name", "hall") is True
    assert await names.get("dots-name", "hall") == PENDING
    assert await names.reserve("dots-name", "hall") is False
    await names.put("dots-name", "hall", "ABCDE")
    await names.drop("dots-name", "hall", "OTHER")  # a newer binding is not someone else's to drop
    assert await names.get("dots-name", "hall") == "ABCDE"
    await names.drop("dots-name", "hall", "ABCDE")
    assert await names.get("dots-name", "hall") is None
