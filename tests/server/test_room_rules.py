"""Room rules over the native protocol: the Cheat write-up's stage tests and the Dots & Boxes
protocol's room rules (password, spectators, ready countdown, kick, reset, terminate, last player)."""

from __future__ import annotations

import asyncio

import pytest

from tests.server.client import Client, close_all, open_table
from tests.server.history import fetch, profile_header


async def error_code(client: Client, kind: str, **fields) -> str:
    reply = await client.request(kind, **fields)
    assert reply["type"] == "error", reply
    return reply["code"]


# --- Cheat stage 1: joining --------------------------------------------------------------


async def test_join_errors(server) -> None:
    host = await Client.open(server.ws, "Host")
    room = await host.ok("create_room", game="cheat", password="pw", capacity=3)
    code = room["code"]
    assert len(code) == 8 and room["has_password"] and "pw" not in str(room)  # unlisted: a long code
    anon = await Client.open(server.ws)
    assert await error_code(anon, "join", code=code) == "not_identified"
    for bad in ["", "   ", "x" * 17, "bad\x00name", "tab\tname"]:
        assert await error_code(anon, "identify", name=bad) == "invalid_name"
    for bad in ["A\u200dda", "\u202eevil"]:  # invisible: looks like "Ada"; turns the text around
        assert await error_code(anon, "identify", name=bad) == "invalid_name"
    # An emoji built of several joined (👩‍🚀: woman, joiner, rocket) is welcome: its joiner was refused.
    zoe = await Client.open(server.ws)
    assert (await zoe.identify("🦄Zoë 👩\u200d🚀"))["name"] == "🦄Zoë 👩\u200d🚀"
    await zoe.close()
    welcome = await anon.identify("  Ann  ")
    assert welcome["name"] == "Ann"
    assert await error_code(anon, "join", code="ZZZZZ") == "room_not_found"
    assert await error_code(anon, "join", code="OIL01") == "invalid_code"
    assert await error_code(anon, "join", code=code) == "wrong_password"
    assert await error_code(anon, "join", code=code, password="nope") == "wrong_password"
    # Codes are case-insensitive, and spaces and hyphens in them do not count.
    assert await error_code(anon, "join", code=f"{code[:4]}-{code[4:]}") == "wrong_password"
    joined = await anon.ok("join", code=f"  {code[:4].lower()} {code[4:].lower()} ", password="pw")
    assert joined["you"]["seat"] == 1
    # Joining the room you are in is idempotent: the same seat's snapshot, nobody told anything.
    again = await anon.ok("join", code=code)
    assert again["type"] == "room" and again["you"] == joined["you"]
    assert [m["id"] for m in again["members"]] == [m["id"] for m in joined["members"]]
    assert (await host.ok("join", code=code))["you"]["seat"] == 0  # right after create_room too
    assert (await host.ok("spectate", code=code))["you"]["seat"] == 0  # role unchanged
    other = await Client.open(server.ws, "Other")
    elsewhere = await other.ok("create_room", game="cheat")
    assert await error_code(anon, "join", code=elsewhere["code"]) == "already_in_room"
    assert await error_code(anon, "identify", name="Again") == "already_identified"
    third = await Client.open(server.ws, "Third")
    await third.ok("join", code=code, password="pw")
    fourth = await Client.open(server.ws, "Fourth")
    assert await error_code(fourth, "join", code=code, password="pw") == "room_full"
    await fourth.ok("spectate", code=code, password="pw")
    assert [m["member"]["name"] for m in host.messages if m.get("type") == "member_joined"] == [
        "Ann",
        "Third",
        "Fourth",
    ]
    await close_all([host, anon, third, fourth, other])


