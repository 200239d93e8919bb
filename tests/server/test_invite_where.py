"""Where friends can reach the server: ``parlour serve`` says so at start, and the invite a room offers
agrees (a public URL; else, bound to all interfaces, the LAN addresses; bound to loopback, a warning).

Servers in tests listen on 127.0.0.1 only, so the all-interfaces case runs the start-up message and
the invite builder in process with that configuration instead of binding 0.0.0.0."""

from __future__ import annotations

import pytest
from starlette.requests import Request

from parlour.cli import _say_where
from parlour.config import Config
from parlour.net.invite import lan_addresses, links
from tests.server.conftest import ServerFactory


def _request(host: str) -> Request:
    """The request a page opened at ``http://<host>/`` makes for its invite."""
    return Request(
        {
            "type": "http",
            "method": "GET",
            "scheme": "http",
            "server": (host.split(":")[0], int(host.split(":")[1])),
            "path": "/api/invite/ABCDE",
            "query_string": b"",
            "headers": [(b"host", host.encode())],
        }
    )


def _printed(proc) -> list[str]:
    return [line for line in proc.log_path.read_text().splitlines() if line.startswith("Parlour:")]


def test_a_loopback_server_says_only_this_computer_can_join(server_factory: ServerFactory) -> None:
    proc = server_factory()
    assert _printed(proc) == [
        f"Parlour: http://127.0.0.1:{proc.port} — only this computer can join; "
        "start with --host 0.0.0.0 to invite others on your network"
    ]


def test_a_public_url_server_says_where_links_point(server_factory: ServerFactory) -> None:
    proc = server_factory({"PARLOUR_PUBLIC_URL": "https://cards.example.org"})
    assert _printed(proc) == ["Parlour: invite links point at https://cards.example.org"]


def test_bound_to_all_interfaces_the_lan_urls_are_printed_and_offered(
    capsys: pytest.CaptureFixture[str],
) -> None:
    addresses = lan_addresses()
    if not addresses:
        pytest.skip("this machine has no LAN address")
    config = Config.from_env({}, host="0.0.0.0", port=8123)
    _say_where(config)
    assert capsys.readouterr().out.splitlines() == [
        f"Parlour: friends on your network can join at http://{a}:8123" for a in addresses
    ]
    # Opened on the server's own machine (localhost means nothing to a friend): the LAN address.
    invite = links(config, _request("127.0.0.1:8123"), "ABCDE")
    assert invite["url"] == f"http://{addresses[0]}:8123/r/ABCDE"
    assert invite["lan"] == [f"http://{a}:8123/r/ABCDE" for a in addresses]
    assert invite["local_only"] is False
    # Opened at a LAN address: that one.
    assert (
        links(config, _request(f"{addresses[0]}:8123"), "ABCDE")["url"]
        == f"http://{addresses[0]}:8123/r/ABCDE"
    )
