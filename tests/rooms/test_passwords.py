"""Room passwords: PBKDF2 (~10 ms) runs in worker threads, never on the event loop."""

from __future__ import annotations

import hashlib
import threading
from typing import Any

import pytest

from parlour.rooms import CallbackSink, Command, validate
from tests.rooms.harness import Harness, Inbox


async def test_password_hashing_and_checks_run_off_the_event_loop(
    harness: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    threads: list[threading.Thread] = []
    real = hashlib.pbkdf2_hmac

    def spy(*args: Any, **kwargs: Any) -> bytes:
        threads.append(threading.current_thread())
        return real(*args, **kwargs)

    monkeypatch.setattr(validate.hashlib, "pbkdf2_hmac", spy)
    loop_thread = threading.current_thread()
    host, guest, other = [await harness.client(n) for n in ("Host", "Guest", "Other")]
    await harness.manager.create_room(host.session, host.sink, "r", game="dots", password="pw", capacity=3)
    code = host.last("room")["code"]
    await harness.manager.join(guest.session, guest.sink, "r", code, "nope", "player")
    assert guest.messages[-1]["code"] == "wrong_password"
    await harness.manager.join(guest.session, guest.sink, "r", code, None, "player")
    assert guest.messages[-1]["code"] == "wrong_password"
    await harness.manager.join(guest.session, guest.sink, "r", code, "pw", "player")
    assert guest.messages[-1]["type"] == "room"
    assert (await host.do("update_settings", password="new"))["type"] == "ok"
    await harness.manager.join(other.session, other.sink, "r", code, "pw", "player")
    assert other.messages[-1]["code"] == "wrong_password"
    await harness.manager.join(other.session, other.sink, "r", code, "new", "player")
    assert other.messages[-1]["type"] == "room"
    assert len(threads) >= 7 and loop_thread not in threads
    (room,) = harness.manager.rooms.values()
    assert "new" not in str(room.records) and "pw" not in str(room.records)


async def test_a_stale_pre_check_is_not_trusted(harness: Harness) -> None:
    """A check made against a password the host has since changed does not let anyone in."""
    host, guest = await harness.client("Host"), await harness.client("Guest")
    await harness.manager.create_room(host.session, host.sink, "r", game="dots", password="pw")
    (room,) = harness.manager.rooms.values()
    payload = {"name": "Guest", "password": "old", "password_verified": ["salt$stale", True]}
    assert await room.submit(Command("join", guest.session.id, payload, guest.sink, "j")) == "wrong_password"


async def test_spectators_need_no_password_where_the_room_says_so_after_recovery_too(
    harness: Harness,
) -> None:
    """``spectators_need_password=False`` (how /dots CREATE makes a room) is the room's own rule: it
    is in the room's config, so whichever manager rebuilds the room (fail-over) keeps it."""
    host, watcher, guest = [await harness.client(n) for n in ("Host", "Watcher", "Guest")]
    await harness.manager.create_room(
        host.session, host.sink, "r", game="dots", password="pw", spectators_need_password=False
    )
    code = host.last("room")["code"]
    await harness.manager.join(watcher.session, watcher.sink, "r", code, "not it", "spectator")
    assert watcher.messages[-1]["type"] == "room"
    assert (await watcher.do("take_seat"))["code"] == "wrong_password"  # it never gave the password
    await harness.manager.join(guest.session, guest.sink, "r", code, None, "player")
    assert guest.messages[-1]["code"] == "wrong_password"

    again = harness.restarted()
    await again.recover()
    late, player = [
        Inbox(again, *(await again.identify(CallbackSink(lambda m: None), n))[:2]) for n in ("Late", "Pl")
    ]
    await again.join(late.session, late.sink, "r", code, None, "spectator")
    assert late.messages[-1]["type"] == "room"
    await again.join(player.session, player.sink, "r", code, None, "player")
    assert player.messages[-1]["code"] == "wrong_password"
    await again.join(player.session, player.sink, "r", code, "pw", "player")
    assert player.messages[-1]["type"] == "room"
    await again.close()