async def test_player_list_and_host_handover(server) -> None:
    host = await Client.open(server.ws, "Host")
    code = (await host.ok("create_room", game="cheat"))["code"]
    second = await Client.open(server.ws, "Second")
    await second.ok("join", code=code)
    joined = await host.expect("member_joined")
    assert joined["member"]["name"] == "Second" and joined["member"]["host"] is False
    third = await Client.open(server.ws, "Third")
    await third.ok("join", code=code)
    await host.ok("leave")
    left = await second.expect("member_left")
    assert left["reason"] == "left"
    handed = await second.expect("host_changed")
    assert handed["host"] == second.member
    # The new host can hand the role on explicitly.
    third.skip()
    await second.ok("transfer_host", member=third.member)
    assert (await third.expect("host_changed"))["host"] == third.member
    assert await error_code(second, "start") == "not_host"
    # Not to a member who is offline: a host who is away could start, kick or end nothing.
    await second.close()
    assert (await third.expect("member_updated"))["member"]["connected"] is False
    assert await error_code(third, "transfer_host", member=second.member) == "invalid_target"
    await close_all([host, third])


# --- Cheat stage 2: starting -------------------------------------------------------------


async def test_cheat_start_refused_below_three(server) -> None:
    host = await Client.open(server.ws, "Host")
    code = (await host.ok("create_room", game="cheat"))["code"]
    second = await Client.open(server.ws, "Second")
    await second.ok("join", code=code)
    assert await error_code(host, "start") == "not_enough_players"
    assert await error_code(second, "start") == "not_host"
    third = await Client.open(server.ws, "Third")
    await third.ok("join", code=code)
    await host.ok("start")
    started = await third.expect("game_started")
    assert [s["name"] for s in started["seats"]] == ["Host", "Second", "Third"]
    assert len(started["view"]["hand"]) in (17, 18)
    await close_all([host, second, third])


# --- Cheat stage 3/5: turns and leaving at each decision point -------------------------------


async def _cheat(server, players: int = 4) -> tuple[list[Client], dict[int, Client]]:
    seated, _, _ = await open_table(server.ws, "cheat", players, spectators=0)
    return seated, {c.seat: c for c in seated}


def _play(client: Client) -> dict:
    view = client.view
    rank = view["ranks"][0]
    return {"type": "play", "cards": [view["hand"][0]["id"]], "rank": rank}


async def test_cheat_out_of_turn_and_empty_play(server) -> None:
    seated, by_seat = await _cheat(server, 3)
    first = by_seat[seated[0].turn["seat"]]
    other = by_seat[(first.seat + 1) % 3]
    assert await error_code(other, "action", action=_play(other)) == "not_your_turn"
    assert await error_code(first, "action", action={"type": "play", "cards": [], "rank": 0}) == "no_cards"
    await close_all(seated)


async def test_cheat_leave_not_on_turn_moves_hand_to_pile(server) -> None:
    seated, by_seat = await _cheat(server)
    turn = seated[0].turn["seat"]
    leaver = by_seat[(turn + 2) % 4]
    hand = len(leaver.view["hand"])
    watcher = by_seat[turn]
    watcher.skip()
    await leaver.ok("leave")
    update = await watcher.expect("game")
    left = next(e for e in update["events"] if e["type"] == "left")
    assert left["to_pile"] == hand and update["view"]["pile_size"] == hand
    assert update["turn"]["seat"] == turn and not update["view"]["over"]
    await close_all(seated)


async def test_cheat_leave_on_turn_passes_turn(server) -> None:
    seated, by_seat = await _cheat(server)
    turn = seated[0].turn["seat"]
    watcher = by_seat[(turn + 1) % 4]
    watcher.skip()
    await by_seat[turn].ok("leave")
    update = await watcher.expect("game")
    assert update["turn"]["seat"] == (turn + 1) % 4
    await close_all(seated)


async def test_cheat_leave_after_placing_cannot_be_called(server) -> None:
    seated, by_seat = await _cheat(server)
    placer = by_seat[seated[0].turn["seat"]]
    await placer.ok("action", action=_play(placer))
    await placer.ok("leave")
    caller = by_seat[(placer.seat + 2) % 4]
    await caller.wait_for(lambda m: m.get("type") == "member_left", from_start=True)
    assert await error_code(caller, "action", action={"type": "call"}) == "nothing_to_call"
    await close_all(seated)


