"""Structured logs: one ``key=value`` line per record, easy to grep and to ship."""

from __future__ import annotations

import logging
import time


class KeyValueFormatter(logging.Formatter):
    """``ts=... level=info logger=parlour.rooms event=...``: our own messages are key=value too."""

    def format(self, record: logging.LogRecord) -> str:
        ts = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created)) + f".{int(record.msecs):03d}Z"
        line = f"ts={ts} level={record.levelname.lower()} logger={record.name} {record.getMessage()}"
        if record.exc_info:
            line += "\n" + self.formatException(record.exc_info)
        return line


def configure_logging(level: str) -> None:
    handler = logging.StreamHandler()
    handler.setFormatter(KeyValueFormatter())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())
