"""``scripts/compile_engines.py`` on a machine that cannot compile: it says so and the source runs.

(Where it can, ``./test`` has just compiled the engine, and tests/games/test_uno_compiled.py checks the
result.) Run on a copy of the package, so the tree the other tests import is left alone.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_without_a_c_compiler_the_pure_engine_runs(tmp_path: Path) -> None:
    shutil.copytree(
        ROOT / "parlour", tmp_path / "parlour", ignore=shutil.ignore_patterns("*.so", "compiled.json")
    )
    shutil.copytree(ROOT / "scripts", tmp_path / "scripts")
    env = {**os.environ, "CC": "false"}  # every compiler call fails
    run = subprocess.run(
        [sys.executable, "scripts/compile_engines.py"], cwd=tmp_path, env=env, capture_output=True, text=True
    )
    assert run.returncode == 1
    assert "kept the pure-Python engines" in run.stderr and "CompileError" in run.stderr
    games = tmp_path / "parlour" / "games"
    assert json.loads((games / "compiled.json").read_text()) == {}
    assert not list(games.glob("uno*.so"))
    where = subprocess.run(
        [sys.executable, "-W", "error", "-c", "import parlour.games.uno as u; print(u.__file__)"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
    )
    assert where.stdout.strip() == str(games / "uno.py")
