"""Test infrastructure for Engine.IO across nodes (not the thing under test).

``RawPolling`` speaks Engine.IO long-polling by hand (v3 or v4, with Socket.IO v2 or v5 on top)
and sends its handshake to the first node, then every later request (each poll, each POST) to the
next node in turn. ``RoundRobinProxy`` is a tiny HTTP proxy that sends every request, and every
websocket, to the next node: what a load balancer without sticky sessions does to a real client.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import sys
from pathlib import Path
from typing import Any

import aiohttp
import orjson
from aiohttp import web

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "adapters"))
from sioclient import Recorder, v3_packets

SEPARATOR = "\x1e"


def v3_payload(packets: list[str]) -> str:
    return "".join(f"{len(p.encode('utf-16-le')) // 2}:{p}" for p in packets)


class RawPolling(Recorder):
    """One Socket.IO client on Engine.IO polling only, its requests going round ``ports``."""

    def __init__(self, ports: list[int], eio: int, query: str = "", headers: dict[str, str] | None = None):
        super().__init__()
        self.eio = eio
        self._ports = itertools.cycle(ports)
        self.query = query
        self.http = aiohttp.ClientSession(headers=headers)
        self.eio_sid = ""
        self.sid = ""
        self.nodes_used: list[int] = []
        self.closed = asyncio.Event()
        self.closed_poll = asyncio.Event()
        """Set when a poll got only a noop: the session moved to a websocket (polling stops)."""
        self._poller: asyncio.Task[None] | None = None
        self._pinger: asyncio.Task[None] | None = None
        self._connected = asyncio.Event()

    @classmethod
    async def open(
        cls, ports: list[int], eio: int, auth: dict[str, Any] | None = None, **kwargs: Any
    ) -> RawPolling:
        client = cls(ports, eio, **kwargs)
        await client._handshake(auth)
        return client

    def _url(self, sid: bool = True) -> str:
        port = next(self._ports)
        self.nodes_used.append(port)
        url = f"http://127.0.0.1:{port}/socket.io/?EIO={self.eio}&transport=polling"
        if sid:
            url += f"&sid={self.eio_sid}"
        return url + self.query

    async def _handshake(self, auth: dict[str, Any] | None) -> None:
        async with self.http.get(self._url(sid=False)) as response:
            assert response.status == 200
            packets = self._split(await response.text())
        info = orjson.loads(packets[0][1:])
        self.eio_sid, interval = info["sid"], info["pingInterval"] / 1000
        if self.eio == 4:
            await self.post("40" + (orjson.dumps(auth).decode() if auth else ""))
        else:
            self.sid = self.eio_sid  # Socket.IO v2: the default namespace's socket id is the sid
            self._connected.set()
            self._pinger = asyncio.create_task(self._ping(interval))
        for packet in packets[1:]:
            await self._packet(packet)
        self._poller = asyncio.create_task(self._poll())
        await asyncio.wait_for(self._connected.wait(), 10)

    def _split(self, body: str) -> list[str]:
        return v3_packets(body) if self.eio == 3 else body.split(SEPARATOR)

    async def post(self, *packets: str) -> None:
        body = v3_payload(list(packets)) if self.eio == 3 else SEPARATOR.join(packets)
        headers = {"Content-Type": "text/plain"}
        async with self.http.post(self._url(), data=body.encode(), headers=headers) as r:
            assert r.status == 200, await r.text()

    async def _poll(self) -> None:
        while not self.closed.is_set():
            async with self.http.get(self._url()) as response:
                body = await response.text()
                if response.status != 200:
                    self.closed.set()
                    raise AssertionError(f"poll answered {response.status}: {body}")
            packets = self._split(body)
            if packets == ["6"]:
                self.closed_poll.set()
                return
            for packet in packets:
                await self._packet(packet)

    async def _ping(self, interval: float) -> None:
        """Engine.IO v3: the client pings."""
        while not self.closed.is_set() and not self.closed_poll.is_set():
            await asyncio.sleep(interval)
            await self.post("2")

    async def _packet(self, packet: str) -> None:
        if packet == "2":  # v4: the server pings
            await self.post("3")
        elif packet == "1":
            self.closed.set()
        elif packet.startswith("40"):
            if self.eio == 4:
                self.sid = orjson.loads(packet[2:])["sid"]
            self._connected.set()
        elif packet.startswith("42"):
            args = orjson.loads(packet[2:])
            self._record(args[0], args[1] if len(args) > 1 else None)
        elif packet.startswith("41"):
            self.closed.set()

    async def emit(self, event: str, data: Any = None) -> None:
        args = [event] if data is None else [event, data]
        await self.post("42" + orjson.dumps(args).decode())

    async def close(self) -> None:
        with contextlib.suppress(Exception):
            await self.post("41", "1")
        self.closed.set()
        for task in (self._poller, self._pinger):
            if task is not None:
                task.cancel()
                with contextlib.suppress(BaseException):
                    await task
        await self.http.close()


HOP = {"host", "connection", "keep-alive", "transfer-encoding", "upgrade", "content-length"}
HOP |= {"content-encoding", "sec-websocket-key", "sec-websocket-version", "sec-websocket-extensions"}
HOP |= {"sec-websocket-accept"}


class RoundRobinProxy:
    """An HTTP proxy on a free port that sends every request (and every websocket) to the next node."""

    def __init__(self, ports: list[int]) -> None:
        self._ports = itertools.cycle(ports)
        self.sent: list[tuple[str, int]] = []
        self.refused_websockets = 0
        self.port = 0
        self._runner: web.AppRunner | None = None
        self._client: aiohttp.ClientSession | None = None

    async def start(self) -> None:
        app = web.Application(client_max_size=4_000_000)
        app.router.add_route("*", "/{tail:.*}", self._handle)
        self._runner = web.AppRunner(app)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        self.port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        self._client = aiohttp.ClientSession(auto_decompress=False)

    async def stop(self) -> None:
        if self._client is not None:
            await self._client.close()
        if self._runner is not None:
            await self._runner.cleanup()

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        assert self._client is not None
        port = next(self._ports)
        headers = {k: v for k, v in request.headers.items() if k.lower() not in HOP}
        url = f"http://127.0.0.1:{port}{request.path_qs}"
        if request.headers.get("upgrade", "").lower() == "websocket":
            self.sent.append(("ws", port))
            return await self._websocket(request, url.replace("http://", "ws://"), headers)
        self.sent.append((request.method, port))
        body = await request.read()
        async with self._client.request(request.method, url, data=body, headers=headers) as answer:
            payload = await answer.read()
            kept = [(k, v) for k, v in answer.headers.items() if k.lower() not in HOP]
            response = web.Response(status=answer.status, body=payload)
            for k, v in kept:
                response.headers.add(k, v)
            return response

    async def _websocket(self, request: web.Request, url: str, headers: dict[str, str]) -> web.StreamResponse:
        assert self._client is not None
        try:
            upstream = await self._client.ws_connect(url, headers=headers)
        except aiohttp.WSServerHandshakeError as exc:
            self.refused_websockets += 1
            return web.Response(status=exc.status or 403)
        downstream = web.WebSocketResponse()  # pings answered on each leg (uvicorn pings every 20 s)
        await downstream.prepare(request)

        async def pump(source: Any, sink: Any) -> None:
            async for message in source:
                if message.type == aiohttp.WSMsgType.TEXT:
                    await sink.send_str(message.data)
                elif message.type == aiohttp.WSMsgType.BINARY:
                    await sink.send_bytes(message.data)
                else:
                    break
            await sink.close()

        await asyncio.gather(pump(upstream, downstream), pump(downstream, upstream), return_exceptions=True)
        return downstream
