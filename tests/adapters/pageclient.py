"""The socket-uno tutorial page's client, on the official socket.io-client 2.5.0 under Node.

``node/tutorial_client.js`` behaves as the page does (requestRoom on connect, ``room`` and
``hand`` kept from the events); this wrapper records what it receives with ``SioClient``'s
interface, so the tutorial tests' turn-taking helpers drive it as they drive a v4 client.
``scripts/install-node-deps.sh`` (run by ``./test``) installs the pinned client.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import shutil
from pathlib import Path
from typing import Any

from sioclient import Recorder

NODE_DIR = Path(__file__).parent / "node"


class PageClient(Recorder):
    """One tutorial page: a Node process speaking Socket.IO v2 over Engine.IO v3."""

    def __init__(self, proc: asyncio.subprocess.Process) -> None:
        super().__init__()
        self.proc = proc
        self.sid = ""
        self.transport = ""
        self.upgraded = asyncio.Event()
        self.connected = asyncio.Event()
        self.disconnect_reason: str | None = None
        self.disconnected = asyncio.Event()
        self._reader = asyncio.create_task(self._read())

    @classmethod
    async def open(cls, server: Any, name: str, transports: list[str]) -> PageClient:
        """Start the page; returns once Socket.IO says ``connect`` (it has sent ``requestRoom``)."""
        node = shutil.which("node")
        assert node, "node is needed for the socket.io 2.x tests"
        assert (NODE_DIR / "node_modules" / "socket.io-client").is_dir(), "run scripts/install-node-deps.sh"
        proc = await asyncio.create_subprocess_exec(
            node,
            str(NODE_DIR / "tutorial_client.js"),
            f"http://127.0.0.1:{server.port}",
            name,
            ",".join(transports),
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
        )
        client = cls(proc)
        await asyncio.wait_for(client.connected.wait(), 10)
        return client

    def gone(self) -> str:
        return f"; the page disconnected: {self.disconnect_reason}" if self.disconnected.is_set() else ""

    async def _read(self) -> None:
        assert self.proc.stdout is not None
        async for line in self.proc.stdout:
            record = json.loads(line)
            kind = record["type"]
            if kind == "event":
                self._record(record["name"], record["data"])
            elif kind == "connect":
                self.sid, self.transport = record["id"], record["transport"]
                self.connected.set()
            elif kind == "upgrade":
                self.transport = record["transport"]
                self.upgraded.set()
            elif kind == "disconnect":
                self.disconnect_reason = record["reason"]
                self.disconnected.set()
            self._arrived.set()

    async def _command(self, **command: Any) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(command).encode() + b"\n")
        await self.proc.stdin.drain()

    async def emit(self, event: str, data: Any = None) -> None:
        """``playCard``/``drawCard`` become the page's clicks on that card / on the deck."""
        if event == "playCard":
            await self._command(click="card", index=self.last("haveCard").index(data[0]))
        elif event == "drawCard":
            await self._command(click="deck")
        else:
            await self._command(emit=event, data=data)

    async def close(self) -> None:
        """The page closes its socket (as on unload) and exits."""
        with contextlib.suppress(ConnectionError):
            await self._command(close=True)
            assert self.proc.stdin is not None
            self.proc.stdin.close()
        await asyncio.wait_for(self.proc.wait(), 10)
        await self._reader
