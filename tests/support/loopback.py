"""An ASGI app served by uvicorn on a loopback port, on a thread, for the length of a block."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import uvicorn
from starlette.types import ASGIApp


def loopback_socket() -> tuple[socket.socket, str]:
    """A socket bound to a free loopback port, and its origin (``http://127.0.0.1:PORT``):
    known before the app that will answer on it is made."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    return sock, f"http://127.0.0.1:{sock.getsockname()[1]}"


@contextmanager
def serving_on(
    sock: socket.socket,
    app: ASGIApp,
    *,
    what: str,
    timeout: float = 20.0,
    http: Any = "auto",
) -> Iterator[None]:
    """``app`` answering on ``sock`` until the block ends; the socket is closed after.
    ``http``: uvicorn's HTTP protocol (its own by default)."""
    config = uvicorn.Config(
        app, log_level="critical", ws="none", lifespan="off", access_log=False, http=http
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + timeout
    try:
        while not server.started:
            if not thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError(f"{what} did not start")
            time.sleep(0.02)
        yield
    finally:
        server.should_exit = True
        server.force_exit = True
        thread.join(timeout=15)
        sock.close()
