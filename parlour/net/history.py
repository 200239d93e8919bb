"""The history API: finished games as JSON (``GET /api/games/<id>``), for replays and export.

A game of an unlisted or password-protected room is shown only to its players; to anyone else it
does not exist (404, the same answer as an unknown id), so an id reveals nothing about its room.
"""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from parlour.dumps import json_bytes
from parlour.rooms import Manager
from parlour.rooms.game_record import public_game
from parlour.store import GameRecord


def _json(data: Any, status: int = 200, headers: dict[str, str] | None = None) -> Response:
    return Response(json_bytes(data), status, headers, media_type="application/json")


def _not_found(what: str) -> Response:
    return _json({"error": "not_found", "message": f"no such {what}"}, 404)


PROFILE_HEADER = "x-parlour-profile"


def visible(record: GameRecord, viewer: str | None) -> bool:
    """Anyone sees a listed room's game; a private one only its players (by their profile)."""
    if not record.private:
        return True
    return viewer is not None and any(p.get("profile") == viewer for p in record.players)


async def viewer(manager: Manager, request: Request) -> str | None:
    """The profile the caller proved with ``X-Parlour-Profile: <id>:<secret>``, if any."""
    profile_id, _, secret = request.headers.get(PROFILE_HEADER, "").partition(":")
    if not profile_id or not secret or len(profile_id) > 64 or len(secret) > 64:
        return None
    found = await manager.profile(profile_id, secret)
    return None if found is None else found.id


def routes(manager: Manager) -> list[BaseRoute]:
    """The history endpoints, served from ``manager.store``."""

    async def game(request: Request) -> Response:
        game_id = request.path_params["game_id"]
        record = await manager.store.game(game_id)
        if record is None or not visible(record, await viewer(manager, request)):
            return _not_found("game")
        headers = None
        if request.query_params.get("download") not in (None, "", "0"):
            name = f"parlour-{record.game}-{record.id}.json"
            headers = {"Content-Disposition": f'attachment; filename="{name}"'}
        return _json(public_game(record), headers=headers)

    return [Route("/api/games/{game_id}", game)]
