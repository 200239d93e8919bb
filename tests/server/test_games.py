"""Complete games of every engine between scripted clients over real websockets, with spectators,
and a leak scan over every frame each client received."""

from __future__ import annotations

import html
import json
import re

import pytest

from tests.server.client import Client, close_all, first_legal, open_table, play_game
from tests.server.leaks import scan


@pytest.mark.parametrize(
    ("game", "players", "settings"),
    [
        ("dots", 2, {"width": 4, "height": 4}),
        ("dots", 3, {"width": 5, "height": 3, "max_players": 3}),
        ("cheat", 3, {}),
        ("cheat", 5, {"rank_sequence": "up_or_down"}),
        ("uno", 2, {"target_score": 0}),
        ("uno", 4, {"target_score": 0, "stacking": True, "draw_until_playable": True}),
        ("uno", 4, {"target_score": 0, "seven_swap": True, "zero_rotate": True, "jump_in": True}),
        ("uno", 2, {"target_score": 0, "forced_play": True, "challenge_wild_draw4": False}),
    ],
)
async def test_full_game_with_spectator(server, game: str, players: int, settings: dict) -> None:
    seated, watchers, _ = await open_table(
        server.ws, game, players, settings, spectators=1, password="s3cret!"
    )
    over = await play_game(seated)
    assert over["outcome"]["reason"] in (
        "finished",
        "last_player",
        "round_over",
        "target_score",
        "out_of_cards",
    )
    # The spectator saw the same game to the end, with no hand.
    spectator = watchers[0]
    await spectator.wait_for(lambda m: m.get("type") == "game_over", from_start=True)
    assert spectator.seat is None and "hand" not in (spectator.view or {})
    assert spectator.game_over["outcome"] == over["outcome"]
    checked = scan(game, seated, watchers, [c.token for c in seated + watchers] + ["s3cret!"])
    assert checked > players * 5
    await close_all(seated, watchers)


async def test_cheat_calls_both_ways(server) -> None:
    """A call on a lie makes the liar pick up; a call on the truth makes the caller pick up."""
    seated, watchers, _ = await open_table(server.ws, "cheat", 3)
    by_seat = {c.seat: c for c in seated}
    outcomes = set()
    for _ in range(40):
        leader = max(seated, key=lambda c: c.seq)
        placer = by_seat[leader.turn["seat"]]
        await placer.wait_seq(leader.seq)
        view = placer.view
        rank = view["ranks"][0]
        truthful = [c["id"] for c in view["hand"] if c["rank"] == rank]
        lie = [c["id"] for c in view["hand"] if c["rank"] != rank]
        want_truth = "truthful" not in outcomes
        cards = truthful[:1] if want_truth and truthful else lie[:1] if not want_truth and lie else None
        if cards is None:
            await placer.ok("action", action=first_legal(view))
            continue
        await placer.ok("action", action={"type": "play", "cards": cards, "rank": rank})
        caller = by_seat[(placer.seat + 1) % 3]
        caller.skip()
        await caller.ok("action", action={"type": "call"})
        called = await caller.wait_for(
            lambda m: m.get("type") == "game" and any(e["type"] == "called" for e in m["events"])
        )
        event = next(e for e in called["events"] if e["type"] == "called")
        expected = caller.seat if event["truthful"] else placer.seat
        assert event["picked_up_by"] == expected
        if called["turn"] is not None:  # play continues from the one after the challenged player
            assert called["turn"]["seat"] == (placer.seat + 1) % 3
        outcomes.add("truthful" if event["truthful"] else "lie")
        if outcomes == {"truthful", "lie"} or caller.game_over:
            break
    assert outcomes == {"truthful", "lie"}
    scan("cheat", seated, watchers, [c.token for c in seated + watchers])
    await close_all(seated, watchers)


async def test_rematch_after_game(server) -> None:
    seated, _, _ = await open_table(server.ws, "dots", 2, {"width": 3, "height": 3}, spectators=0, capacity=3)
    await play_game(seated)
    late = await Client.open(server.ws, "Late")
    reply = await late.request("join", code=seated[0].room["code"])
    assert reply["type"] == "room" and reply["state"] == "finished"
    seated[0].skip()
    await seated[1].ok("rematch")
    snap = await seated[0].expect("room")
    assert snap["state"] == "waiting" and snap["table"] is None
    await seated[0].expect("state_changed", state="waiting")
    assert [m["seat"] for m in snap["members"] if m["role"] == "player"] == [0, 1, 2]
    await seated[0].ok("start")
    await late.wait_for(lambda m: m.get("type") == "game_started", from_start=True)
    assert late.seat == 2
    await close_all(seated, [late])


@pytest.mark.parametrize(
    ("game", "settings"), [("uno", {"target_score": 0}), ("dots", {"width": 3, "height": 3})]
)
async def test_the_scoreboard_sums_points_only_for_a_game_whose_scores_add_up(
    server, game: str, settings: dict
) -> None:
    """UNO's points add up over games (``scores_add_up``); Dots' boxes are not points, only wins count."""
    seated, _, _ = await open_table(server.ws, game, 2, settings, spectators=0)
    over = await play_game(seated)
    ended = await seated[0].wait_for(lambda m: m.get("type") == "game_over", from_start=True)
    scores = over["outcome"]["scores"]
    points = {line["member"]: line["points"] for line in ended["scoreboard"]}
    for client in seated:
        expected = int(scores.get(str(client.seat), 0)) if game == "uno" else 0
        assert points[client.member] == expected, (game, scores, ended["scoreboard"])
    assert game != "uno" or any(points.values())
    await close_all(seated)


def test_the_front_page_names_every_game_it_offers(server) -> None:
    """Link previews read the page's description without running it: the server writes the catalog's
    games in, so a new game is named there without editing the page."""
    page = server.get("/").decode()
    titles = [g["title"] for g in json.loads(server.get("/api/catalog"))["games"]]
    assert len(titles) >= 4
    named = ", ".join(titles[:-1]) + " and " + titles[-1]
    for meta in ('name="description"', 'property="og:description"'):
        content = re.search(rf'<meta {meta} content="([^"]*)"', page)
        assert content is not None, meta
        assert html.unescape(content.group(1)).count(named) == 1, content.group(1)
    assert "{games}" not in page
    assert server.get("/r/ABCDE").decode() == page
