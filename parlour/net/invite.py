"""Invite links: the address a friend can open, its QR code, and where this server can be reached.

The base of every link is ``--public-url`` (``PARLOUR_PUBLIC_URL``) when set. Otherwise a server
bound to all interfaces offers its LAN addresses (a link to ``127.0.0.1`` opens nothing on a
friend's phone), and a server bound to the loopback interface says that only this computer can join.
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Awaitable, Callable
from io import BytesIO
from typing import Any

import segno
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from parlour.config import Config
from parlour.net.limits import client_key
from parlour.rooms.commands import CommandError
from parlour.rooms.manager import InviteFacts
from parlour.rooms.validate import normalize_code

ALL_INTERFACES = ("0.0.0.0", "::", "")


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def lan_addresses() -> list[str]:
    """This machine's IPv4 addresses other than loopback, the one with the default route first."""
    found: list[str] = []
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("192.0.2.1", 9))  # a documentation address: no packet is sent for UDP connect
            found.append(probe.getsockname()[0])
        except OSError:
            pass
    try:
        infos = socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET)
    except OSError:
        infos = []
    for info in infos:
        address = str(info[4][0])
        if address not in found:
            found.append(address)
    return [a for a in found if not is_loopback(a) and a != "0.0.0.0"]


def lan_urls(config: Config) -> list[str]:
    """``http://<address>:<port>`` for every LAN address, when the server listens on all interfaces."""
    if config.host not in ALL_INTERFACES:
        return []
    return [f"http://{address}:{config.port}" for address in lan_addresses()]


def base_url(config: Config, request: Request) -> str:
    """Where links point: the public URL, else a LAN address when the page was opened on this very
    machine (its ``localhost`` means nothing to a friend), else the address the page was opened at."""
    if config.public_url:
        return config.public_url
    opened = f"{request.url.scheme}://{request.url.netloc}"
    if is_loopback(request.url.hostname or ""):
        lan = lan_urls(config)
        if lan:
            return lan[0]
    return opened


def links(config: Config, request: Request, code: str) -> dict[str, Any]:
    """What the waiting room shows to invite people to room ``code``."""
    base = base_url(config, request)
    return {
        "code": code,
        "url": f"{base}/r/{code}",
        "qr": f"/api/invite/{code}/qr.svg",
        "lan": [] if config.public_url else [f"{u}/r/{code}" for u in lan_urls(config)],
        "local_only": not config.public_url and is_loopback(config.host),
    }


def qr_svg(text: str) -> bytes:
    """The QR code of ``text`` as a standalone SVG (segno), dark on white with the quiet zone."""
    out = BytesIO()
    segno.make(text, error="m").save(out, kind="svg", scale=6, border=4, dark="#000", light="#fff")
    return out.getvalue()


NOT_FOUND = {"error": "room_not_found", "message": "No room with that code."}
GUESSING = {"error": "too_many_guesses", "message": "Too many unknown room codes; wait a minute."}
TOO_LONG = {"error": "link_too_long", "message": "This address is too long for a QR code."}


def routes_for(config: Config, room_facts: Callable[[str], Awaitable[InviteFacts | None]]) -> tuple[Any, Any]:
    """The two invite endpoints; ``room_facts`` is the manager's ``invite_facts``: what the link's page
    says of an open room, or None (a room on another node of a cluster counts: the page asks whichever
    node the link reached).

    Whether a code exists is what a private room's secrecy rests on (docs/reliability.md), so these
    answer under the same per-address guess limit as ``join``: an address that named too many unknown
    codes gets 429 for every code, existing or not, until its misses refill."""

    async def _room(request: Request) -> tuple[str, InviteFacts] | Response:
        limits = getattr(request.app.state, "limits", None)
        address = client_key(request.scope)
        if limits is not None and limits.guessing(address):
            return JSONResponse(GUESSING, 429)
        try:
            code = normalize_code(request.path_params["code"])
        except CommandError:
            code = ""
        facts = await room_facts(code) if code else None
        if facts is not None:
            return code, facts
        if limits is not None:
            limits.code_miss(address)
        return JSONResponse(NOT_FOUND, 404)

    async def invite(request: Request) -> Response:
        found = await _room(request)
        if isinstance(found, Response):
            return found
        code, facts = found
        return JSONResponse(links(config, request, code) | facts, headers={"Cache-Control": "no-store"})

    async def qr(request: Request) -> Response:
        found = await _room(request)
        if isinstance(found, Response):
            return found
        code = found[0]
        try:  # the link holds the Host the page was opened at, which a client can make very long
            svg = qr_svg(links(config, request, code)["url"])
        except segno.DataOverflowError:
            return JSONResponse(TOO_LONG, 400)
        return Response(svg, media_type="image/svg+xml", headers={"Cache-Control": "no-store"})

    return invite, qr
