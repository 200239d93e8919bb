import pytest

from parlour.config import Config


def test_ws_deflate_defaults_off_and_reads_booleans() -> None:
    assert Config.from_env({}).ws_deflate is False
    for raw, value in [("1", True), ("on", True), ("true", True), ("0", False), ("off", False)]:
        assert Config.from_env({"PARLOUR_WS_DEFLATE": raw}).ws_deflate is value
    with pytest.raises(SystemExit):
        Config.from_env({"PARLOUR_WS_DEFLATE": "maybe"})
