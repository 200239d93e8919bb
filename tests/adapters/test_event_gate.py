"""The Engine.IO packet allowance: a PASS the fast lane could not use is given back, so a packet
that then takes the ordinary path (which charges again) is paid for once."""

from __future__ import annotations

from parlour.net.adapters.event_gate import Allowance, Verdict


def test_a_refunded_pass_is_not_counted() -> None:
    allowance = Allowance(rate=0.001, burst=3)  # no refill to speak of during the test
    assert allowance.take() is Verdict.PASS
    allowance.refund()  # the fast lane declined: the ordinary path pays below
    assert [allowance.take() for _ in range(3)] == [Verdict.PASS] * 3
    assert allowance.take() is Verdict.DROP  # the burst of 3 is used up, not 2


def test_a_refund_never_raises_the_burst() -> None:
    allowance = Allowance(rate=0.001, burst=2)
    allowance.refund()
    assert [allowance.take() for _ in range(3)] == [Verdict.PASS, Verdict.PASS, Verdict.DROP]
