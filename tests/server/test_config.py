import pytest

from parlour.config import Config


def test_ws_deflate_defaults_off_and_reads_booleans() -> None:
    assert Config.from_env({}).ws_deflate is False
    for raw, value in [("1", True), ("on", True), ("true", True), ("0", False), ("off", False)]:
        assert Config.from_env({"PARLOUR_WS_DEFLATE": raw}).ws_deflate is value
    with pytest.raises(SystemExit):
        Config.from_env({"PARLOUR_WS_DEFLATE": "maybe"})


def test_rate_limit_per_protocol_overrides_the_default() -> None:
    config = Config.from_env({"PARLOUR_PROTOCOL_RATES": "dots=30/60, socketio=25/50"})
    assert config.rate_for("dots") == (30.0, 60)
    assert config.rate_for("socketio") == (25.0, 50)
    assert config.rate_for("native") == config.rate_for("cheat") == (20.0, 40)
    for bad in ("dots=30", "telnet=1/2", "dots=fast/60"):
        with pytest.raises(SystemExit):
            Config.from_env({"PARLOUR_PROTOCOL_RATES": bad})


def test_bot_delay_reads_one_value_or_a_range() -> None:
    assert Config.from_env({}).bot_delay == (0.6, 1.6)
    assert Config.from_env({"PARLOUR_BOT_DELAY": "0"}).bot_delay == (0.0, 0.0)
    assert Config.from_env({"PARLOUR_BOT_DELAY": "0.5"}).bot_delay == (0.5, 0.5)
    assert Config.from_env({"PARLOUR_BOT_DELAY": "0.6,1.8"}).bot_delay == (0.6, 1.8)
    for bad in ["fast", "2,1", "-1", "1,2,3"]:
        with pytest.raises(SystemExit):
            Config.from_env({"PARLOUR_BOT_DELAY": bad})
