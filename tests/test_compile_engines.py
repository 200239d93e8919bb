"""``scripts/compile_engines.py`` and what Python then imports.

On a machine that cannot compile it says so and the sources run. Where it can (``./test`` has just
compiled the engines), every engine it builds is the one imported, an engine whose source changed since
its build runs from source beside the others still compiled, and ``PARLOUR_PURE_PYTHON=1`` runs them
all from source. Each runs on a copy of the package, so the tree the other tests import is left alone.
(tests/games/test_uno_compiled.py plays the UNO extension against its source; the Dots & Boxes and
Cheat rule and property tests run against whichever build is imported, and again under
``PARLOUR_PURE_PYTHON=1``.)
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from parlour.games.compiled import is_compiled

ROOT = Path(__file__).resolve().parents[1]
ENGINES = ["cheat", "dots", "uno"]  # what scripts/compile_engines.py builds, sorted


def _script_modules() -> list[str]:
    spec = importlib.util.spec_from_file_location("compile_engines", ROOT / "scripts" / "compile_engines.py")
    assert spec is not None and spec.loader is not None
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    return sorted(script.MODULES)


def test_the_script_builds_every_engine_this_file_checks() -> None:
    assert _script_modules() == ENGINES


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
    assert not list(games.glob("*.so"))
    where = subprocess.run(
        [sys.executable, "-W", "error", "-c", "import parlour.games.uno as u; print(u.__file__)"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
    )
    assert where.stdout.strip() == str(games / "uno.py")


can_compile = shutil.which("cc") is not None and importlib.util.find_spec("mypyc") is not None
built_here = all(is_compiled(importlib.import_module(f"parlour.games.{name}")) for name in ENGINES)
needs_builds = pytest.mark.skipif(not built_here, reason="the engines are not all compiled here")

# Imports every engine, then prints what runs compiled (the server's start-up line) and each file.
REPORT = f"""
import importlib, json
from parlour.games.compiled import compiled_modules
files = {{n: importlib.import_module("parlour.games." + n).__file__ for n in {ENGINES!r}}}
print(json.dumps([compiled_modules(), files]))
"""


def _imported(cwd: Path, **env: str) -> tuple[list[str], dict[str, str], str]:
    """What a fresh interpreter in ``cwd`` runs compiled, each engine's file, and its warnings."""
    run = subprocess.run(
        [sys.executable, "-W", "always", "-c", REPORT],
        cwd=cwd,
        env={**os.environ, "PARLOUR_PURE_PYTHON": "0", **env},
        capture_output=True,
        text=True,
        check=True,
    )
    compiled, files = json.loads(run.stdout)
    return compiled, files, run.stderr


def test_a_machine_with_a_compiler_runs_every_compiled_engine() -> None:
    """``./test`` and ``./serve`` compile them first; a silent fallback (a type mypyc refuses, say)
    would lose the speed without anyone noticing."""
    if not can_compile:
        pytest.skip("no C compiler or no mypyc: the pure-Python engines are expected")
    compiled, files, warned = _imported(ROOT)
    assert compiled == ENGINES, files
    assert "older than its source" not in warned


@needs_builds
@pytest.mark.parametrize("edited", ENGINES)
def test_an_engine_edited_since_its_build_runs_from_source_beside_the_compiled_others(
    tmp_path: Path, edited: str
) -> None:
    shutil.copytree(ROOT / "parlour", tmp_path / "parlour", ignore=shutil.ignore_patterns("__pycache__"))
    games = tmp_path / "parlour" / "games"
    with (games / f"{edited}.py").open("a") as source:
        source.write("# edited after the build\n")
    compiled, files, warned = _imported(tmp_path)
    assert compiled == [name for name in ENGINES if name != edited]
    assert files[edited] == str(games / f"{edited}.py")
    assert f"parlour.games.{edited}: its compiled build is older than its source" in warned
    assert all(files[name].endswith(".so") for name in compiled)

    compiled, files, warned = _imported(tmp_path, PARLOUR_PURE_PYTHON="1")  # all from source, silently
    assert compiled == []
    assert files == {name: str(games / f"{name}.py") for name in ENGINES}
    assert "older than its source" not in warned
