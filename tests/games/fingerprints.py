"""Deep state fingerprints shared by the unit and property tests: "nothing changed" and exact replay."""

from __future__ import annotations

from typing import Any

from parlour.games import cheat, dots


def dots_snapshot(state: dots.State) -> tuple[Any, ...]:
    """Everything that may change in a state, for 'nothing changed' and replay comparisons."""
    return (
        state.free.copy(),
        state.pos.copy(),
        state.drawn.copy(),
        state.sides.copy(),
        state.owner.copy(),
        state.scores.copy(),
        state.active.copy(),
        state.next_seat.copy(),
        state.turn,
        state.remaining,
        repr(state.result),
    )


def cheat_fingerprint(state: cheat.State) -> tuple[Any, ...]:
    """Everything that could change, deeply (rng included), to prove a refused action changed nothing."""
    lp = state.last_play
    return (
        tuple(tuple(h) for h in state.hands),
        tuple(state.pile),
        tuple(state.active),
        state.turn,
        state.rank,
        None if lp is None else (lp.seat, tuple(lp.cards), lp.rank, lp.callable),
        state.winner,
        state.reason,
        tuple(state.calls),
        tuple(state.calls_right),
        tuple(state.caught),
        state.rng.getstate(),
    )
