"""The messages a room sends, one function each (docs/protocol.md describes every one).

The room's snapshot (``Outbound.snapshot``), its ``meta`` and the lobby ``summary`` are built from
the room's state in ``outbound.py``; the game messages are assembled per recipient there too.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from parlour.games import Event
from parlour.rooms.enums import CountdownKind, EndReason, LeaveReason, Phase
from parlour.rooms.members import Member, Message

OK: Message = {"type": "ok"}


def error(code: str, message: str, request_id: Any = None) -> Message:
    out: Message = {"type": "error", "code": code, "message": message}
    if request_id is not None:
        out["id"] = request_id
    return out


def log_entries(
    describe_event: Callable[[Message, list[str]], str | None],
    events: list[Event],
    public: list[Message],
    names: list[str],
    first: int,
    stand_in: int | None,
) -> list[Message]:
    """Game-log entries numbered from ``first``: the game's line for each event as a spectator sees it
    (``public``; events without a line are skipped), with that event for clients to draw from; seat
    ``stand_in``'s entries are marked ``by_bot`` (a bot moved for a player who dropped out). The live
    table (``Outbound.describe``) and replays (``Replay``) write them alike."""
    entries = []
    n = first
    for event, seen in zip(events, public, strict=True):
        text = describe_event(seen, names)
        if text is None:
            continue
        seat = seen.get("seat")
        entry = {
            "n": n,
            "kind": event.type,
            "seat": seat if isinstance(seat, int) else None,
            "text": text,
            "event": seen,
        }
        if seat == stand_in and stand_in is not None:
            entry["by_bot"] = True
        n += 1
        entries.append(entry)
    return entries


def member_joined(member: Member, host: str | None) -> Message:
    return {"type": "member_joined", "member": member.public(host)}


def member_updated(member: Member, host: str | None, grace: Message | None = None) -> Message:
    """``grace`` (``{"deadline", "remaining"}``) when the member just dropped and keeps the seat that long."""
    out: Message = {"type": "member_updated", "member": member.public(host)}
    if grace is not None:
        out["grace"] = grace
    return out


def member_left(member_id: str, reason: LeaveReason) -> Message:
    return {"type": "member_left", "member": member_id, "reason": reason}


def host_changed(host: str | None) -> Message:
    return {"type": "host_changed", "host": host}


def chat(entry: Message) -> Message:
    return {"type": "chat", "message": entry}


def kicked() -> Message:
    return {"type": "kicked"}


def replaced() -> Message:
    """To a connection whose session resumed on another one."""
    return {"type": "replaced"}


def countdown(kind: CountdownKind | None, deadline: float | None, remaining: float | None) -> Message:
    return {"type": "countdown", "kind": kind, "deadline": deadline, "remaining": remaining}


def state_changed(state: Phase, reason: EndReason | None = None) -> Message:
    """``reason``: ``reset`` when the host ended the game that was being played (the table's last
    notices are stale then, and everyone is told why the game is gone)."""
    out: Message = {"type": "state_changed", "state": state}
    if reason is not None:
        out["reason"] = reason
    return out


def settings_changed(
    settings: Message,
    public: bool,
    capacity: int,
    has_password: bool,
    bots_take_over: bool,
    bot_catch_delay: float,
) -> Message:
    return {
        "type": "settings_changed",
        "settings": settings,
        "public": public,
        "capacity": capacity,
        "has_password": has_password,
        "bots_take_over": bots_take_over,
        "bot_catch_delay": bot_catch_delay,
    }


def rematch_offer(member: Member) -> Message:
    """``member`` asked for a rematch; the others accept by readying up."""
    return {"type": "rematch_offer", "member": member.id, "name": member.name}


def game_update(
    kind: str,
    seq: int,
    events: list[Message] | Any,
    log: list[Message] | Any,
    view: Any,
    turn: Message | Any | None,
    seats: list[Message] | Any | None,
) -> Message:
    """``game_started`` (with the ``seats``) or ``game``: one recipient's events and view, and the
    game-log entries they made (the same for everyone). For a JSON sink (``Sink.json``) every part
    but ``kind`` and ``seq`` may be a pre-encoded ``orjson.Fragment`` (rooms/encoding.py)."""
    out: Message = {"type": kind, "seq": seq, "events": events, "log": log, "view": view, "turn": turn}
    if seats is not None:
        out["seats"] = seats
    return out


def game_over(outcome: Message, seats: list[Message], board: list[Message], game_id: str) -> Message:
    """The game ended; ``game_id`` names its replay (``/g/<game_id>``)."""
    return {"type": "game_over", "outcome": outcome, "seats": seats, "scoreboard": board, "game_id": game_id}


def room_closed(reason: EndReason) -> Message:
    return {"type": "room_closed", "reason": reason}


def lobby_room(summary: Message) -> Message:
    return {"type": "lobby_room", "room": summary}


def lobby_room_removed(code: str) -> Message:
    return {"type": "lobby_room_removed", "code": code}
