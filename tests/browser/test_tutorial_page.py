"""The tutorial's socket.io 2.x page in Chromium, served from another origin, plays on Parlour.

A real browser enforces CORS: the 2.x client polls with credentials, so this fails unless Parlour
answers with the page's origin and allows credentials, then upgrades to a websocket. The browser
keeps Parlour's handshake cookie, so a reload gets the seat back; another browser typing the same
name does not.
"""

from __future__ import annotations

import functools
import shutil
import threading
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

pytestmark = pytest.mark.browser
TESTS = Path(__file__).resolve().parents[1]
CLIENT = TESTS / "adapters" / "node" / "node_modules" / "socket.io-client" / "dist" / "socket.io.js"


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def page_origin(tmp_path: Path) -> Iterator[str]:
    """A static server on its own port (another origin) with the page and the 2.x client."""
    if not CLIENT.is_file():
        pytest.fail("socket.io-client 2.5.0 is missing: run scripts/install-node-deps.sh")
    shutil.copy(Path(__file__).with_name("tutorial_page") / "index.html", tmp_path / "index.html")
    shutil.copy(CLIENT, tmp_path / "socket.io.js")
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(tmp_path)))
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


def _open(browser, url: str):
    context = browser.new_context()
    context.set_default_timeout(15_000)
    page = context.new_page()
    page.goto(url)
    return context, page


def _dealt(page) -> None:
    page.wait_for_function("seen.some(([e, d]) => e == 'responseRoom' && d[1] == 2)")
    page.wait_for_function("socket.io.engine.transport.name == 'websocket'")  # upgraded
    page.wait_for_function("seen.some(([e, d]) => e == 'countDown' && d == 0) && hand.length > 0")
    page.wait_for_function("seen.some(([e]) => e == 'sendCard')")


def test_the_tutorial_page_from_another_origin_joins_upgrades_and_draws(browser, own_server, page_origin):
    url = f"{page_origin}/index.html?server={own_server.base}&name="
    contexts, pages = zip(*(_open(browser, url + name) for name in ("Tom", "Uma")), strict=True)
    for page in pages:
        _dealt(page)
    codes = {page.evaluate("room[0]") for page in pages}
    assert len(codes) == 1  # one room for both
    page.wait_for_function("seen.some(([e]) => e == 'turnPlayer')")
    movers = [page for page in pages if page.evaluate("turn")]
    assert len(movers) == 1
    mover = movers[0]
    before = mover.evaluate("hand.length")
    mover.evaluate("clickDeck()")
    mover.wait_for_function(f"hand.length == {before + 1}")

    tom = pages[0]
    code, hand = tom.evaluate("room[0]"), tom.evaluate("hand")
    assert tom.context.cookies(own_server.base + "/socket.io/")[0]["httpOnly"]
    tom.goto("about:blank")  # Tom's tab is gone; his seat waits for the grace period
    stranger_context, stranger = _open(browser, url + "Tom")
    stranger.wait_for_function("seen.some(([e]) => e == 'responseRoom')")
    assert stranger.evaluate("room[0]") != code  # the name alone takes no seat
    tom.goto(url + "Tom")  # the same browser comes back
    tom.wait_for_function("seen.some(([e]) => e == 'haveCard')")
    assert tom.evaluate("room[0]") == code
    assert tom.evaluate("hand") == hand
    for context in (*contexts, stranger_context):
        context.close()