async def test_cheat_leave_below_three_ends_game(server) -> None:
    seated, _ = await _cheat(server, 3)
    await seated[2].ok("leave")
    over = await seated[0].expect("game_over")
    assert over["outcome"]["reason"] == "not_enough_players" and over["outcome"]["winners"] == []
    assert over["scoreboard"] == []  # nobody won it: no line on the room's scoreboard either
    room = await seated[0].request("rematch")
    assert room["type"] == "ok"
    # Nobody won nor lost it: it counts in no player's totals (as a game the room abandoned), though
    # each of them finds it among their games.
    for client in seated:
        profile = next(m["profile"] for m in client.messages if m.get("type") == "welcome")
        status, body, _ = fetch(server, f"/api/players/{profile['id']}", profile_header(profile))
        assert status == 200 and body["games"] == [], body["games"]
        assert [g["game"] for g in body["recent"]] == ["cheat"]
    await close_all(seated)


# --- Dots & Boxes room rules ---------------------------------------------------------------


async def test_settings_saved_during_the_start_countdown_stop_it(server_factory) -> None:
    """Saved during "Starting in 5 s", a change was refused ("only in the waiting room") and the game
    began on the old rules: now it is taken, the others are unready again, and the countdown stops."""
    srv = server_factory({"PARLOUR_READY_COUNTDOWN": "3"})
    seated, _, _ = await open_table(srv.ws, "dots", 2, {"width": 3, "height": 3}, spectators=0, start=False)
    host, guest = seated
    await host.ok("ready", ready=True)
    await guest.ok("ready", ready=True)
    await guest.expect("countdown", kind="ready")
    await host.ok("update_settings", settings={"width": 4, "height": 4})
    assert (await guest.expect("settings_changed"))["settings"] == {"width": 4, "height": 4}
    unready = await guest.expect("member_updated")
    assert unready["member"]["id"] == guest.member and unready["member"]["ready"] is False
    assert (await guest.expect("countdown"))["kind"] is None
    await guest.ok("ready", ready=True)  # agreed to the new board: the game starts on it
    started = await guest.expect("game_started", timeout=8)
    assert (started["view"]["width"], started["view"]["height"]) == (4, 4)
    await close_all(seated, [])


async def test_the_waiting_room_of_a_finished_room_works(server) -> None:
    """Back in a room whose game ended after they left, a player is shown the waiting room: its Ready,
    and the host's Start, were refused there ("the game has already started") until a reload showed the
    results. They now leave the results behind first, as a rematch does."""
    seated, _, code = await open_table(server.ws, "dots", 2, {"width": 3, "height": 3}, spectators=0)
    host, guest = seated
    await guest.ok("leave")  # the last player left wins: the game is over
    await host.expect("game_over")
    assert await error_code(host, "start") == "not_enough_players"  # refused: nothing changed
    back = await guest.ok("join", code=code)
    assert back["state"] == "finished"
    await guest.ok("ready", ready=True)
    assert (await host.expect("state_changed"))["state"] == "waiting"
    await host.ok("start")
    await guest.expect("game_started")
    await close_all(seated, [])


async def test_dots_ready_countdown_cancelled_by_unready(server_factory) -> None:
    srv = server_factory({"PARLOUR_READY_COUNTDOWN": "1.5"})
    seated, _, code = await open_table(
        srv.ws, "dots", 2, {"width": 3, "height": 3}, spectators=0, start=False
    )
    a, b = seated
    await a.ok("ready", ready=True)
    await b.ok("ready", ready=True)
    countdown = await a.expect("countdown")
    assert countdown["kind"] == "ready" and 0 < countdown["remaining"] <= 1.5
    await b.ok("ready", ready=False)
    cancelled = await a.expect("countdown")
    assert cancelled["kind"] is None
    await b.ok("ready", ready=True)
    await a.expect("countdown", kind="ready")
    started = await a.expect("game_started", timeout=5)
    assert started["turn"]["seat"] == 0
    # Spectators may join at any time, even mid-game, and see the board.
    late = await Client.open(srv.ws, "Late")
    snap = await late.ok("spectate", code=code)
    assert (
        snap["state"] == "playing"
        and snap["table"]["view"]["width"] == 3
        and snap["you"]["role"] == "spectator"
    )
    assert await error_code(late, "action", action={"type": "line", "x": 0, "y": 0, "d": 0}) == "not_a_player"
    joiner = await Client.open(srv.ws, "Joiner")
    assert await error_code(joiner, "join", code=code) == "game_in_progress"
    await close_all(seated, [late, joiner])


