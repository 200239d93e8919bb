"""Persistence behind one interface (``Store``); SQLite is the embedded default."""

from parlour.store.base import GameRecord, RoomRecord, SessionRecord, Store

__all__ = ["GameRecord", "RoomRecord", "SessionRecord", "Store", "open_store"]


async def open_store(data_dir: str) -> Store:
    """The default store: SQLite (WAL) in ``data_dir``."""
    from parlour.store.sqlite import SQLiteStore

    store = SQLiteStore(data_dir)
    await store.open()
    return store
