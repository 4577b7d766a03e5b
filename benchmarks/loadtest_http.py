"""A lean HTTP/1.1 client for the load test: keep-alive connections on asyncio, nothing else.

The load generator shares the machine with the server it measures, so its own cost per request
is taken from the server's CPU. A general client (httpx) spends several milliseconds of CPU per
request on this kind of machine; this one parses a status line, headers and a Content-Length
or chunked body, and keeps a pool of idle connections. It speaks only what the companion
answers over plain HTTP on loopback; anything it cannot read is a ``TransportError``.
"""

from __future__ import annotations

import asyncio
import json as jsonlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, cast
from urllib.parse import urlencode, urlsplit


class TransportError(Exception):
    """The connection failed, closed early, timed out, or answered something unreadable."""


@dataclass
class Response:
    status_code: int
    headers: dict[str, str]  # lower-case names
    content: bytes

    def json(self) -> Any:
        return jsonlib.loads(self.content)

    @property
    def text(self) -> str:
        return self.content.decode("utf-8", "replace")


class _Connection(asyncio.Protocol):
    """One keep-alive connection; one request at a time."""

    def __init__(self) -> None:
        self.transport: asyncio.Transport | None = None
        self.buffer = bytearray()
        self.waiter: asyncio.Future[Response] | None = None
        self.closed = False
        self.port: int | None = None  # the client's, set as it opens

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.Transport, transport)

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        if self.waiter is not None and not self.waiter.done():
            self.waiter.set_exception(TransportError(f"connection closed: {exc}"))

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        if self.waiter is None or self.waiter.done():
            return
        try:
            response = self._parse()
        except TransportError as exc:
            self.waiter.set_exception(exc)
            return
        if response is not None:
            self.waiter.set_result(response)

    def send(self, raw: bytes) -> asyncio.Future[Response]:
        assert self.transport is not None
        self.buffer.clear()
        self.waiter = asyncio.get_running_loop().create_future()
        self.transport.write(raw)
        return self.waiter

    def _parse(self) -> Response | None:
        end = self.buffer.find(b"\r\n\r\n")
        if end < 0:
            return None
        head = bytes(self.buffer[:end]).decode("latin-1").split("\r\n")
        try:
            status = int(head[0].split(" ", 2)[1])
        except (IndexError, ValueError):
            raise TransportError(f"not an HTTP status line: {head[0][:80]!r}") from None
        headers: dict[str, str] = {}
        for line in head[1:]:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
        start = end + 4
        if headers.get("transfer-encoding", "").lower() == "chunked":
            body = self._chunked(start)
            if body is None:
                return None
        else:
            length = int(headers.get("content-length", "0"))
            if len(self.buffer) < start + length:
                return None
            body = bytes(self.buffer[start : start + length])
        if headers.get("connection", "").lower() == "close" and self.transport is not None:
            self.closed = True
            self.transport.close()
        return Response(status, headers, body)

    def _chunked(self, start: int) -> bytes | None:
        parts: list[bytes] = []
        at = start
        while True:
            line_end = self.buffer.find(b"\r\n", at)
            if line_end < 0:
                return None
            size = int(bytes(self.buffer[at:line_end]).split(b";")[0], 16)
            at = line_end + 2
            if size == 0:
                return b"".join(parts) if self.buffer.find(b"\r\n", at) >= 0 else None
            if len(self.buffer) < at + size + 2:
                return None
            parts.append(bytes(self.buffer[at : at + size]))
            at += size + 2


class LeanClient:
    """``request(method, path, params=, json=, data=, headers=)`` over a pool of connections."""

    def __init__(self, base_url: str, *, max_connections: int, timeout: float = 30.0) -> None:
        parts = urlsplit(base_url)
        self.host = parts.hostname or "127.0.0.1"
        self.port = parts.port or 80
        self.host_header = parts.netloc
        self.timeout = timeout
        self._idle: list[_Connection] = []
        #: The worker process holding each connection (by the client's port), once learnt
        #: (``spread_over``); then each request goes to the worker sent the fewest so far.
        self._owners: dict[int, int] = {}
        self._sent: dict[int, int] = {}
        self._slots = asyncio.Semaphore(max_connections)

    async def __aenter__(self) -> LeanClient:
        return self

    async def __aexit__(self, *_exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        for connection in self._idle:
            if connection.transport is not None:
                connection.transport.close()
        self._idle.clear()

    async def request(
        self,
        method: str,
        url: str,
        *,
        headers: Mapping[str, str] | None = None,
        params: Mapping[str, Any] | None = None,
        json: Any = None,
        data: Mapping[str, str] | None = None,
    ) -> Response:
        target = url
        if params:
            target += ("&" if "?" in url else "?") + urlencode(params)
        lines = [f"{method} {target} HTTP/1.1", f"Host: {self.host_header}"]
        body = b""
        if json is not None:
            body = jsonlib.dumps(json).encode()
            lines.append("Content-Type: application/json")
        elif data is not None:
            body = urlencode(data).encode()
            lines.append("Content-Type: application/x-www-form-urlencoded")
        if body or method not in ("GET", "HEAD"):
            lines.append(f"Content-Length: {len(body)}")
        lines += [f"{name}: {value}" for name, value in (headers or {}).items()]
        raw = ("\r\n".join(lines) + "\r\n\r\n").encode() + body
        async with self._slots:
            connection = await self._connection()
            try:
                response = await asyncio.wait_for(connection.send(raw), self.timeout)
            except (TimeoutError, TransportError, OSError) as exc:
                if connection.transport is not None:
                    connection.transport.close()
                raise TransportError(str(exc) or type(exc).__name__) from exc
            if not connection.closed:
                self._idle.append(connection)
            return response

    async def open_connections(self, count: int) -> None:
        """Open ``count`` new connections at once, kept idle."""
        opened = await asyncio.gather(*(self._open() for _ in range(count)))
        self._idle.extend(opened)

    def local_ports(self) -> list[int]:
        """The client's ports of the idle connections."""
        return [c.port for c in self._idle if c.port is not None]

    def spread_over(self, owners: dict[int, int]) -> None:
        """From now on, send each request to the worker (``owners``: the worker process of each
        connection, by the client's port) sent the fewest so far, on its connection last put
        back: a server's workers then take turns alike whatever connections the kernel gave
        each, as a balancing proxy would have them."""
        self._owners = dict(owners)
        self._sent = dict.fromkeys(set(owners.values()), 0)

    async def _connection(self) -> _Connection:
        if self._owners:
            found = self._balanced()
            if found is not None:
                return found
        while self._idle:
            connection = self._idle.pop()
            if not connection.closed:
                return connection
        return await self._open()

    async def _open(self) -> _Connection:
        loop = asyncio.get_running_loop()
        try:
            transport, protocol = await loop.create_connection(_Connection, self.host, self.port)
        except OSError as exc:
            raise TransportError(f"cannot connect: {exc}") from exc
        protocol.transport = transport  # uvloop: connection_made may come later
        protocol.port = int(transport.get_extra_info("sockname")[1])
        return protocol

    def _balanced(self) -> _Connection | None:
        """The idle connection last put back of the worker sent the fewest requests, among
        the workers with one idle; None: none idle of a known worker."""
        latest: dict[int, int] = {}  # worker -> index in the idle list of its latest
        for at, connection in enumerate(self._idle):
            owner = self._owners.get(connection.port or -1)
            if owner is not None and not connection.closed:
                latest[owner] = at
        if not latest:
            return None
        owner = min(latest, key=lambda w: self._sent[w])
        self._sent[owner] += 1
        return self._idle.pop(latest[owner])
