"""net/handoff.py's routing decision and the request it passes on, without processes: which scopes are
handed to a sibling, and that the rebuilt upgrade request is the client's, marked so it is never handed
again (the cluster tests hand real sockets between real workers: tests/cluster/test_handoff.py)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from parlour.net.handoff import HANDED, Handoff
from parlour.net.websocket_protocol import HAND_OVER


def _scope(query: bytes, passed: list[int], extra: list[tuple[bytes, bytes]] | None = None) -> dict:
    def hand_over(send) -> bool:
        if send(99, b""):  # the descriptor the transport would give, no bytes held
            passed.append(99)
            return True
        return False

    headers = [(b"host", b"example.org"), (b"sec-websocket-key", b"dGhlIHNhbXBsZSBub25jZQ==")]
    return {
        "raw_path": b"/api/ws",
        "query_string": query,
        "headers": headers + (extra or []),
        "extensions": {HAND_OVER: hand_over},
    }


async def test_only_a_room_owned_by_a_live_sibling_is_handed_over(tmp_path: Path) -> None:
    handoff = Handoff(str(tmp_path), "me", lambda: None)
    (tmp_path / "sib.sock").touch()  # a sibling's inbox exists (no one reads it: sending must fail)
    asked: list[str] = []

    async def owner_of(code: str) -> str | None:
        asked.append(code)
        return {"ABCDE": "sib", "MINE2": "me", "FAR22": "elsewhere"}.get(code)

    passed: list[int] = []
    # No hint, a malformed hint, already handed once: not even looked up.
    assert not await handoff.route(_scope(b"", passed), owner_of)
    assert not await handoff.route(_scope(b"room=a%20b", passed), owner_of)
    assert not await handoff.route(_scope(b"room=abcde", passed, [(HANDED, b"1")]), owner_of)
    assert asked == []
    # Ours, nobody's, another machine's: looked up, kept.
    for code in (b"MINE2", b"ZZZZZ", b"FAR22"):
        assert not await handoff.route(_scope(b"room=" + code, passed), owner_of)
    # A sibling's, but its inbox is not a live socket: the send fails and the connection stays.
    assert not await handoff.route(_scope(b"room=abcde", passed), owner_of)
    assert asked == ["MINE2", "ZZZZZ", "FAR22", "ABCDE"] and passed == []
    handoff.close()


async def test_a_live_sibling_gets_the_socket_the_marked_request_and_what_followed(tmp_path: Path) -> None:
    import socket

    sibling = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sibling.bind(str(tmp_path / "sib.sock"))
    handoff = Handoff(str(tmp_path), "me", lambda: None)
    a, b = socket.socketpair()
    passed: list[int] = []
    scope = _scope(b"room=abcde&x=1", passed)
    early = b"\x81\x85frame"  # what the client wrote after its request, read here already
    hand_over = lambda send: send(a.fileno(), early) and passed.append(a.fileno()) is None  # noqa: E731
    scope["extensions"][HAND_OVER] = hand_over

    async def owner_of(code: str) -> str | None:
        return "sib" if code == "ABCDE" else None

    assert await handoff.route(scope, owner_of)
    request, fds, _, _ = await asyncio.to_thread(socket.recv_fds, sibling, 65536, 4)
    assert request == (
        b"GET /api/ws?room=abcde&x=1 HTTP/1.1\r\nhost: example.org\r\n"
        b"sec-websocket-key: dGhlIHNhbXBsZSBub25jZQ==\r\n" + HANDED + b": 1\r\n\r\n" + early
    )
    assert len(fds) == 1 and passed == [a.fileno()]
    with socket.socket(fileno=fds[0]) as received:  # the same socket: what goes in comes out at b
        received.sendall(b"ping")
        assert b.recv(4) == b"ping"
    handoff.close()
    for s in (a, b, sibling):
        s.close()
