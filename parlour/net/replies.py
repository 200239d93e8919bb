"""The replies the native endpoint sends itself, one function each (the room's own messages are in
``rooms/messages.py``; docs/protocol.md describes every one). A reply carries the request's ``id``
when the request had one."""

from __future__ import annotations

from typing import Any

from parlour.rooms import messages

Message = dict[str, Any]
RequestId = str | int | None


def _answering(reply: Message, request_id: RequestId) -> Message:
    if request_id is not None:
        reply["id"] = request_id
    return reply


def error(code: str, message: str, request_id: RequestId = None) -> Message:
    return messages.error(code, message, request_id)


def pong(request_id: RequestId) -> Message:
    return _answering({"type": "pong"}, request_id)


def welcome(token: str, session: str, name: str, profile: Message | None, request_id: RequestId) -> Message:
    """To ``identify``/``resume``: the session's token (only ever to its owner), id and name, and its
    profile (``{id, secret}`` when new, ``{id}`` after)."""
    reply: Message = {"type": "welcome", "token": token, "session": session, "name": name}
    if profile is not None:
        reply["profile"] = profile
    return _answering(reply, request_id)


def lobby(rooms: list[Message], request_id: RequestId) -> Message:
    """To ``lobby_subscribe``: the public rooms now (``lobby_*`` updates follow)."""
    return _answering({"type": "lobby", "rooms": rooms}, request_id)


def ok(request_id: RequestId) -> Message:
    return _answering({"type": "ok"}, request_id)
