"""Compile the UNO, Dots & Boxes and Cheat engines with mypyc, in place:
``python scripts/compile_engines.py [--force]``.

Why: the engines are plain, fully typed Python. mypyc turns ``parlour/games/uno.py``, ``dots.py`` and
``cheat.py`` into C extensions that run the very same code 1.3–2.6× as fast (``bench/engines.py``,
``bench/engine_moves.py``), and Python imports each extension instead of the ``.py`` beside it. Each
engine is its own extension (with its own ``<name>__mypyc`` runtime), so an edit rebuilds only that
engine. ``compiled.json`` records the SHA-256 of the source each extension was built from;
``parlour/games/compiled.py`` ignores an extension whose source has changed since, so an edit is never
hidden behind an old build. Nothing is rebuilt while the record matches, and a machine without a C
compiler keeps the pure-Python engines (this says so).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import sys
import tempfile
from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GAMES = ROOT / "parlour" / "games"
MODULES = ("uno", "dots", "cheat")
RECORD = GAMES / "compiled.json"


def digest(name: str) -> str:
    return hashlib.sha256((GAMES / f"{name}.py").read_bytes()).hexdigest()


def built(name: str) -> bool:
    """Whether this interpreter has an extension for ``name`` (another Python's does not count)."""
    return any((GAMES / f"{name}{suffix}").exists() for suffix in EXTENSION_SUFFIXES)


def record() -> dict[str, str]:
    try:
        return json.loads(RECORD.read_text())
    except (OSError, ValueError):
        return {}


def compile_modules(names: list[str]) -> None:
    """Build the extensions in a scratch directory, then move each one in beside its source by an
    atomic rename: a running server keeps the file it loaded instead of seeing it rewritten."""
    from mypyc.build import mypycify
    from setuptools import Distribution

    with tempfile.TemporaryDirectory(prefix="parlour-mypyc-") as scratch:
        os.chdir(ROOT)  # mypyc names each module by its path from here
        extensions = mypycify(
            [f"parlour/games/{name}.py" for name in names],
            opt_level="3",
            separate=True,
            target_dir=str(Path(scratch) / "c"),
        )
        dist = Distribution({"name": "parlour-engines", "ext_modules": extensions})
        build = dist.get_command_obj("build_ext")
        build.build_lib = str(Path(scratch) / "lib")
        build.build_temp = str(Path(scratch) / "obj")
        build.parallel = os.cpu_count() or 1  # one engine's C per core: they build independently
        dist.run_command("build_ext")
        for built_file in (Path(scratch) / "lib").rglob("*"):
            if not built_file.is_file():
                continue
            target = ROOT / built_file.relative_to(Path(scratch) / "lib")
            staged = target.with_name(target.name + ".new")
            shutil.copyfile(built_file, staged)
            os.replace(staged, target)
    shutil.rmtree(ROOT / ".mypy_cache", ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--force", action="store_true", help="rebuild even if the sources did not change")
    args = parser.parse_args(argv)
    wanted = {name: digest(name) for name in MODULES}
    done = record()
    todo = [name for name, sha in wanted.items() if args.force or done.get(name) != sha or not built(name)]
    if not todo:
        return 0
    RECORD.unlink(missing_ok=True)  # no record while building: a half-built set is never trusted
    try:
        compile_modules(todo)
    except Exception as err:  # no compiler, no headers, a mypyc refusal: the pure engine still runs
        why = (str(err).splitlines() or [""])[0][:200]
        print(f"compile_engines: kept the pure-Python engines ({type(err).__name__}: {why})", file=sys.stderr)
        done = {name: sha for name, sha in done.items() if name not in todo}
        RECORD.write_text(json.dumps(done, indent=1) + "\n")
        return 1
    done.update({name: wanted[name] for name in todo})
    RECORD.write_text(json.dumps(done, indent=1) + "\n")
    print(f"compile_engines: compiled {', '.join(todo)} with mypyc", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
