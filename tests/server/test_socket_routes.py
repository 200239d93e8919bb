"""The app's websocket routes (``/api/ws``, ``/dots``, ``/ws``) are called without the HTTP middleware
(net/app.py, ``ParlourApp``): they still answer over real sockets, the same paths over plain HTTP still
get the security headers, and any other websocket path still takes the ordinary stack."""

from __future__ import annotations

import json
import urllib.error
import urllib.request

import pytest
import websockets

from tests.server.client import Client


@pytest.mark.parametrize("path", ["/dots", "/ws", "/api/ws"])
def test_socket_paths_over_plain_http_are_refused_with_security_headers(server, path: str) -> None:
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(server.http + path)
    assert refused.value.code in (403, 404)  # Starlette's router: a websocket route answers no HTTP
    assert refused.value.headers["X-Content-Type-Options"] == "nosniff"
    assert "frame-ancestors 'none'" in refused.value.headers["Content-Security-Policy"]


async def test_every_socket_route_answers_on_the_direct_path(server) -> None:
    native = await Client.open(server.ws, "Direct")
    try:
        assert (await native.request("ping", timeout=5))["type"] == "pong"
    finally:
        await native.close()
    async with websockets.connect(f"ws://127.0.0.1:{server.port}/dots") as dots:
        await dots.send(json.dumps({"type": "BOARD"}))
        answer = json.loads(await dots.recv())
        assert answer == {"type": "BOARD", "ok": False, "message": "Join or spectate the room first."}
    async with websockets.connect(f"ws://127.0.0.1:{server.port}/ws") as cheat:
        await cheat.send("not json")
        assert json.loads(await cheat.recv())["action"] == "join_game_error"


async def test_other_websocket_paths_take_the_router_and_are_refused(server) -> None:
    with pytest.raises(websockets.exceptions.InvalidStatus) as refused:
        async with websockets.connect(f"ws://127.0.0.1:{server.port}/api/nowhere"):
            pass
    assert refused.value.response.status_code == 403
