"""The bus between nodes over a real Redis: items and pre-encoded game messages arrive in order."""

from __future__ import annotations

import asyncio

import orjson

from parlour.rooms.cluster.bus import Bus, Item
from parlour.store.pipeline import Pipeliner


async def _nothing() -> None:
    return None


async def test_frames_and_items_for_a_node_arrive_in_the_order_posted(redis_server) -> None:
    got: list[Item] = []
    arrived = asyncio.Event()

    def on_item(item: Item) -> None:
        got.append(item)
        if len(got) == 6:
            arrived.set()

    sender = Bus(redis_server.url, Pipeliner(redis_server.url), "a", lambda item: None, _nothing)
    receiver = Bus(redis_server.url, Pipeliner(redis_server.url), "b", on_item, _nothing)
    await receiver.start()
    await sender.start()
    try:
        # Frames may hold any JSON, newlines inside strings escaped as orjson writes them.
        first = orjson.dumps({"type": "game", "text": "two\nlines", "seq": 1})
        second = orjson.dumps({"type": "game", "seq": 2, "view": {"hand": [1, 2, 3]}})
        sender.post("b", ["m", 7, {"type": "chat", "text": "hi"}])
        sender.post_frame("b", 7, first)
        sender.post_frame("b", 8, second)
        sender.post("b", ["c", 8, 1000, "bye"])
        await asyncio.sleep(0)  # what was posted so far goes out as one message; the rest in another
        sender.post_frame("b", 7, b"{}")
        sender.post("b", ["m", 7, {"type": "pong"}])
        await asyncio.wait_for(arrived.wait(), 5)
    finally:
        await sender.stop()
        await receiver.stop()
    assert got == [
        ["m", 7, {"type": "chat", "text": "hi"}],
        ["j", 7, first],
        ["j", 8, second],
        ["c", 8, 1000, "bye"],
        ["j", 7, b"{}"],
        ["m", 7, {"type": "pong"}],
    ]
    assert orjson.loads(got[1][2])["text"] == "two\nlines"
