"""Imports point downward only: games ← bots ← rooms ← net (store beside bots, below rooms).

``dumps`` (the JSON encoder) sits below the store, the rooms and the net; ``config`` is the net's.

Every ``parlour.<layer>`` module is parsed and each ``parlour.*`` import it makes, at module level or
inside a function, must name its own layer or one below it.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "parlour"
BELOW = {
    "games": {"games"},
    "bots": {"games", "bots"},
    "store": {"games", "store", "dumps"},
    "rooms": {"games", "bots", "store", "rooms", "dumps"},
    "net": {"games", "bots", "store", "rooms", "net", "config", "dumps"},
}


def _imports(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
        elif isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
    return {n.split(".")[1] for n in names if n.startswith("parlour.")}


@pytest.mark.parametrize("layer", sorted(BELOW))
def test_layers_import_only_downward(layer: str) -> None:
    wrong = {
        str(path.relative_to(PACKAGE.parent)): sorted(_imports(path) - BELOW[layer])
        for path in sorted((PACKAGE / layer).rglob("*.py"))
    }
    assert {k: v for k, v in wrong.items() if v} == {}
