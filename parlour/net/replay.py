"""``GET /api/games/<id>/replay``: a finished game's steps, a chunk at a time, as one viewer saw them.

The replay core (``parlour.rooms.replay``) rebuilds the game from its stored record; this module finds
the record, decides who may see it and which seat's view to serve, and bounds each request to
``MAX_STEPS_PER_REQUEST`` steps. Rebuilding is CPU work, so it runs in a worker thread (one at a
time: a replay's cursor is not shared between threads), never on the event loop.

Who may watch is the history API's rule (``net.history.visible``): a game of a listed room without a
password, anyone; a private one only its players, who prove their profile with ``X-Parlour-Profile``.
Everyone else gets the same 404 as for an unknown id, so a private game's id says nothing.
"""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Any

from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import BaseRoute, Route

from parlour.dumps import json_bytes
from parlour.net import history
from parlour.rooms import Manager
from parlour.rooms.game_record import public_players
from parlour.rooms.replay import ALL, MAX_STEPS_PER_REQUEST, Replay, ReplayError, Replays
from parlour.store import GameRecord

PAGE = Path(__file__).resolve().parent.parent / "web" / "replay.html"
DEFAULT_COUNT = 20
SPECTATOR = "spectator"


class Refused(Exception):
    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status, self.code, self.message = status, code, message

    def response(self) -> Response:
        return JSONResponse({"error": self.code, "message": self.message}, status_code=self.status)


NOT_FOUND = Refused(404, "not_found", "no finished game with that id")


class ReplayService:
    """Finds records, checks who may see them, and serves their steps from a shared ``Replays``."""

    def __init__(self, manager: Manager, cache_size: int = 8) -> None:
        self.manager = manager
        self.replays = Replays(cache_size)
        self._lock = threading.Lock()

    async def serve(self, request: Request) -> Response:
        try:
            body = await self._serve(request)
            return Response(body, media_type="application/json", headers={"Cache-Control": "no-cache"})
        except Refused as refused:
            return refused.response()

    async def _serve(self, request: Request) -> bytes:
        record = await self.manager.store.game(request.path_params["game_id"])
        profile = await history.viewer(self.manager, request)
        if record is None or not history.visible(record, profile):
            raise NOT_FOUND
        mine = next((p["seat"] for p in record.players if profile and p.get("profile") == profile), None)
        query = request.query_params
        first = _int(query.get("step", "0"), "step")
        count = min(MAX_STEPS_PER_REQUEST, max(1, _int(query.get("count", str(DEFAULT_COUNT)), "count")))
        viewer = _viewer(query.get("seat"), mine, len(record.players))
        with_log = query.get("log") in ("1", "true")
        return await asyncio.to_thread(self._read, record, first, count, viewer, mine, with_log)

    def _read(
        self,
        record: GameRecord,
        first: int,
        count: int,
        viewer: int | str | None,
        mine: int | None,
        log: bool,
    ) -> bytes:
        """The answer, encoded here in the worker thread (a chunk of big views is most of the work)."""
        with self._lock:
            try:
                replay = self.replays.get(record)
            except ReplayError as exc:
                raise Refused(409, "not_replayable", str(exc)) from exc
            if not 0 <= first < replay.total:
                raise Refused(400, "bad_step", f"step must be between 0 and {replay.total - 1}")
            steps = [s.json() for s in replay.read(first, count, viewer)]
            return json_bytes(_answer(record, replay, viewer, mine, steps, log))


def _answer(
    record: GameRecord,
    replay: Replay,
    viewer: int | str | None,
    mine: int | None,
    steps: list[dict[str, Any]],
    log: bool,
) -> dict[str, Any]:
    out: dict[str, Any] = {
        "id": record.id,
        "game": record.game,
        "settings": record.settings,
        "players": public_players(record),
        "result": record.result,
        "started_at": record.started_at,
        "ended_at": record.ended_at,
        "total": replay.total,
        "secret_fields": list(replay.engine.secret_fields),
        "seat": SPECTATOR if viewer is None else viewer,
        "you": mine,
        "steps": steps,
    }
    if log:
        out["log"] = replay.log
    return out


def _int(raw: str, name: str) -> int:
    if not (raw.isascii() and raw.removeprefix("-").isdigit()):  # not "５", "1_0", " 5"
        raise Refused(400, f"bad_{name}", f"{name} must be an integer")
    return int(raw)


def _viewer(raw: str | None, mine: int | None, seats: int) -> int | str | None:
    """Whose view: a seat, every hand (``all``) or a spectator's; by default the viewer's own seat if
    they played, else seat 0."""
    if raw is None or raw == "":
        return 0 if mine is None else mine
    if raw == ALL:
        return ALL
    if raw == SPECTATOR:
        return None
    seat = _int(raw, "seat")
    if not 0 <= seat < seats:
        raise Refused(400, "bad_seat", f"seat must be between 0 and {seats - 1}, all or spectator")
    return seat


async def page(request: Request) -> Response:
    """``/g/<id>``: the replay page; it reads the id from the path and asks the API for the rest."""
    return FileResponse(PAGE, headers={"Cache-Control": "no-cache"})


def routes(manager: Manager) -> list[BaseRoute]:
    """The replay API and page (``net/app.py`` mounts them)."""
    service = ReplayService(manager)
    return [Route("/api/games/{game_id}/replay", service.serve), Route("/g/{game_id}", page)]
