"""Reconnection: drop and resume mid-turn; grace expiry applies the game's leave rule, or a bot takes
the seat over (``bots_take_over``, on by default) and hands it back on resume."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

from tests.server.client import Client, Message, close_all, first_legal, open_table, play_game


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
    grace = dropped["grace"]  # how long the seat waits, for everyone's countdown
    assert 0 < grace["remaining"] <= 60 and abs(grace["deadline"] - grace["remaining"] - time.time()) < 5

    back = await Client.open(server.ws)
    welcome = await back.ok("resume", token=on_turn.token)
    assert welcome["name"] == on_turn.name and welcome["token"] == on_turn.token
    snap = await back.expect("room")
    assert snap["you"]["member"] == on_turn.member and snap["you"]["seat"] == on_turn.seat
    assert snap["table"]["view"]["hand"] == hand
    assert snap["table"]["turn"]["seat"] == on_turn.seat
    assert on_turn.member not in snap["timers"]["grace"]
    assert "taken_back" not in snap  # back within the grace: nobody played the seat
    again = await other.expect("member_updated")
    assert again["member"]["connected"] is True
    seated[seated.index(on_turn)] = back
    await play_game(seated)
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
    # A native client is always issued its token: naming one is for in-process adapters only.
    chosen = await bad.request("identify", name="Chooser", token="x" * 43)
    assert chosen["code"] == "bad_message"
    assert (await bad.request("resume", token="x" * 43))["code"] == "invalid_token"
    await close_all([second, bad])


async def test_grace_expiry_applies_leave_rule(server_factory) -> None:
    srv = server_factory({"PARLOUR_GRACE_SECONDS": "0.5"})
    seated, watchers, code = await open_table(
        srv.ws, "dots", 3, {"width": 3, "height": 3, "max_players": 3}, bots_take_over=False
    )
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
    # Back in as a spectator, they are told the seat went (a watcher who never played is not).
    await back.ok("spectate", code=code)
    assert (await back.expect("room"))["seat_lost"] is True
    assert "seat_lost" not in (await watcher.wait_for(lambda m: m.get("type") == "room", from_start=True))
    await play_game(seated[:2])
    await close_all(seated[:2], watchers, [back])


async def test_a_seat_lost_in_a_game_that_then_ended_is_said_on_coming_back(server_factory) -> None:
    """Back after the game they lost their seat in has ended: the snapshot says so (the page shows them
    its results, not a waiting room as to a newcomer); after a rematch starts over, no longer."""
    srv = server_factory({"PARLOUR_GRACE_SECONDS": "0.5"})
    seated, watchers, code = await open_table(
        srv.ws, "dots", 3, {"width": 3, "height": 3, "max_players": 3}, spectators=0, bots_take_over=False
    )
    gone = seated[2]
    await gone.ws.close()
    await seated[0].wait_for(lambda m: m.get("type") == "member_left", 5)
    await play_game(seated[:2])
    back = await Client.open(srv.ws)
    await back.ok("resume", token=gone.token)
    await back.ok("join", code=code)
    snapshot = await back.expect("room")
    assert snapshot["state"] == "finished" and snapshot["seat_lost"] is True
    assert "played_by_bot" not in snapshot  # no bot took the seat over: it was given up mid-game
    await seated[0].ok("rematch")  # a new game's waiting room: nothing lost in it
    await back.ok("leave")
    await back.ok("join", code=code)
    again = await back.wait_for(lambda m: m.get("type") == "room" and m["state"] == "waiting")
    assert "seat_lost" not in again
    await close_all(seated[:2], watchers, [back])


async def test_grace_expiry_in_two_player_game_leaves_last_player_winner(server_factory) -> None:
    srv = server_factory({"PARLOUR_GRACE_SECONDS": "0.3"})
    seated, _, _ = await open_table(
        srv.ws, "dots", 2, {"width": 3, "height": 3}, spectators=0, bots_take_over=False
    )
    await seated[1].ws.close()
    over = await seated[0].expect("game_over", timeout=5)
    assert over["outcome"]["winners"] == [seated[0].seat]
    await close_all(seated[:1])


TAKEOVER_ENV = {"PARLOUR_GRACE_SECONDS": "0.3", "PARLOUR_BOT_DELAY": "0"}


def _replaced(member: str, replaced: bool = True) -> Callable[[Message], bool]:
    return lambda m: (
        m.get("type") == "member_updated"
        and m["member"]["id"] == member
        and m["member"]["replaced"] is replaced
    )


def _moves_by(client: Client, seat: int, since: int) -> int:
    """Game messages since ``since`` whose events include a move by ``seat``."""
    return sum(
        1
        for m in client.messages[since:]
        if m.get("type") == "game" and any(e.get("seat") == seat for e in m["events"])
    )


async def _play_until(client: Client, done: Callable[[], bool]) -> None:
    """``client`` plays its UNO seat (a bot plays the other) until ``done()`` or the game ends."""
    for _ in range(5000):
        if client.game_over is not None or done():
            return
        if client.turn is not None and client.turn["seat"] == client.seat:
            seq = client.seq
            reply = await client.request("action", action=first_legal(client.view or {}))
            if reply["type"] == "ok":
                await client.wait_for(lambda m, s=seq: client.seq > s, from_start=True)
                continue
        await asyncio.sleep(0.01)
    raise AssertionError("the game did not finish")


async def test_a_bot_takes_over_a_dropped_player_and_finishes_the_game(server_factory) -> None:
    srv = server_factory(TAKEOVER_ENV)
    seated, watchers, _ = await open_table(srv.ws, "uno", 2, {"target_score": 0})
    me, gone = seated
    await gone.ws.close()
    taken = await me.wait_for(_replaced(gone.member), timeout=5)
    assert taken["member"]["connected"] is False and taken["member"]["bot"] is False
    since = len(me.messages)
    await _play_until(me, lambda: False)
    over = await me.expect("game_over", timeout=10)
    assert over["outcome"]["reason"] == "finished"
    assert _moves_by(me, gone.seat or 0, since) > 0
    # The seat was given up when grace ran out: after the game, the player is gone from the room.
    assert await me.expect("member_left") == {
        "type": "member_left",
        "member": gone.member,
        "reason": "timeout",
    }
    await watchers[0].wait_for(lambda m: m.get("type") == "member_left", from_start=True)
    await close_all([me], watchers)


async def test_resuming_before_the_end_takes_the_seat_back(server_factory) -> None:
    srv = server_factory(TAKEOVER_ENV)
    seated, watchers, _ = await open_table(srv.ws, "uno", 2, {"target_score": 0})
    me, gone = seated
    await gone.ws.close()
    await me.wait_for(_replaced(gone.member), timeout=5)
    since = len(me.messages)
    await _play_until(me, lambda: _moves_by(me, gone.seat or 0, since) > 0)
    assert me.game_over is None, "the bot should have moved before the game ended"

    back = await Client.open(srv.ws)
    await back.ok("resume", token=gone.token)
    snap = await back.expect("room")
    assert snap["you"]["member"] == gone.member and snap["state"] == "playing"
    mine = next(m for m in snap["members"] if m["id"] == gone.member)
    assert mine["connected"] is True and mine["replaced"] is False
    assert snap["taken_back"] is True  # the page says a bot kept the seat
    await me.wait_for(_replaced(gone.member, replaced=False), from_start=True)
    # From here on every move of that seat is the resumed human's: play_game asserts each is accepted,
    # and the seat's turns only ever pass when its player acts.
    over = await play_game([me, back])
    assert over["outcome"]["reason"] == "finished"
    assert not any(m.get("type") == "member_left" for m in me.messages[since:])
    await close_all([me, back], watchers)


async def test_one_who_left_the_game_themselves_and_watches_it_is_not_told_their_seat_was_lost(
    server,
) -> None:
    seated, watchers, code = await open_table(
        server.ws, "dots", 3, {"width": 3, "height": 3, "max_players": 3}
    )
    leaver = seated[2]
    await leaver.ok("leave")
    await leaver.ok("spectate", code=code)
    assert "seat_lost" not in await leaver.expect("room")
    await close_all(seated, watchers)
