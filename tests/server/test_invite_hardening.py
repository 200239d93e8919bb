"""The invite endpoints under hostile requests (issue 16, beyond the list): they must not tell a
guesser which codes exist faster than ``join`` does, and a made-up ``Host`` must not break them."""

from __future__ import annotations

import http.client
import json
from typing import Any

from tests.server.client import Client


def _get(server: Any, path: str, host: str | None = None) -> tuple[int, bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    conn.request("GET", path, headers={"Host": host} if host else {})
    reply = conn.getresponse()
    return reply.status, reply.read()


async def test_invite_lookups_count_as_code_guesses(server_factory: Any) -> None:
    """``/api/invite/<code>`` answered 200 for any existing room and 404 otherwise, with no limit: an
    oracle for private rooms' codes beside the limited ``join``. Now every unknown code is a miss of
    the address, and past the limit every code is 429, the real one too, on both endpoints."""
    server = server_factory({"PARLOUR_CODE_MISSES_PER_IP_PER_MINUTE": "3"})
    host = await Client.open(server.ws, "Ada")
    code = (await host.ok("create_room", game="dots", public=False))["code"]
    assert _get(server, f"/api/invite/{code}")[0] == 200
    assert [_get(server, f"/api/invite/{guess}")[0] for guess in ("ZZZZZZZZ", "YYYYYYYY", "bad%20code!")] == [
        404,
        404,
        404,
    ]
    for path in (f"/api/invite/{code}", f"/api/invite/{code}/qr.svg", "/api/invite/XXXXXXXX"):
        status, body = _get(server, path)
        assert status == 429 and json.loads(body)["error"] == "too_many_guesses", (path, status)
    reply = await host.request("join", code="WWWWWWWW")  # the same allowance as join's
    assert reply["code"] == "too_many_guesses"
    await host.close()


async def test_a_host_too_long_for_a_qr_code_is_refused_not_raised(server: Any) -> None:
    """The link in the QR code holds the ``Host`` the request came with; one too long to encode made
    segno raise (HTTP 500 and a traceback)."""
    host = await Client.open(server.ws, "Ada")
    code = (await host.ok("create_room", game="dots"))["code"]
    status, body = _get(server, f"/api/invite/{code}/qr.svg", host="a" * 4000)
    assert status == 400 and json.loads(body)["error"] == "link_too_long"
    status, body = _get(server, f"/api/invite/{code}/qr.svg")
    assert status == 200 and body.startswith(b"<?xml")
    await host.close()
    assert "Traceback" not in server.log_path.read_text()
