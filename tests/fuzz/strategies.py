"""Hypothesis strategies for hostile frames on every endpoint: structured messages with every type
and field a protocol knows (and values of every JSON kind in them), plus raw junk.

Values reach where bugs live: integers past 64 bits, negative and float numbers, unicode (control
and non-ASCII characters), deep nesting, oversized text, binary frames, codes of rooms the sender
is not in, actions of another game, out-of-turn and spectator moves. Socket.IO v2 clients
(``EIO=3``) get their own transport-level frames: packets of every type over a websocket and in
polling bodies framed right and wrong, and handshakes with made-up queries.
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import strategies as st

Frame = str | bytes
SioFrame = tuple[str, tuple[Any, ...]]

NATIVE_TYPES = [
    "identify", "resume", "create_room", "join", "spectate", "quick_play", "lobby_subscribe",
    "lobby_unsubscribe", "ping", "leave", "ready", "start", "chat", "kick", "transfer_host", "reset",
    "terminate", "update_settings", "take_seat", "become_spectator", "rematch", "add_bot", "action",
]  # fmt: skip
DOTS_TYPES = ["CREATE", "JOIN", "SPECTATE", "CHAT", "READY", "MOVE", "BOARD", "ADMIN"]
CHEAT_ACTIONS = [
    "create_game", "join_game", "leave_game", "start_game", "place_cards", "accuse_cheater", "play_again",
]  # fmt: skip
SIO_EVENTS = [
    "create-room", "join-room", "spectate-room", "leave-room", "start-game", "play-card", "draw-card",
    "call-uno", "challenge-wild", "accept-wild", "pass-turn", "catch-uno", "chat-message", "rematch",
    "requestRoom", "playCard", "drawCard", "connect", "disconnect", "message", "",
]  # fmt: skip
ACTION_TYPES = ["line", "play", "draw", "pass", "call", "uno", "challenge", "accept", "catch", "swap"]
GAMES = ["dots", "cheat", "uno", "chess", ""]

big_ints = st.sampled_from([2**63, -(2**63) - 1, 2**64, 2**70, -(2**80), 2**53 + 1, 10**30])
numbers = st.one_of(
    st.integers(min_value=-3, max_value=12),
    st.integers(),
    big_ints,
    st.floats(allow_nan=False, allow_infinity=False),
)
texts = st.one_of(
    st.text(max_size=12),
    st.text(alphabet=st.characters(codec="utf-8"), max_size=40),
    st.sampled_from(["", " ", "\x00", "\u202e", "é", "💥" * 20, "<script>", "x" * 70]),
    st.integers(min_value=4000, max_value=6000).map(lambda n: "x" * n),
)
json_values = st.recursive(
    st.none() | st.booleans() | numbers | texts,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=8,
)


def _dumps(value: Any) -> str:
    """JSON text for any value, big integers included (json handles them; orjson would refuse)."""
    return json.dumps(value, ensure_ascii=False)


def codes(known: list[str]) -> st.SearchStrategy[str]:
    """Room codes: ones that exist (other rooms, other games) and ones that do not."""
    made = st.text(alphabet="23456789ABCDEFGHJKMNPQRSTUVWXYZ", min_size=5, max_size=5)
    return (st.sampled_from(known) if known else made) | made | texts


def _fields(known: list[str]) -> dict[str, st.SearchStrategy[Any]]:
    return {
        "id": json_values,
        "name": texts | json_values,
        "token": texts,
        "code": codes(known),
        "game": st.sampled_from(GAMES) | json_values,
        "text": texts,
        "ready": json_values,
        "member": texts,
        "seat": numbers,
        "password": texts,
        "capacity": numbers,
        "public": json_values,
        "settings": json_values,
        "level": texts,
    }


def _action() -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries(
        {"type": st.sampled_from(ACTION_TYPES) | texts},
        optional={
            "x": numbers,
            "y": numbers,
            "d": numbers,
            "card": numbers,
            "cards": st.lists(numbers, max_size=5) | json_values,
            "rank": numbers,
            "color": st.sampled_from(["red", "green", "blue", "yellow"]) | json_values,
            "target": numbers,
            "uno": json_values,
            "junk": json_values,
        },
    )


def deep(n: int) -> str:
    return "[" * n + "]" * n


raw_frames: st.SearchStrategy[Frame] = st.one_of(
    json_values.map(_dumps),
    st.text(max_size=50),
    st.binary(max_size=50),
    st.integers(min_value=1, max_value=20_000).map(deep),
    st.sampled_from(["NaN", "Infinity", "-0", "1e999", "{", "null", "[]", '{"type":"ping","id":1e400}']),
)


def native_frames(known: list[str]) -> st.SearchStrategy[Frame]:
    fields = _fields(known)
    structured = st.builds(
        lambda kind, extra: {"type": kind, **extra},
        st.sampled_from(NATIVE_TYPES),
        st.fixed_dictionaries({}, optional=fields),
    )
    actions = st.builds(lambda a, rid: {"type": "action", "action": a, "id": rid}, _action(), numbers)
    return st.one_of(structured.map(_dumps), actions.map(_dumps), raw_frames)


def dots_frames(known: list[str]) -> st.SearchStrategy[Frame]:
    fields = {
        "roomname": codes(known) | texts | json_values,
        "username": texts | json_values,
        "x": numbers,
        "y": numbers,
        "d": numbers,
        "ready": json_values,
        "msg": texts | json_values,
        "admintoken": texts | json_values,
        "cmd": st.sampled_from(["reset", "kick", "terminate"]) | json_values,
        "playerid": numbers,
        "width": numbers,
        "height": numbers,
        "maxplayers": numbers,
        "password": texts | json_values,
        "token": texts | json_values,
    }
    packets = st.builds(
        lambda kind, extra: {"type": kind, **extra},
        st.sampled_from(DOTS_TYPES) | texts,
        st.fixed_dictionaries({}, optional=fields),
    )
    return st.one_of(packets.map(_dumps), raw_frames)


def cheat_frames(known: list[str]) -> st.SearchStrategy[Frame]:
    card = st.fixed_dictionaries({"rank": numbers, "suit": numbers}) | json_values
    fields = {
        "name": texts | json_values,
        "room_code": codes(known) | json_values,
        "code": codes(known),
        "cards": st.lists(card, max_size=5) | json_values,
        "rank": numbers | json_values,
    }
    actions = st.builds(
        lambda kind, extra: {"action": kind, **extra},
        st.sampled_from(CHEAT_ACTIONS) | texts,
        st.fixed_dictionaries({}, optional=fields),
    )
    return st.one_of(actions.map(_dumps), raw_frames)


def sio_frames(known: list[str]) -> st.SearchStrategy[SioFrame]:
    data = st.fixed_dictionaries(
        {},
        optional={
            "roomId": codes(known) | json_values,
            "name": texts | json_values,
            "cardId": st.sampled_from(["card-0", "card-107", "card-x", 5, -1]) | json_values,
            "chosenColor": json_values,
            "targetUserId": json_values,
            "message": texts | json_values,
            "settings": json_values,
            "maxPlayers": numbers,
            "uno": json_values,
        },
    )
    args = st.one_of(
        st.tuples(data),
        st.tuples(),
        st.tuples(json_values),
        st.tuples(data, json_values),
        st.tuples(json_values, json_values, json_values),
    )
    return st.tuples(st.sampled_from(SIO_EVENTS) | st.text(max_size=10), args)


# --- Socket.IO v2 over Engine.IO v3 (``EIO=3``), spoken by hand ------------------------------------

ENGINE_PACKETS = [
    "2", "2probe", "3", "3probe", "5", "6", "1", "0", "7", "", "4", "4x", "40", "41", "40/admin",
    "41/admin,", "40/admin,{}", "43", "431[]", '44"x"', "44", '451-["a",{"_placeholder":true,"num":0}]',
    '461-[{"_placeholder":true,"num":0}]', "42{}", "42[]", '42["requestRoom"', "4" + "9" * 20 + "[]",
]  # fmt: skip
"""Engine.IO v3 packets (open, close, ping, pong, message, upgrade, noop) and Socket.IO v2 ones
(connect, disconnect, event, ack, error, binary event, binary ack), well and badly formed."""


BAD_BODIES = [b"abc", b"5:42", b"0:", b":", b"99999999999999:4", b"\xff\xfe", b"3:4", b"", b"1:2" * 25_000]
"""Polling bodies framed wrong: no length, short, zero, empty length, huge, not UTF-8, past the end,
empty, over ``PARLOUR_MAX_FRAME``."""


def utf16_length(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def sio2_packets(known: list[str]) -> st.SearchStrategy[str]:
    """One Engine.IO v3 packet's text: Socket.IO v2 events built from the v4 strategy's events and
    arguments (``42[name, arg...]``, with an ack id or a namespace now and then), fixed packets of
    every type, and junk."""
    events = st.builds(
        lambda frame, ack, nsp: "42" + nsp + ack + _dumps([frame[0], *frame[1]]),
        sio_frames(known),
        st.sampled_from(["", "", "1", "17", "9" * 16]),
        st.sampled_from(["", "", "", "/admin,", "/,"]),
    )
    return st.one_of(
        events,
        events,  # weighted: well-formed events keep a session going, most junk ends it (by design)
        events,
        st.sampled_from(ENGINE_PACKETS),
        json_values.map(lambda v: "4" + _dumps(v)),
        st.text(max_size=30),
    )


def _framed(packets: list[str]) -> bytes:
    return "".join(f"{utf16_length(p)}:{p}" for p in packets).encode()


def sio2_frames(known: list[str]) -> st.SearchStrategy[tuple[Any, ...]]:
    """Frames for an Engine.IO v3 victim, tagged with how they travel:

    * ``("ws", text | bytes)``: one websocket frame on a v3 websocket session (binary frames too);
    * ``("poll", body, content type)``: one POST on a polling session, its packets framed right
      (``<length>:<packet>``, lengths in UTF-16 units) or wrong (lengths off by a few, zero, huge,
      no length, not UTF-8, oversized), or sent as binary;
    * ``("http", method, query, body)``: a request with a made-up query (handshakes of other
      versions and transports, unknown or stale session ids, JSONP), ``"@sid"`` standing for the
      victim's own polling session (never with GET, which would wait for packets);
    * ``("open", query)``: a websocket handshake with a made-up query, closed at once.
    """
    packet = sio2_packets(known)
    ws = st.one_of(packet.map(lambda p: ("ws", p)), st.binary(max_size=40).map(lambda b: ("ws", b)))
    good = st.lists(packet, min_size=1, max_size=4).map(_framed)
    off = st.builds(
        lambda p, delta: f"{max(0, utf16_length(p) + delta)}:{p}".encode(), packet, st.integers(-3, 3)
    )
    bad = st.one_of(
        off,
        st.sampled_from(BAD_BODIES),
        st.binary(max_size=40),
    )
    poll = st.one_of(
        good.map(lambda b: ("poll", b, "text/plain;charset=UTF-8")),
        bad.map(lambda b: ("poll", b, "text/plain;charset=UTF-8")),
        st.binary(max_size=40).map(lambda b: ("poll", b, "application/octet-stream")),
    )
    query = st.fixed_dictionaries(
        {},
        optional={
            "EIO": st.sampled_from(["3", "3", "4", "2", "x", ""]),
            "transport": st.sampled_from(["polling", "websocket", "flashsocket", ""]) | st.text(max_size=8),
            "sid": st.sampled_from(["@sid", "nope", ""]) | st.text(max_size=20),
            "j": st.sampled_from(["0", "1"]),
            "b64": st.just("1"),
            "name": texts,
            "token": texts,
        },
    )
    http = st.builds(
        lambda method, q, body: ("http", method, {} if method == "GET" and "@sid" in q.values() else q, body),
        st.sampled_from(["GET", "POST", "OPTIONS", "PUT", "DELETE"]),
        query,
        st.binary(max_size=30),
    )
    opens = query.map(lambda q: ("open", q))
    return st.one_of(ws, ws, poll, poll, http, opens)


def frames_for(endpoint: str, known: list[str]) -> st.SearchStrategy[Any]:
    return {
        "native": native_frames,
        "dots": dots_frames,
        "cheat": cheat_frames,
        "socketio": sio_frames,
        "socketio2": sio2_frames,
    }[endpoint](known)
