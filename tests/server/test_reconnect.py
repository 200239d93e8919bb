"""Reconnection: drop and resume mid-turn; grace expiry applies the game's leave rule."""

from __future__ import annotations

from tests.server.client import MOVES, Client, close_all, open_table, play_game


async def test_drop_and_resume_mid_turn(server) -> None:
    seated, watchers, _ = await open_table(server.ws, "uno", 3, {"target_score": 0})
    by_seat = {c.seat: c for c in seated}
    on_turn = by_seat[seated[0].turn["seat"]]
    hand = on_turn.view["hand"]
    other = by_seat[(on_turn.seat + 1) % 3]
    other.skip()
    await on_turn.ws.close()
    dropped = await other.expect("member_updated")
    assert dropped["member"]["id"] == on_turn.member and dropped["member"]["connected"] is False

    back = await Client.open(server.ws)
    welcome = await back.ok("resume", token=on_turn.token)
    assert welcome["name"] == on_turn.name and welcome["token"] == on_turn.token
    snap = await back.expect("room")
    assert snap["you"]["member"] == on_turn.member and snap["you"]["seat"] == on_turn.seat
    assert snap["table"]["view"]["hand"] == hand
    assert snap["table"]["turn"]["seat"] == on_turn.seat
    assert on_turn.member not in snap["timers"]["grace"]
    again = await other.expect("member_updated")
    assert again["member"]["connected"] is True
    seated[seated.index(on_turn)] = back
    await play_game(seated, MOVES["uno"])
    await close_all(seated, watchers)


async def test_resume_elsewhere_replaces_connection(server) -> None:
    first = await Client.open(server.ws, "Twin")
    code = (await first.ok("create_room", game="dots"))["code"]
    second = await Client.open(server.ws)
    await second.ok("resume", token=first.token)
    assert (await second.expect("room"))["code"] == code
    await first.expect("replaced")
    await first._reader
    assert first.ws.close_code == 4000
    bad = await Client.open(server.ws)
    reply = await bad.request("resume", token="not-a-token")
    assert reply["code"] == "invalid_token"
    await close_all([second, bad])


async def test_grace_expiry_applies_leave_rule(server_factory) -> None:
    srv = server_factory({"PARLOUR_GRACE_SECONDS": "0.5"})
    seated, watchers, _ = await open_table(srv.ws, "dots", 3, {"width": 3, "height": 3, "max_players": 3})
    gone = seated[2]
    watcher = watchers[0]
    watcher.skip()
    await gone.ws.close()
    await watcher.expect("member_updated")
    left = await watcher.expect("member_left", timeout=5)
    assert left == {"type": "member_left", "member": gone.member, "reason": "timeout"}
    update = await watcher.expect("game")
    assert gone.seat not in update["view"]["active"]
    # Too late to come back to the seat: the session is no longer in the room.
    back = await Client.open(srv.ws)
    await back.ok("resume", token=gone.token)
    assert (await back.request("chat", text="hi"))["code"] == "not_in_room"
    await play_game(seated[:2], MOVES["dots"])
    await close_all(seated[:2], watchers, [back])


async def test_grace_expiry_in_two_player_game_leaves_last_player_winner(server_factory) -> None:
    srv = server_factory({"PARLOUR_GRACE_SECONDS": "0.3"})
    seated, _, _ = await open_table(srv.ws, "dots", 2, {"width": 3, "height": 3}, spectators=0)
    await seated[1].ws.close()
    over = await seated[0].expect("game_over", timeout=5)
    assert over["outcome"]["winners"] == [seated[0].seat]
    await close_all(seated[:1])
