"""Another implementation of the public API, on loopback, that refuses every key (401): a
command pointed at it shows which requests it sends there, and with which key."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

_PROBLEM = b'{"type":"about:blank","title":"invalid key","status":401}'


@dataclass
class RefusingApi:
    url: str  # its base, ending in /public/v1
    asked: list[tuple[str, str | None]] = field(default_factory=list)  # (path, X-Service-Key)


@contextmanager
def refusing_api() -> Iterator[RefusingApi]:
    api = RefusingApi("")

    class Refusing(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            api.asked.append((self.path, self.headers.get("X-Service-Key")))
            self.send_response(401)
            self.send_header("Content-Type", "application/problem+json")
            self.send_header("Content-Length", str(len(_PROBLEM)))
            self.end_headers()
            self.wfile.write(_PROBLEM)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Refusing)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    api.url = f"http://127.0.0.1:{server.server_port}/public/v1"
    try:
        yield api
    finally:
        server.shutdown()
        server.server_close()
