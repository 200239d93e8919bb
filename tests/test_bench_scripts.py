"""Every benchmark in ``bench/`` still starts: it imports what it needs and parses its options.

Benchmarks are run by hand, not in CI, so one that a refactoring broke (an import from the tests'
helpers that moved) would otherwise stay broken until somebody needs it. This runs each with
``--help``, which imports the whole script and builds its argument parser, and measures nothing.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[1] / "bench"
SCRIPTS = sorted(BENCH.glob("*.py"))


def test_the_benchmarks_are_found() -> None:
    assert {"server_load.py", "protocol_load.py", "web_dots.py"} <= {s.name for s in SCRIPTS}


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda s: s.name)
def test_a_benchmark_starts_and_explains_its_options(script: Path, tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, str(script), "--help"], cwd=tmp_path, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("usage:"), done.stdout
