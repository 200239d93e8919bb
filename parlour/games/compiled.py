"""Use a mypyc-compiled engine only when it was compiled from the source beside it.

``scripts/compile_engines.py`` may build ``uno.py``, ``dots.py`` and ``cheat.py`` each into a C
extension next to it, which Python then imports instead of the source. ``compiled.json`` holds the
SHA-256 of the source each extension was built from; an extension without a matching entry (the source
was edited, checked out or patched since) is passed over and its ``.py`` is loaded in its place, with a
warning. ``PARLOUR_PURE_PYTHON=1`` passes over every extension, silently: for a debugger, or to measure
the source itself.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import sys
import warnings
from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path


def load_stale_from_source(package: str, directory: Path) -> list[str]:
    """Import from source every module of ``package`` whose extension is out of date (every one under
    ``PARLOUR_PURE_PYTHON``); their names."""
    built = {
        path.name[: -len(suffix)] for suffix in EXTENSION_SUFFIXES for path in directory.glob(f"*{suffix}")
    }
    if not built:
        return []
    try:
        record = json.loads((directory / "compiled.json").read_text())
    except (OSError, ValueError):
        record = {}
    pure = os.environ.get("PARLOUR_PURE_PYTHON", "") not in ("", "0")
    stale = []
    for name in sorted(built):
        source = directory / f"{name}.py"
        if not source.exists():  # mypyc's shared runtime library has no source of its own
            continue
        if not pure and record.get(name) == hashlib.sha256(source.read_bytes()).hexdigest():
            continue
        spec = importlib.util.spec_from_file_location(f"{package}.{name}", source)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module
        spec.loader.exec_module(module)
        stale.append(name)
        if pure:
            continue
        warnings.warn(
            f"{package}.{name}: its compiled build is older than its source, so the source runs "
            "(python scripts/compile_engines.py rebuilds it)",
            stacklevel=2,
        )
    return stale


def is_compiled(module: object) -> bool:
    """Whether ``module`` was loaded from a compiled extension."""
    return str(getattr(module, "__file__", "")).endswith(tuple(EXTENSION_SUFFIXES))


def compiled_modules(package: str = "parlour.games") -> list[str]:
    """The imported modules of ``package`` that run compiled (for the server's start-up line)."""
    prefix = f"{package}."
    loaded = list(sys.modules.items())
    ours = [(name[len(prefix) :], module) for name, module in loaded if name.startswith(prefix)]
    # ``<name>__mypyc`` is mypyc's runtime library for the extension, not a module of ours.
    return sorted(name for name, module in ours if is_compiled(module) and not name.endswith("__mypyc"))
