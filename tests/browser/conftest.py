"""Browser tests: a real ``parlour serve`` process and Debian's headless Chromium via Playwright.

Each xdist worker starts its own server on a free port with a temporary data directory, and one
Chromium; every test opens as many isolated browser contexts (players) as it needs. Screenshots go
to ``artifacts/screenshots/`` (git-ignored).
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from browser_helpers import DESKTOP

from tests.ports import free_port

# Players click fast in tests; keep the rate limit out of the way and the log short.
SERVER_ENV = {
    "PARLOUR_RATE_BURST": "200",
    "PARLOUR_RATE_PER_SECOND": "100",
    "PARLOUR_LOG_LEVEL": "warning",
    # Every browser comes from 127.0.0.1: lift the per-address limits.
    "PARLOUR_CONNECTIONS_PER_IP": "100000",
    "PARLOUR_SESSIONS_PER_IP_PER_MINUTE": "1000000",
    "PARLOUR_ROOMS_PER_IP": "100000",
}
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def _parlour() -> list[str]:
    script = Path(sys.executable).with_name("parlour")
    return [str(script)] if script.exists() else [sys.executable, "-m", "parlour.cli"]


class Server:
    """One ``parlour serve`` subprocess on a free port; ``kill`` is ``kill -9``, ``start`` again recovers.
    ``env`` adds to (or overrides) ``SERVER_ENV``."""

    def __init__(self, data: Path, host: str = "127.0.0.1", env: dict[str, str] | None = None) -> None:
        self.data, self.host, self.env = data, host, {**SERVER_ENV, **(env or {})}
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> Server:
        with (self.data / "server.log").open("ab") as log:
            self.proc = subprocess.Popen(
                [
                    *_parlour(),
                    "serve",
                    "--host",
                    self.host,
                    "--port",
                    str(self.port),
                    "--data-dir",
                    str(self.data),
                ],
                stdout=log,
                stderr=subprocess.STDOUT,
                env={**os.environ, **self.env},
            )
        deadline = time.monotonic() + 20
        while True:
            try:
                with urllib.request.urlopen(f"{self.base}/healthz", timeout=1):
                    return self
            except OSError:
                if self.proc.poll() is not None or time.monotonic() > deadline:
                    self.proc.kill()
                    raise RuntimeError(
                        f"parlour serve did not start: {(self.data / 'server.log').read_text()}"
                    ) from None
                time.sleep(0.1)

    def kill(self) -> None:
        self.proc.kill()
        self.proc.wait()

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.kill()


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """Base URL of a ``parlour serve`` process private to this worker."""
    proc = Server(tmp_path_factory.mktemp("parlour-data")).start()
    yield proc.base
    proc.stop()


@pytest.fixture
def own_server(tmp_path: Path) -> Iterator[Server]:
    """A server of this test's own, which it may kill and restart."""
    proc = Server(tmp_path).start()
    yield proc
    proc.stop()


@pytest.fixture(scope="session")
def browser() -> Iterator[object]:
    sync_api = pytest.importorskip("playwright.sync_api")
    if not Path(CHROMIUM).exists():
        pytest.skip("Chromium is not installed (scripts/install-chromium.sh)")
    with sync_api.sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


def _track_errors(page) -> None:
    """Collect uncaught JavaScript errors on every page a test opens (checked at teardown)."""
    page.js_errors = []
    page.on("pageerror", lambda exc: page.js_errors.append(str(exc)))


CSP_GUARD = """
(() => {
  const setAttribute = Element.prototype.setAttribute;
  Element.prototype.setAttribute = function (name, value) {
    const key = String(name).toLowerCase();
    if (key === "style" || key.startsWith("on")) {
      reportError(new Error(`the page's CSP would block the ${key} attribute on <${this.localName}>`));
    }
    return setAttribute.call(this, name, value);
  };
  new MutationObserver((changes) => {
    for (const change of changes) {
      for (const node of change.addedNodes) {
        const inline = node.localName === "style" || (node.localName === "script" && !node.src);
        if (inline) reportError(new Error(`the page's CSP would block an inline <${node.localName}>`));
      }
    }
  }).observe(document, { childList: true, subtree: true });
})();
"""
"""Tests run with the page's Content-Security-Policy bypassed (Playwright's string predicates use eval);
this reports, as a page error, what the policy would block in a real browser: a ``style`` or ``on*``
attribute set from script, an inline ``<style>`` or ``<script>`` element (CSSOM writes such as
``node.style.cssText`` and constructed style sheets are allowed)."""

CLIENT_READY = "!document.querySelector('script[src=\"/app.js\"]') || document.body?.dataset.ready"
"""The page is not Parlour's client, or the client has drawn its first screen."""


@pytest.fixture
def open_page(browser, server) -> Iterator[Callable[..., object]]:
    """``open_page(path="/", viewport=DESKTOP, base=server, init_script=None)``: a fresh visitor (own
    context and storage); ``init_script`` runs in the page before the client does."""
    contexts = []

    def _open(path: str = "/", viewport: dict[str, int] = DESKTOP, base: str = server, init_script: str = ""):
        # Playwright evaluates string predicates with eval, which the page's Content-Security-Policy
        # forbids (the client itself never evaluates strings; checked with the policy enforced).
        context = browser.new_context(viewport=viewport, reduced_motion="reduce", bypass_csp=True)
        context.set_default_timeout(10_000)
        contexts.append(context)
        context.on("page", _track_errors)
        context.add_init_script(CSP_GUARD)
        if init_script:
            context.add_init_script(init_script)
        page = context.new_page()
        page.goto(base + path)
        # The client loads the game catalog (GET /api/catalog) before it draws its first screen.
        page.wait_for_function(CLIENT_READY)
        return page

    yield _open
    for context in contexts:
        for page in context.pages:
            assert not page.js_errors, f"JavaScript errors: {page.js_errors}"
        context.close()
