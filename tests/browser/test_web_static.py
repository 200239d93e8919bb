"""The client's static files: no markup from strings, no third-party code, every module reachable."""

from __future__ import annotations

import re
from pathlib import Path

WEB = Path(__file__).resolve().parents[2] / "parlour" / "web"
MODULES = sorted(WEB.glob("*.js"))
HTML_SINKS = ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function")


def test_no_html_from_strings():
    """Names and chat can only reach the page as text: nothing in the client parses strings as HTML."""
    for module in MODULES:
        source = module.read_text()
        for sink in HTML_SINKS:
            assert sink not in source, f"{module.name} uses {sink}"


def test_imports_are_local_and_resolve():
    """No third-party code and no build step: every import is a sibling module that exists."""
    for module in MODULES:
        for target in re.findall(r'^import .* from "([^"]+)";$', module.read_text(), re.M):
            assert target.startswith("./"), f"{module.name} imports {target}"
            assert (WEB / target[2:]).is_file(), f"{module.name} imports missing {target}"
    html = (WEB / "index.html").read_text()
    for ref in re.findall(r'(?:src|href)="/([^"]+)"', html):
        assert (WEB / ref).is_file(), f"index.html links missing /{ref}"