async def test_a_name_someone_here_has_is_numbered(server) -> None:
    """Ada back on another device (her old seat still hers, a bot playing it) joined as a second "Ada":
    every line about either of them was ambiguous. A newcomer with a name someone here has is numbered;
    the rename command refuses such a name outright (the member chose it there)."""
    host = await Client.open(server.ws, "Ada")
    code = (await host.ok("create_room", game="uno", capacity=4))["code"]
    names = []
    for name in ("ada", "Ada", "Bo", "Sixteen letters!", "Sixteen letters!"):
        guest = await Client.open(server.ws, name)
        snapshot = await guest.ok("spectate" if len(names) >= 3 else "join", code=code)
        names.append(next(m["name"] for m in snapshot["members"] if m["id"] == snapshot["you"]["member"]))
    # Never longer than a name may be: the number takes the name's last letters.
    assert names == ["ada 2", "Ada 3", "Bo", "Sixteen letters!", "Sixteen letter 2"]
    assert (await host.ok("join", code=code))["you"]["seat"] == 0  # the same session: still Ada


async def test_dots_kick_reset_terminate(server) -> None:
    seated, watchers, code = await open_table(
        server.ws, "dots", 3, {"width": 3, "height": 3, "max_players": 3}
    )
    host, b, c = seated
    assert await error_code(b, "kick", member=c.member) == "not_host"
    assert await error_code(host, "kick", member=host.member) == "invalid_target"
    assert await error_code(host, "kick", member="m99") == "unknown_member"
    await host.ok("kick", seat=c.seat)
    await c.expect("kicked")
    left = await b.expect("member_left")
    assert left["reason"] == "kicked"
    assert await error_code(c, "join", code=code) == "banned"
    # Reset abandons the game and returns everyone to the waiting room.
    b.skip()
    await host.ok("reset")
    snap = await b.expect("room")
    assert snap["state"] == "waiting" and snap["table"] is None
    # Said why: the game ended without a game_over (the page drops the ended game's notices).
    assert (await b.expect("state_changed", state="waiting"))["reason"] == "reset"
    await host.ok("terminate")
    closed = await b.expect("room_closed")
    assert closed["reason"] == "terminated"
    await watchers[0].expect("room_closed")
    assert await error_code(b, "chat", text="anyone?") == "not_in_room"
    assert await error_code(b, "join", code=code) == "room_not_found"
    await close_all(seated, watchers)


async def test_dots_last_player_wins(server) -> None:
    seated, watchers, _ = await open_table(server.ws, "dots", 2, {"width": 3, "height": 3})
    await seated[0].ok("leave")
    over = await seated[1].expect("game_over")
    assert over["outcome"]["winners"] == [seated[1].seat] and over["outcome"]["reason"] == "last_player"
    await close_all(seated, watchers)


# --- Chat, settings, seats ------------------------------------------------------------------


async def test_a_member_renames_in_the_room_and_keeps_the_name(server) -> None:
    """A typo fixed without leaving: everyone sees the new name, mid-game the seat and its later log lines
    take it, a name someone here has is refused, and the session keeps it for coming back."""
    seated, watchers, code = await open_table(server.ws, "dots", 2, {"width": 3, "height": 3})
    host, guest = seated
    taken = await guest.request("rename", name="p0")  # the host's, letter case aside
    # Named as the one who has it is ("p0" asked for read as if someone were called that).
    assert taken["code"] == "name_taken" and taken["message"] == "someone in this room is already called P0"
    assert await error_code(guest, "rename", name=" ") == "invalid_name"
    await guest.ok("rename", name="Bea")
    update = await host.expect("member_updated")
    assert update["member"]["id"] == guest.member and update["member"]["name"] == "Bea"
    # Mid-game: the seat takes the name, as a newcomer's snapshot shows.
    late = await Client.open(server.ws, "Late")
    seen = await late.ok("spectate", code=code)
    assert {s["name"] for s in seen["table"]["seats"]} == {"P0", "Bea"}
    await guest.ok("leave")
    again = await guest.request("join", code=code)
    names = {m["id"]: m["name"] for m in again["members"]}
    assert names[again["you"]["member"]] == "Bea"  # the session kept it
    await close_all(seated, [*watchers, late])


