"""A cookie naming one browser to ``/socket.io/``, so a dropped seat goes back only to that browser.

The socket-uno tutorial's page has no token to resume with: it sends ``requestRoom(name)`` again.
A name is public, so reclaiming a seat by name alone would hand a player's seat and hand to anyone
who types it. What the unmodified page does hold is its browser's cookie jar, which sends cookies
with every Engine.IO request, the websocket upgrade included. So the Engine.IO handshake (a request
without ``sid``) that arrives without this cookie gets a fresh random one — ``HttpOnly`` (no page
script reads it), ``SameSite=Lax``, ``Path=/socket.io``, ``Secure`` over https — and the request
itself is given the cookie too, so the connection it opens is already known by it.

Used by any Engine.IO stack in front of the UNO adapters: wrap its ASGI app in ``BrowserCookie``
(or call ``issue`` on a handshake's scope), then read ``browser_of(environ)`` when a socket connects.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
import secrets
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any
from urllib.parse import parse_qs

COOKIE = "parlour_browser"
PATH = "/socket.io"
_VALUE = re.compile(r"[A-Za-z0-9_-]{22}")  # secrets.token_urlsafe(16)

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


def from_header(cookie_header: str) -> str | None:
    """This cookie's value in a ``Cookie`` header, if it is one the server could have issued."""
    for part in cookie_header.split(";"):
        name, _, value = part.strip().partition("=")
        if name == COOKIE and _VALUE.fullmatch(value):
            return value
    return None


def derive(browser: str, label: str) -> str:
    """A secret only this browser's cookie yields (HMAC-SHA256 keyed by it), for ``label``: any node
    can rebuild it from the cookie, so it is never stored."""
    digest = hmac.new(browser.encode(), label.encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def browser_of(environ: dict[str, Any]) -> str | None:
    """The browser id of an Engine.IO connection, from the WSGI-style ``environ`` it connected with."""
    return from_header(environ.get("HTTP_COOKIE", ""))


def _headers_cookie(headers: list[tuple[bytes, bytes]]) -> str | None:
    for name, value in headers:
        if name.lower() == b"cookie":
            found = from_header(value.decode("latin-1"))
            if found is not None:
                return found
    return None


def issue(scope: Scope) -> tuple[Scope, bytes | None]:
    """For an Engine.IO request: the scope to pass on and the ``Set-Cookie`` value to answer with.

    Only a handshake (no ``sid`` in the query) without a valid cookie gets one: a new random value,
    added to the scope's own ``Cookie`` header as if the browser had sent it.
    """
    headers = list(scope.get("headers", []))
    query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
    if "sid" in query or _headers_cookie(headers) is not None:
        return scope, None
    value = secrets.token_urlsafe(16)
    pair = f"{COOKIE}={value}"
    for i, (name, existing) in enumerate(headers):
        if name.lower() == b"cookie":
            headers[i] = (name, existing + b"; " + pair.encode())
            break
    else:
        headers.append((b"cookie", pair.encode()))
    secure = "; Secure" if scope.get("scheme") in ("https", "wss") else ""
    set_cookie = f"{pair}; Path={PATH}; HttpOnly; SameSite=Lax{secure}".encode()
    return {**scope, "headers": headers}, set_cookie


class BrowserCookie:
    """ASGI middleware: ``issue`` on every HTTP and websocket request, ``Set-Cookie`` on the answer."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        scope, set_cookie = issue(scope)
        if set_cookie is None:
            await self.app(scope, receive, send)
            return

        async def send_with_cookie(message: Message) -> None:
            if message["type"] in ("http.response.start", "websocket.accept"):
                message = {**message, "headers": [*message.get("headers", []), (b"set-cookie", set_cookie)]}
            await send(message)

        await self.app(scope, receive, send_with_cookie)
