"""`storefront serve`'s own stack under uvicorn, in a thread, on a free loopback port.

The same ``embedded_stack`` the command runs: the demo output, the companion on a fresh SQLite
file seeded with the demo store, and the session endpoints, all on one origin. Stopped (and its
thread joined) when the block ends.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import uvicorn

from generator.serve_stack import embedded_stack

#: The demo build of tests/generator/demo_build.py has this many products; the served database
#: must be seeded the same way so the pages' product ids exist.
DEMO_PRODUCTS = 300
START_TIMEOUT = 30.0


@contextmanager
def live_server(
    out: Path, database: Path, *, rate_per_minute: int | None = None
) -> Iterator[str]:
    """The origin (``http://127.0.0.1:<port>``) serving ``out`` with the embedded companion."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    origin = f"http://127.0.0.1:{sock.getsockname()[1]}"
    app = embedded_stack(
        out,
        database=str(database),
        public_url=origin,
        seed_products=DEMO_PRODUCTS,
        rate_per_minute=rate_per_minute,
    )
    server = uvicorn.Server(
        uvicorn.Config(app, log_level="warning", ws="none", lifespan="off", access_log=False)
    )
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + START_TIMEOUT
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("the live server did not start")
        time.sleep(0.05)
    try:
        yield origin
    finally:
        server.should_exit = True
        thread.join(timeout=15)
        sock.close()
