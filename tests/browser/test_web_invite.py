"""Invites: the server hands out the link (``--public-url`` as its base), a QR code of it that decodes
to the same link, and says so when only this computer can join."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from browser_helpers import create_room, join_room, shots
from conftest import Server

from parlour.net.invite import lan_addresses

pytestmark = pytest.mark.browser
zxingcpp = pytest.importorskip("zxingcpp")
numpy = pytest.importorskip("numpy")

PUBLIC = "https://cards.example.org"
PIXELS = """async (img) => {
    await img.decode();
    const c = document.createElement("canvas");
    c.width = img.naturalWidth; c.height = img.naturalHeight;
    const g = c.getContext("2d");
    g.fillStyle = "#fff"; g.fillRect(0, 0, c.width, c.height);
    g.drawImage(img, 0, 0);
    const d = g.getImageData(0, 0, c.width, c.height).data;
    const grey = []; for (let i = 0; i < d.length; i += 4) grey.push(d[i]);
    return {w: c.width, h: c.height, grey};
}"""


@pytest.fixture
def public_server(tmp_path, monkeypatch) -> Iterator[Server]:
    monkeypatch.setenv("PARLOUR_PUBLIC_URL", PUBLIC + "/")
    proc = Server(tmp_path).start()
    yield proc
    proc.stop()


@pytest.fixture
def lan_server(tmp_path) -> Iterator[Server]:
    proc = Server(tmp_path, host="0.0.0.0").start()
    yield proc
    proc.stop()


def decode_qr(page) -> str:
    image = page.evaluate(PIXELS, page.locator('[data-testid="qr"]').element_handle())
    grey = numpy.array(image["grey"], dtype=numpy.uint8).reshape(image["h"], image["w"])
    found = zxingcpp.read_barcodes(grey)
    assert found, "no QR code found in the image"
    return found[0].text


def test_qr_code_decodes_to_the_public_invite_link(open_page, public_server):
    ada = open_page(base=public_server.base)
    code = create_room(ada, "Ada", "uno")
    url = ada.locator('[data-testid="invite-url"]')
    url.wait_for()
    assert url.inner_text() == f"{PUBLIC}/r/{code}"
    assert decode_qr(ada) == f"{PUBLIC}/r/{code}"
    assert ada.locator('[data-testid="local-only"]').count() == 0
    shots(ada, "waiting-room-invite")


def test_loopback_server_says_only_this_computer_can_join(open_page, server):
    ada = open_page()
    code = create_room(ada, "Ada", "dots")
    notice = ada.locator('[data-testid="local-only"]')
    notice.wait_for()
    assert notice.inner_text().startswith("Only this computer can join: start the server with --host 0.0.0.0")
    # A guest is told why a friend elsewhere cannot come in, not how to restart a server that is not theirs.
    bo = open_page(f"/r/{code}")
    join_room(bo, "Bo", code)
    said = bo.locator('[data-testid="local-only"]')
    said.wait_for()
    assert said.inner_text() == "Only this computer can join this server."
    shots(bo, "waiting-room-local-only-guest")
    assert decode_qr(ada) == f"{server}/r/{code}"
    # Link previews and a favicon.
    assert ada.locator('meta[property="og:title"]').count() == 1
    icon = ada.locator('link[rel="icon"]').get_attribute("href")
    assert ada.request.get(server + icon).headers["content-type"].startswith("image/svg+xml")


def test_server_on_all_interfaces_invites_by_its_lan_address(open_page, lan_server):
    """Opened on this very machine, the room's link must use an address a friend can reach."""
    lan = lan_addresses()
    if not lan:
        pytest.skip("this machine has no network address other than loopback")
    ada = open_page(base=lan_server.base)
    code = create_room(ada, "Ada", "uno")
    url = ada.locator('[data-testid="invite-url"]')
    url.wait_for()
    expected = f"http://{lan[0]}:{lan_server.port}/r/{code}"
    assert url.inner_text() == expected
    assert decode_qr(ada) == expected
    assert ada.locator('[data-testid="local-only"]').count() == 0
