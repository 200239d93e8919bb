"""Guest profiles over real websockets: made on identify, proved by their secret, kept across restarts
and rooms, named in game records, and the key to a private room's games."""

from __future__ import annotations

from tests.server.client import Client, close_all
from tests.server.conftest import ServerFactory
from tests.server.history import fetch, finished_game, game_ids, play_with_bots, profile_header


async def test_a_profile_survives_a_restart_and_a_new_room(server_factory: ServerFactory) -> None:
    server = server_factory()
    ada = await Client.open(server.ws)
    welcome = await ada.ok("identify", name="Ada")
    profile = welcome["profile"]
    assert profile["id"].startswith("p_") and len(profile["secret"]) >= 20
    bob = await Client.open(server.ws)
    bob_profile = (await bob.ok("identify", name="Bob"))["profile"]
    assert bob_profile["id"] != profile["id"]
    players, first_room = await finished_game(server, public=False, players=[ada, bob])
    await close_all(players)
    server.stop()
    assert server.start()

    # After the restart the same credentials name the same profile (its secret is not sent again),
    # under the name chosen now.
    again = await Client.open(server.ws)
    welcome = await again.ok("identify", name="Ada L", profile=profile)
    assert welcome["profile"] == {"id": profile["id"]}
    stranger = await Client.open(server.ws)
    stranger_profile = (await stranger.ok("identify", name="Eve"))["profile"]
    players, second_room = await finished_game(server, public=False, players=[again, stranger])
    (first,) = game_ids(server, first_room)
    (second,) = game_ids(server, second_room)

    # Both private games are Ada's: she sees them (by her profile), each names her profile.
    for gid, name in ((first, "Ada"), (second, "Ada L")):
        status, body, _ = fetch(server, f"/api/games/{gid}", profile_header(profile))
        assert status == 200, body
        ada = body["players"][0]
        assert (ada["seat"], ada["name"], ada["profile"]) == (0, name, profile["id"])
        assert list(ada["stats"]) == ["boxes"]
        assert "room" not in body and body["private"] is True
        assert profile["secret"] not in str(body)
    # Bob played only the first; Eve only the second; nobody else sees either.
    assert fetch(server, f"/api/games/{first}", profile_header(bob_profile))[0] == 200
    assert fetch(server, f"/api/games/{second}", profile_header(bob_profile))[0] == 404
    assert fetch(server, f"/api/games/{first}", profile_header(stranger_profile))[0] == 404
    assert fetch(server, f"/api/games/{second}")[0] == 404
    wrong = {"id": profile["id"], "secret": "not-the-secret"}
    assert fetch(server, f"/api/games/{second}", profile_header(wrong))[0] == 404
    await close_all(players)


async def test_a_wrong_secret_gets_a_new_profile_and_resume_keeps_it(server_factory: ServerFactory) -> None:
    server = server_factory()
    ada = await Client.open(server.ws)
    welcome = await ada.ok("identify", name="Ada")
    profile, token = welcome["profile"], welcome["token"]
    await ada.close()

    thief = await Client.open(server.ws)
    welcome = await thief.ok("identify", name="Ada", profile={"id": profile["id"], "secret": "guess"})
    assert welcome["profile"]["id"] != profile["id"] and "secret" in welcome["profile"]
    oversized = await Client.open(server.ws)
    bad = await oversized.request("identify", name="Ada", profile={"id": "x" * 65, "secret": "s"})
    assert bad["type"] == "error" and bad["code"] == "bad_message", bad

    server.stop()
    assert server.start()
    back = await Client.open(server.ws)
    welcome = await back.ok("resume", token=token)
    assert welcome["profile"] == {"id": profile["id"]}
    await close_all([thief, oversized, back])


async def test_a_game_cut_by_a_crash_still_names_the_profiles_and_bot(server_factory: ServerFactory) -> None:
    """kill -9 mid-game: the room comes back from its log, and the finished game's record names the
    players' profiles (from their logged joins), the bot's level and their stats."""
    server = server_factory({"PARLOUR_BOT_DELAY": "0"})
    ada, bob = await Client.open(server.ws), await Client.open(server.ws)
    ada_welcome, bob_welcome = await ada.ok("identify", name="Ada"), await bob.ok("identify", name="Bob")
    room = await ada.ok("create_room", game="cheat", capacity=3, public=True)
    await bob.ok("join", code=room["code"])
    await ada.ok("add_bot", level="hard")
    await ada.ok("start")
    for client in (ada, bob):
        await client.wait_for(lambda m: m.get("type") == "game_started", from_start=True)
    server.kill()
    for client in (ada, bob):
        await client._reader
    server.start()
    back = []
    for welcome in (ada_welcome, bob_welcome):
        client = await Client.open(server.ws)
        assert (await client.ok("resume", token=welcome["token"]))["profile"] == {
            "id": welcome["profile"]["id"]
        }
        await client.expect("room")
        back.append(client)
    await play_with_bots(back)
    (gid,) = game_ids(server, room["code"])
    status, game, _ = fetch(server, f"/api/games/{gid}")
    assert status == 200
    by_name = {p["name"]: p for p in game["players"]}
    assert by_name["Ada"]["profile"] == ada_welcome["profile"]["id"]
    assert by_name["Bob"]["profile"] == bob_welcome["profile"]["id"]
    bot = next(p for p in game["players"] if p.get("bot"))
    assert bot["bot"] == "hard" and bot["profile"] == "bot-cheat-hard"
    assert all(set(p["stats"]) == {"calls", "calls_right", "caught_lying"} for p in game["players"])
    await close_all(back)
