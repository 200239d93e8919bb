"""Room passwords: PBKDF2 (~10 ms) runs in worker threads, never on the event loop."""

from __future__ import annotations

import hashlib
import threading
from typing import Any

import pytest

from parlour.rooms import Command, validate
from tests.rooms.harness import Harness


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