async def test_chat_history_and_limits(server) -> None:
    host = await Client.open(server.ws, "Host")
    code = (await host.ok("create_room", game="uno"))["code"]
    for i in range(55):
        await host.ok("chat", text=f"<b>msg {i}</b>")
    assert await error_code(host, "chat", text="x" * 301) == "invalid_chat"
    assert await error_code(host, "chat", text="   ") == "invalid_chat"
    await host.ok("chat", text="y" * 300)
    guest = await Client.open(server.ws, "Guest")
    snap = await guest.ok("spectate", code=code)
    assert len(snap["chat"]) == 50 and snap["chat"][-1]["text"] == "y" * 300
    assert snap["chat"][0]["text"] == "<b>msg 6</b>"  # plain text, kept as sent
    await close_all([host, guest])


async def test_settings_and_seat_changes(server) -> None:
    host = await Client.open(server.ws, "Host")
    code = (await host.ok("create_room", game="dots", public=True))["code"]
    other = await Client.open(server.ws, "Other")
    await other.ok("spectate", code=code)
    assert await error_code(other, "update_settings", public=False) == "not_host"
    assert await error_code(host, "update_settings", settings={"width": 99}) == "invalid_settings"
    assert await error_code(host, "update_settings", capacity=50) == "invalid_capacity"
    # The message names the range the host may choose: the game's minimum while fewer are seated.
    reply = await host.request("update_settings", capacity=1)
    assert (reply["code"], reply["message"]) == ("invalid_capacity", "capacity must be 2 to 8 players")
    await host.ok(
        "update_settings", settings={"width": 5, "height": 5}, password="pw", capacity=3, bots_take_over=False
    )
    changed = await other.expect("settings_changed")
    assert changed == {
        "type": "settings_changed",
        "settings": {"width": 5, "height": 5},
        "public": True,
        "capacity": 3,
        "has_password": True,
        "bots_take_over": False,
        "bot_catch_delay": 2.0,
    }
    assert (await host.request("update_settings", bots_take_over="yes"))["code"] == "bad_message"
    assert await error_code(host, "update_settings", bot_catch_delay=-1) == "invalid_settings"
    await other.ok("take_seat")
    update = await host.expect("member_updated")
    assert update["member"]["role"] == "player" and update["member"]["seat"] == 1
    await host.ok("start")
    assert await error_code(host, "update_settings", public=False) == "invalid_state"
    assert await error_code(other, "become_spectator") == "game_in_progress"
    await close_all([host, other])


async def test_settings_saved_unchanged_change_nothing(server) -> None:
    """Save pressed with nothing changed: everyone was told "settings changed" and unreadied all the same."""
    host = await Client.open(server.ws, "Host")
    settings = {"target_score": 200}
    code = (await host.ok("create_room", game="uno", settings=settings, capacity=3, public=False))["code"]
    guest = await Client.open(server.ws, "Guest")
    await guest.ok("join", code=code)
    await guest.ok("ready", ready=True)
    await guest.expect("member_updated")
    # What the web form sends: every setting, the defaults spelled out.
    same = {"settings": {"target_score": 200, "stacking": False}, "capacity": 3, "public": False}
    await host.ok("update_settings", **same, bots_take_over=True, bot_catch_delay=2.0)
    await guest.ok("chat", text="still ready?")  # its reply comes after anything the save sent
    told = [m["type"] for m in guest.messages[guest.cursor :]]
    assert "settings_changed" not in told and "member_updated" not in told
    snap = await guest.ok("join", code=code)
    assert next(m for m in snap["members"] if m["name"] == "Guest")["ready"] is True
    await host.ok("update_settings", settings={"target_score": 300})
    assert (await guest.expect("settings_changed"))["settings"] == {"target_score": 300}
    await close_all([host, guest])


