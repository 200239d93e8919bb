"""Batches that commit before their loop pass ends, because they are large.

Under load one poll of the event loop reads a move from a hundred or more connections, and each is
handled in its read callback up to its store append. A batch committed only when the pass's I/O
callbacks are done makes the first move read wait for all the others to be handled before it is
committed and delivered (docs/benchmarks.md, "Issue 11, ninth round: the SQLite tick"). So a store
whose batch reaches ``BATCH_MAX`` writes lists its commit here, and the net layer calls
``commit_full()`` when an input's read callback returns: a point where no room is in the middle of a
command, as when the loop runs the store's ordinary flush. Never a timer: only the number of writes
waiting decides.
"""

from __future__ import annotations

from collections.abc import Callable

BATCH_MAX = 24
"""Writes a batch takes before it commits at the next ``commit_full()``: a commit's fixed cost
(~20 µs) spread over 24 moves is under 1 µs each, and 24 /dots moves are handled in ~2.5 ms."""

_full: set[Callable[[], None]] = set()


def add(commit: Callable[[], None]) -> None:
    """A store's batch has reached ``BATCH_MAX``: ``commit`` writes it and runs its callers' continuations."""
    _full.add(commit)


def discard(commit: Callable[[], None]) -> None:
    """The store committed its batch on its own (its loop-pass flush, or closing)."""
    _full.discard(commit)


def commit_full() -> None:
    """Commit every batch listed by ``add``. Call it only where no room is in the middle of a command
    (when a read callback returns), on the loop the stores write from."""
    while _full:
        _full.pop()()
