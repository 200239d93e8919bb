"""Persistence behind one interface (``Store``); SQLite is the embedded default."""

from parlour.store.base import (
    Fenced,
    GameQuery,
    GameRecord,
    PlayerTotals,
    ProfileRecord,
    RoomRecord,
    SessionRecord,
    Store,
    game_id,
)

__all__ = [
    "Fenced",
    "GameQuery",
    "GameRecord",
    "PlayerTotals",
    "ProfileRecord",
    "RoomRecord",
    "SessionRecord",
    "Store",
    "game_id",
    "open_store",
]


async def open_store(
    data_dir: str, redis_url: str = "", lease_seconds: float = 3.0, log_retention_days: float = 7.0
) -> Store:
    """The default store: SQLite (WAL) in ``data_dir``; Redis when ``redis_url`` is set (cluster mode,
    where a closed room's log goes at once)."""
    if redis_url:
        from parlour.store.redis import RedisStore, node_name

        redis_store = RedisStore(redis_url, node_name(), lease_seconds)
        await redis_store.open()
        return redis_store
    from parlour.store.sqlite import SQLiteStore

    store = SQLiteStore(data_dir, log_retention=log_retention_days * 86400)
    await store.open()
    return store