async def test_lobby_and_quick_play(server_factory) -> None:
    srv = server_factory({"PARLOUR_QUICKPLAY_COUNTDOWN": "0.8"})
    watcher = await Client.open(srv.ws, "Watcher")
    lobby = await watcher.ok("lobby_subscribe", game="dots")
    assert lobby["rooms"] == []
    a = await Client.open(srv.ws, "A")
    room = await a.ok("quick_play", game="dots")
    assert room["quick_play"] and room["public"]
    listed = await watcher.expect("lobby_room")
    assert listed["room"]["code"] == room["code"] and listed["room"]["players"] == 1
    b = await Client.open(srv.ws, "B")
    assert (await b.ok("quick_play", game="dots"))["code"] == room["code"]
    first = await a.expect("countdown", kind="quick_play")
    c = await Client.open(srv.ws, "C")
    # The 2-seat dots room is full, so C gets a new room.
    assert (await c.ok("quick_play", game="dots"))["code"] != room["code"]
    await a.expect("game_started", timeout=5)
    assert first["remaining"] <= 0.8
    rooms = __import__("json").loads(srv.get("/api/rooms?game=dots"))["rooms"]
    states = {r["code"]: r["state"] for r in rooms}
    assert states[room["code"]] == "playing"
    await close_all([watcher, a, b, c])


async def test_quick_play_passes_over_a_room_whose_players_are_all_away(server_factory) -> None:
    """A newcomer was sent to a room whose only player had gone (still in their grace): not host, no
    way to add a bot, a clock that started a game with someone absent. A room with someone present
    is still chosen."""
    srv = server_factory()
    gone = await Client.open(srv.ws, "Gone")
    empty_room = (await gone.ok("quick_play", game="uno"))["code"]
    watcher = await Client.open(srv.ws, "Watcher")
    await watcher.ok("spectate", code=empty_room)
    await gone.close()
    await watcher.wait_for(lambda m: m.get("type") == "member_updated" and not m["member"]["connected"])
    newcomer = await Client.open(srv.ws, "New")
    room = (await newcomer.ok("quick_play", game="uno"))["code"]
    assert room != empty_room
    other = await Client.open(srv.ws, "Other")
    assert (await other.ok("quick_play", game="uno"))["code"] == room  # someone is there: joined
    await close_all([watcher, newcomer, other])


async def test_quick_play_countdown_restarts_on_join(server_factory) -> None:
    srv = server_factory({"PARLOUR_QUICKPLAY_COUNTDOWN": "1.0"})
    clients = [await Client.open(srv.ws, f"Q{i}") for i in range(3)]
    await clients[0].ok("quick_play", game="uno")
    await clients[1].ok("quick_play", game="uno")
    first = await clients[0].expect("countdown", kind="quick_play")
    await clients[2].ok("quick_play", game="uno")
    second = await clients[0].expect("countdown", kind="quick_play")
    assert second["deadline"] > first["deadline"]
    started = await clients[0].expect("game_started", timeout=5)
    assert len(started["seats"]) == 3
    await close_all(clients)


async def test_a_quick_play_game_the_host_ends_starts_again_on_its_clock(server_factory) -> None:
    """Back in the waiting room after End game, a quick-play room sat still: nobody readies up there
    (its clock starts the game), and nothing started the clock again."""
    srv = server_factory({"PARLOUR_QUICKPLAY_COUNTDOWN": "0.5"})
    clients = [await Client.open(srv.ws, f"Q{i}") for i in range(2)]
    for client in clients:
        await client.ok("quick_play", game="uno")
    await clients[0].expect("game_started", timeout=5)
    host = clients[0]  # the first one in
    await host.ok("reset")
    await clients[1].expect("state_changed", state="waiting")
    await clients[1].expect("countdown", kind="quick_play")
    again = await clients[1].expect("game_started", timeout=5)
    assert len(again["seats"]) == 2
    await close_all(clients)


