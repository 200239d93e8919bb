"""Browser cost of a Dots & Boxes move (not a test): ``python bench/web_dots.py [--sizes 10 50]``.

Starts ``parlour serve`` on a free port, opens two players' pages in headless Chromium (Debian's,
``scripts/install-chromium.sh``), creates a room through the UI for each board size (dots per side)
and plays ``--moves`` moves by dispatching a click on a free line of whoever is on turn. Per move it
reports, for the first player's page: click → line drawn on screen (ms of wall time, polled every
animation frame, so up to one frame late) and Chromium's own per-move time in script, style
recalculation, layout and the whole task (CDP ``Performance.getMetrics``, summed over the moves).
There is no peer to compare with: these are the figures for docs/benchmarks.md, "Web client".
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "browser"))
sys.path.insert(0, str(ROOT))

from browser_helpers import create_room, join_room, start_game  # noqa: E402
from conftest import CHROMIUM, CHROMIUM_ARGS, SERVER_ENV  # noqa: E402

from tests.ports import free_port  # noqa: E402

METRICS = ("ScriptDuration", "RecalcStyleDuration", "LayoutDuration", "TaskDuration")
CLICK_FREE_LINE = """() => document.querySelector('.dots-board.mine g.free')
    .dispatchEvent(new PointerEvent('pointerup', {bubbles: true, pointerType: 'mouse'}))"""


def start_server(data_dir: str) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "parlour", "serve", "--port", str(port), "--data-dir", data_dir],
        env={**os.environ, **SERVER_ENV},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    base = f"http://127.0.0.1:{port}"
    for _ in range(400):
        try:
            with urllib.request.urlopen(base + "/healthz", timeout=1):
                return proc, base
        except OSError:
            time.sleep(0.05)
    proc.kill()
    raise RuntimeError("parlour serve did not start")


def measure(browser, base: str, size: int, moves: int) -> dict[str, float]:
    pages = []
    for _ in range(2):
        context = browser.new_context(
            viewport={"width": 1280, "height": 800}, reduced_motion="reduce", bypass_csp=True
        )
        page = context.new_page()
        page.goto(base + "/")
        pages.append(page)
    ada, bo = pages
    code = create_room(ada, "Ada", "dots", {"width": size, "height": size}, capacity=2)
    join_room(bo, "Bo", code)
    start_game(ada, [ada, bo])
    ada.locator('[data-testid="dots-board"]').wait_for()
    cdp = ada.context.new_cdp_session(ada)
    cdp.send("Performance.enable")

    def metrics() -> dict[str, float]:
        values = {m["name"]: m["value"] for m in cdp.send("Performance.getMetrics")["metrics"]}
        return {name: values[name] for name in METRICS}

    before = metrics()
    latencies = []
    for _ in range(moves):
        page = ada if ada.locator(".dots-board.mine").count() else bo
        drawn = page.locator("line.drawn").count()
        start = time.perf_counter()
        page.evaluate(CLICK_FREE_LINE)
        more = f"() => document.querySelectorAll('line.drawn').length > {drawn}"
        page.wait_for_function(more, polling="raf")
        latencies.append((time.perf_counter() - start) * 1000)
        # Both pages have drawn it before the next click.
        for other in pages:
            other.wait_for_function(more)
    after = metrics()
    for page in pages:
        page.context.close()
    out = {f"{name} ms/move": (after[name] - before[name]) * 1000 / moves for name in METRICS}
    out["click→drawn median ms"] = statistics.median(latencies)
    out["click→drawn max ms"] = max(latencies)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10, 30, 50], help="dots per side")
    parser.add_argument("--moves", type=int, default=20)
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as data_dir, sync_playwright() as pw:
        server, base = start_server(data_dir)
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            rows = {size: measure(browser, base, size, args.moves) for size in args.sizes}
        finally:
            browser.close()
            server.terminate()
            server.wait(10)
    heads = list(next(iter(rows.values())))
    print(f"{args.moves} moves per board, first player's page, headless Chromium")
    print("| board | " + " | ".join(heads) + " |")
    print("|---|" + "---|" * len(heads))
    for size, row in rows.items():
        print(f"| {size}×{size} dots | " + " | ".join(f"{row[h]:.1f}" for h in heads) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
