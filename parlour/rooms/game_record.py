"""A finished game as anyone may see it: its players and the game's steps, read from its command log.

The log a ``GameRecord`` keeps is the room's: commands by session (joins, chat, disconnects, host
controls, timers). A replay needs only what changed the game — each seat's action, each turn that
ran out, each seat that left — so this reads those out of it, names each by its seat, and drops the
rest (chat, sessions, connections). A timed-out turn's record names no seat (the room's clock knew
it), so the game is played through its engine alongside, which also checks the log replays.
"""

from __future__ import annotations

import random
from enum import StrEnum
from typing import Any

from parlour.bots.catalog import get_game
from parlour.store import GameRecord
from parlour.store.base import bot_profile


class Step(StrEnum):
    """What a step of a game is: a seat's move, its clock running out, or its leaving."""

    ACTION = "action"
    TIMEOUT = "timeout"
    LEAVE = "leave"


def public_players(record: GameRecord) -> list[dict[str, Any]]:
    """Seat, name, colour, profile id (a bot's: its level's), bot level, whether they left (or were
    kicked) and their stats: never a session."""
    players = []
    for p in record.players:
        entry: dict[str, Any] = {"seat": p["seat"], "name": p["name"]}
        if "colour" in p:  # a record from before colours has none: its seat's then
            entry["colour"] = p["colour"]
        for key in ("bot", "profile", "left", "kicked", "stats"):
            if p.get(key):
                entry[key] = p[key]
        if p.get("bot"):
            entry["profile"] = bot_profile(record.game, p["bot"])
        players.append(entry)
    return players


def opener(record: GameRecord) -> int:
    """The seat the room had open the game: the command that started it says (a game from before
    the first move went round the table has none, and opened with seat 0)."""
    start = record.log[0].get("p") if record.log else None
    return int(start.get("opener", 0)) if isinstance(start, dict) else 0


def dealt(engine: Any, record: GameRecord) -> Any:
    """The game as its engine set it up, before anyone moved."""
    rules = engine.settings(record.settings)
    return engine.setup(rules, len(record.players), random.Random(record.seed), opener(record))


def steps(record: GameRecord) -> list[dict[str, Any]]:
    """The game's steps in order: ``{"seat", "type": Step, "action"?, "by_bot"?, "t"}``; ``by_bot``
    marks a move a bot made for a player who had dropped out (grace ran out with a bot taking the seat
    over, until that player reconnected), as the live table's log marked it."""
    engine = get_game(record.game)
    state = dealt(engine, record)
    by_session = {p["session"]: p["seat"] for p in record.players if p.get("session")}
    by_member = {p["member"]: p["seat"] for p in record.players if p.get("member")}
    out: list[dict[str, Any]] = []
    left: set[int] = set()
    stood_in: set[int] = set()
    for entry in record.log:
        kind, payload = entry["k"], entry.get("p") or {}
        step: dict[str, Any] | None = None
        if kind == "action":
            seat = by_session.get(entry["s"])
            if seat is not None:
                action = payload["engine_action"]
                engine.apply(state, seat, action)
                step = {"seat": seat, "type": Step.ACTION, "action": action}
                if seat in stood_in:
                    step["by_bot"] = True
        elif kind == "reconnect":
            stood_in.discard(by_session.get(entry["s"], -1))
        elif kind == "timer" and payload.get("takeover"):
            stood_in.add(by_member.get(payload.get("name", "").removeprefix("grace:"), -1))
        elif kind == "timer" and payload.get("name") == "turn":
            seat = engine.to_act(state)[0]
            engine.on_timeout(state, seat)
            step = {"seat": seat, "type": Step.TIMEOUT}
        else:
            seat = _leaving_seat(kind, entry["s"], payload, by_session, by_member)
            if seat is not None and seat not in left:
                left.add(seat)
                engine.on_leave(state, seat)
                step = {"seat": seat, "type": Step.LEAVE}
        if step is not None:
            step["t"] = entry["t"]
            out.append(step)
    return out


def _leaving_seat(
    kind: str,
    session: str | None,
    payload: dict[str, Any],
    by_session: dict[str, int],
    by_member: dict[str, int],
) -> int | None:
    """The seat a ``leave``, ``kick`` or expired grace (without a bot taking over) took out, if any."""
    if kind == "leave":
        return by_session.get(session or "")
    if kind == "kick":
        if payload.get("member") is not None:
            return by_member.get(payload["member"])
        seat = payload.get("seat")
        return seat if isinstance(seat, int) and seat in by_member.values() else None
    name = payload.get("name", "")
    if kind == "timer" and name.startswith("grace:") and not payload.get("takeover"):
        return by_member.get(name.removeprefix("grace:"))
    return None


def public_summary(record: GameRecord) -> dict[str, Any]:
    """A game as lists show it: who played, how it ended; its room only if listed."""
    row: dict[str, Any] = {
        "id": record.id,
        "game": record.game,
        "started_at": record.started_at,
        "ended_at": record.ended_at,
        "result": record.result,
        "players": public_players(record),
        "private": record.private,
    }
    if not record.private:
        row["room"] = record.room
    return row


def public_game(record: GameRecord) -> dict[str, Any]:
    """``GET /api/games/<id>``: the summary with the settings, seed and steps to replay it (never its
    sessions or chat)."""
    game = public_summary(record)
    game.update(
        number=record.number,
        settings=record.settings,
        seed=record.seed,
        opener=opener(record),
        actions=steps(record),
    )
    return game