@pytest.mark.parametrize("path", ["/", "/r/ABCDE"])
def test_client_pages(server, path: str) -> None:
    assert b"<html" in server.get(path).lower() or b"parlour" in server.get(path).lower()


async def test_simultaneous_quick_plays_fill_one_room_first(server_factory) -> None:
    """Quick play is atomic per game: N players asking at once fill a room before another opens."""
    srv = server_factory({"PARLOUR_QUICKPLAY_COUNTDOWN": "30"})
    clients = [await Client.open(srv.ws, f"Q{i}") for i in range(12)]
    replies = await asyncio.gather(*(c.request("quick_play", game="cheat") for c in clients))
    assert all(r["type"] == "room" for r in replies), [r for r in replies if r["type"] != "room"]
    sizes: dict[str, int] = {}
    for reply in replies:
        sizes[reply["code"]] = sizes.get(reply["code"], 0) + 1
    capacity = replies[0]["capacity"]
    full, rest = divmod(len(clients), capacity)
    assert sorted(sizes.values(), reverse=True) == [capacity] * full + ([rest] if rest else [])
    await close_all(clients)


async def test_requests_without_id_get_no_bare_ok(server) -> None:
    """With an ``id`` every accepted request is answered; without one, the broadcasts are the answer
    and only a refusal gets a reply (an ``error``)."""
    seated, _, _ = await open_table(server.ws, "dots", 2, {"width": 3, "height": 3}, spectators=0)
    turn = seated[0].view["turn"]  # seats follow join order: the host is seat 0
    first, other = seated[turn], seated[1 - turn]
    await first.send({"type": "action", "action": {"type": "line", "x": 0, "y": 0, "d": 0}})
    moved = await first.expect("game")
    assert moved["events"][0] == {"type": "line", "seat": turn, "x": 0, "y": 0, "d": 0}
    await first.send({"type": "action", "action": {"type": "line", "x": 1, "y": 0, "d": 0}})
    refused = await first.expect("error")
    assert refused["code"] == "not_your_turn" and "id" not in refused
    # Replies go out in order: once the pong is here, an ok for the requests above would be too.
    assert (await first.request("ping"))["type"] == "pong"
    assert [m for m in first.messages if m["type"] == "ok" and "id" not in m] == []
    reply = await other.request("action", action={"type": "line", "x": 1, "y": 0, "d": 0})
    assert reply == {"type": "ok", "id": reply["id"]}
    await close_all(seated)


async def test_an_action_never_overtakes_the_request_before_it(server) -> None:
    """Actions skip the connection's queue only when nothing is waiting in it: sent right behind a
    chat line, without waiting for its reply, each still takes effect after it."""
    seated, _, _ = await open_table(server.ws, "dots", 2, {"width": 4, "height": 4}, spectators=0)
    turn = seated[0].view["turn"]
    mover, watcher = seated[turn], seated[1 - turn]
    for n in range(9):  # horizontal lines only: no box closes, so the turn alternates
        await mover.send({"type": "chat", "text": f"before {n}"})
        line = {"type": "line", "x": n % 3, "y": n // 3, "d": 0}
        await mover.send({"type": "action", "action": line})

        def chat(m, n=n):
            return m["type"] == "chat" and m["message"]["text"] == f"before {n}"

        def moved(m, n=n):
            event = m["events"][0] if m["type"] == "game" else {}
            return event.get("type") == "line" and (event["x"], event["y"]) == (n % 3, n // 3)

        await watcher.wait_for(moved, from_start=True)
        order = [i for i, m in enumerate(watcher.messages) if chat(m) or moved(m)]
        assert len(order) == 2 and chat(watcher.messages[order[0]]), watcher.messages[-4:]
        mover, watcher = watcher, mover
    await close_all(seated)
