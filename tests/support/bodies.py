"""Request bodies for testing limits: fed to an app's ``receive`` from a counter (how much the
app pulled), or sent over a loopback socket until the server answers."""

from __future__ import annotations

import select
import socket
import time
from dataclasses import dataclass, field
from typing import Any

import anyio
from starlette.types import ASGIApp, Message

CHUNK = 16 * 1024


@dataclass
class FedBody:
    """A body of ``total`` bytes in ``CHUNK`` pieces, pulled by the app's ``receive``. Past
    ``cap`` bytes (the test's own bound) the client is said to have left. With ``stall_after``
    the client stops sending after that many bytes and never sends more."""

    total: int
    cap: int = 4 * 1024 * 1024
    stall_after: int | None = None
    pulled: int = 0
    never: anyio.Event = field(default_factory=anyio.Event)

    async def receive(self) -> Message:
        if self.stall_after is not None and self.pulled >= self.stall_after:
            await self.never.wait()
        if self.pulled >= self.cap:
            return {"type": "http.disconnect"}
        piece = min(CHUNK, self.total - self.pulled)
        self.pulled += piece
        return {"type": "http.request", "body": b" " * piece, "more_body": self.pulled < self.total}


@dataclass
class Answer:
    status: int
    headers: dict[str, str]
    body: bytes


async def call(
    app: ASGIApp, method: str, path: str, headers: dict[str, str], body: FedBody
) -> Answer:
    """One request to ``app`` as uvicorn would make it, its body pulled from ``body``."""
    scope: dict[str, Any] = {
        "type": "http",
        "asgi": {"version": "3.0", "spec_version": "2.3"},
        "http_version": "1.1",
        "method": method,
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "root_path": "",
        "headers": [(k.lower().encode(), v.encode()) for k, v in headers.items()],
        "client": ("203.0.113.9", 40000),
        "server": ("test", 80),
    }
    said: list[Message] = []

    async def send(message: Message) -> None:
        said.append(message)

    await app(scope, body.receive, send)
    start = next(m for m in said if m["type"] == "http.response.start")
    return Answer(
        start["status"],
        {k.decode(): v.decode() for k, v in start["headers"]},
        b"".join(m.get("body", b"") for m in said if m["type"] == "http.response.body"),
    )


def upload_until_answered(port: int, head: bytes, total: int) -> tuple[bytes, int]:
    """Send ``head`` (ending in ``Transfer-Encoding: chunked`` and a blank line), then up to
    ``total`` bytes in chunks, stopping as soon as the server answers or closes: (everything
    it answered, the bytes of body sent)."""
    piece = f"{CHUNK:x}\r\n".encode() + b"x" * CHUNK + b"\r\n"
    sent = 0
    with socket.create_connection(("127.0.0.1", port), timeout=10) as conn:
        conn.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 64 * 1024)
        conn.sendall(head)
        while sent < total:
            readable, _, _ = select.select([conn], [], [], 0)
            if readable:
                break
            try:
                conn.sendall(piece)
            except (BrokenPipeError, ConnectionResetError):
                break
            sent += CHUNK
        return read_until_closed(conn), sent


def read_until_closed(conn: socket.socket) -> bytes:
    """What the server sends until it closes the connection (a reset ends it too)."""
    received = b""
    while True:
        try:
            chunk = conn.recv(65536)
        except ConnectionResetError:
            return received
        if not chunk:
            return received
        received += chunk


def closed_after(conn: socket.socket, seconds: float) -> float:
    """Seconds until the server closed ``conn``, reading whatever it sends; fails past
    ``seconds``."""
    started = time.monotonic()
    conn.settimeout(seconds)
    try:
        read_until_closed(conn)
    except TimeoutError:
        raise AssertionError(f"the connection was still open after {seconds} s") from None
    return time.monotonic() - started
