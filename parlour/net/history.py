"""The history API: finished games, players' stats and leaderboards, as JSON (docs/protocol.md).

A game of an unlisted or password-protected room is shown only to its players, who prove who they
are with their guest profile (``X-Parlour-Profile: <id>:<secret>``); to anyone else it does not exist
(404, the same answer as an unknown id), so an id reveals nothing about its room.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from starlette.requests import Request
from starlette.responses import FileResponse, Response
from starlette.routing import BaseRoute, Route

from parlour.bots.catalog import CATALOG, get_game
from parlour.dumps import json_bytes
from parlour.rooms import Manager
from parlour.rooms.game_record import public_game, public_summary
from parlour.store import GameQuery, GameRecord, PlayerTotals

WEB_DIR = Path(__file__).resolve().parent.parent / "web"
PROFILE_HEADER = "x-parlour-profile"
PAGE_SIZE, PAGE_MAX = 20, 100
RECENT_GAMES = 10
LEADERBOARD_MIN_GAMES = 5
LEADERBOARD_SIZE, LEADERBOARD_MAX = 50, 200


def _json(data: Any, status: int = 200, headers: dict[str, str] | None = None) -> Response:
    return Response(json_bytes(data), status, headers, media_type="application/json")


def _error(status: int, code: str, message: str) -> Response:
    return _json({"error": code, "message": message}, status)


def _not_found(what: str) -> Response:
    return _error(404, "not_found", f"no such {what}")


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


def totals_json(totals: PlayerTotals) -> dict[str, Any]:
    """A player's totals of one game, with their win rate and the game's own rates."""
    engine = get_game(totals.game)
    # A rate of nothing (no calls made) is no rate: null, shown as "—", not 0%.
    rates: dict[str, float | None] = {
        "win_rate": round(totals.won / totals.played, 4) if totals.played else None
    }
    for key, _, numerator, denominator in engine.stat_rates:
        below = totals.stats.get(denominator, 0)
        rates[key] = round(totals.stats.get(numerator, 0) / below, 4) if below else None
    return {
        "game": totals.game,
        "played": totals.played,
        "won": totals.won,
        "stats": {key: totals.stats.get(key, 0) for key, _ in engine.stat_labels},
        "rates": rates,
    }


def labels(game: str) -> dict[str, Any]:
    """How a page names a game and its stats: ``title``, and ``labels`` of ``stats`` and ``rates`` as
    ``[key, label]`` pairs."""
    engine = get_game(game)
    return {
        "title": engine.title,
        "labels": {
            "stats": [list(pair) for pair in engine.stat_labels],
            "rates": [["win_rate", "Win rate"], *([key, label] for key, label, _, _ in engine.stat_rates)],
        },
    }


def _int_param(request: Request, name: str, default: int, high: int) -> int:
    raw = request.query_params.get(name)
    if raw is None or raw == "":
        return default
    if not (raw.isascii() and raw.isdigit()) or not 1 <= int(raw) <= high:  # not "５", "+5", " 5"
        raise ValueError(f"{name} must be a number from 1 to {high}")
    return int(raw)


def routes(manager: Manager) -> list[BaseRoute]:
    """The history endpoints, served from ``manager.store``."""

    async def game(request: Request) -> Response:
        record = await manager.store.game(request.path_params["game_id"])
        if record is None or not visible(record, await viewer(manager, request)):
            return _not_found("game")
        headers = None
        if request.query_params.get("download") not in (None, "", "0"):
            name = f"parlour-{record.game}-{record.id}.json"
            headers = {"Content-Disposition": f'attachment; filename="{name}"'}
        return _json(public_game(record), headers=headers)

    async def games(request: Request) -> Response:
        params = request.query_params
        try:
            limit = _int_param(request, "limit", PAGE_SIZE, PAGE_MAX)
            query = GameQuery(
                viewer=await viewer(manager, request),
                player=params.get("player") or None,
                game=params.get("game") or None,
                room=(params.get("room") or "").strip().upper() or None,
                before=params.get("before") or None,
                limit=limit,
            )
            page, cursor = await manager.store.list_games(query)
        except ValueError as exc:
            return _error(400, "bad_request", str(exc))
        return _json({"games": [public_summary(r) for r in page], "next": cursor})

    async def player(request: Request) -> Response:
        profile_id = request.path_params["profile_id"]
        if len(profile_id) > 64:
            return _not_found("player")
        profile = await manager.store.find_profile(profile_id)
        totals = await manager.store.player_totals(profile_id)
        if profile is None and not totals:
            return _not_found("player")
        name = profile.name if profile is not None else totals[0].name
        recent, _ = await manager.store.list_games(
            GameQuery(viewer=await viewer(manager, request), player=profile_id, limit=RECENT_GAMES)
        )
        body: dict[str, Any] = {"id": profile_id, "name": name}
        if totals and totals[0].bot:
            body["bot"] = totals[0].bot
        body["games"] = [{**totals_json(t), **labels(t.game)} for t in totals]
        body["recent"] = [public_summary(r) for r in recent]
        return _json(body)

    async def leaderboard(request: Request) -> Response:
        game_name = request.path_params["game"]
        if game_name not in CATALOG:
            return _not_found("game")
        try:
            limit = _int_param(request, "limit", LEADERBOARD_SIZE, LEADERBOARD_MAX)
        except ValueError as exc:
            return _error(400, "bad_request", str(exc))
        board = await manager.store.leaderboard(game_name, LEADERBOARD_MIN_GAMES, limit)
        rows = []
        for rank, totals in enumerate(board, 1):
            row = {"rank": rank, "profile": totals.profile, "name": totals.name, **totals_json(totals)}
            if totals.bot:
                row["bot"] = totals.bot
            rows.append(row)
        return _json(
            {"game": game_name, **labels(game_name), "min_games": LEADERBOARD_MIN_GAMES, "players": rows}
        )

    def page(name: str) -> Any:
        async def serve(request: Request) -> Response:
            return FileResponse(WEB_DIR / name, headers={"Cache-Control": "no-cache"})

        return serve

    return [
        Route("/p/{profile_id}", page("profile.html")),
        Route("/leaderboard", page("leaderboard.html")),
        Route("/leaderboard/{game}", page("leaderboard.html")),
        Route("/api/games", games),
        Route("/api/games/{game_id}", game),
        Route("/api/players/{profile_id}", player),
        Route("/api/leaderboard/{game}", leaderboard),
    ]
