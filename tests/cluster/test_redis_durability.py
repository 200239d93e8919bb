"""A node tells its operator at start when Redis would lose the rooms on a restart (no AOF)."""

from __future__ import annotations

from pathlib import Path

from tests.cluster.conftest import Cluster, RedisProcess


def _node_log(tmp_path: Path, *redis_options: str) -> str:
    redis = RedisProcess(tmp_path, *redis_options)
    redis.start()
    cluster = Cluster(tmp_path, redis)
    try:
        node = cluster.add({"PARLOUR_LOG_LEVEL": "info"})  # returns once the node serves
        return node.log_path.read_text()
    finally:
        cluster.stop()
        redis.stop()


def test_a_node_on_a_redis_without_aof_warns_at_start(tmp_path: Path) -> None:
    log = _node_log(tmp_path, "--appendonly", "no")
    warning = next(line for line in log.splitlines() if "event=redis_not_durable" in line)
    assert "level=warning" in warning and "appendonly=no" in warning
    assert "docs/scaling.md" in warning


def test_a_node_on_a_redis_with_aof_says_nothing(tmp_path: Path) -> None:
    log = _node_log(tmp_path)
    assert "event=started" in log
    assert "redis_not_durable" not in log and "redis_durability_unknown" not in log


def test_a_redis_that_refuses_config_is_noted_not_warned(tmp_path: Path) -> None:
    """A managed Redis often disables CONFIG: the node cannot tell, says so quietly, and serves."""
    log = _node_log(tmp_path, "--appendonly", "no", "--rename-command", "CONFIG", "")
    assert "event=redis_durability_unknown" in log
    assert "redis_not_durable" not in log
