"""A short fuzz run over real sockets on every endpoint (the long one is ``bench/fuzz.py``).

Hypothesis generates hostile frames (tests/fuzz/strategies.py); after each one the harness checks
the invariant (tests/fuzz/harness.py): the victim's connection and a bystander's still answer, the
player on turn at every bystander table can still move, and the server log holds no traceback.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.fuzz.harness import Fuzzer, LoopThread
from tests.fuzz.strategies import frames_for

ENDPOINTS = ["native", "dots", "cheat", "socketio", "socketio2"]
EXAMPLES = 15  # per endpoint; each a list of up to 6 frames


@pytest.fixture(scope="module")
def fuzzer(fuzz_server: Any) -> Iterator[tuple[LoopThread, Fuzzer]]:
    loop = LoopThread()
    fuzz = Fuzzer(fuzz_server.port, fuzz_server.log_path, ENDPOINTS)
    loop.run(fuzz.setup())
    yield loop, fuzz
    loop.run(fuzz.close())
    loop.stop()


@pytest.mark.filterwarnings("ignore:Do not use the `random` module")  # the socket clients' masks
@pytest.mark.parametrize("endpoint", ENDPOINTS)
def test_hostile_frames_never_cost_a_connection_a_room_or_the_server(
    fuzzer: tuple[LoopThread, Fuzzer], endpoint: str
) -> None:
    loop, fuzz = fuzzer

    @settings(
        max_examples=EXAMPLES,
        deadline=None,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(frames=st.lists(frames_for(endpoint, fuzz.known), min_size=1, max_size=6))
    def run(frames: list[Any]) -> None:
        for frame in frames:
            loop.run(fuzz.frame(endpoint, frame))
        fuzz.check_log()

    run()
    assert fuzz.frames > 0
