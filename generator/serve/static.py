"""Serve an output folder exactly as the layout contract says, for previews, audits and Lighthouse.

The rules are nginx's ``try_files $uri $uri.html =404`` with the shipped config:
``/`` -> ``index.html``; ``/a/b`` -> the file ``a/b`` if it exists (assets, sitemap.xml), else
``a/b.html``; anything else (a trailing slash, ``/404`` itself) -> ``404.html`` with status 404,
never a directory listing. Hidden files and the files only a host reads (``_headers``) are not
served.

``resolve_request_path`` is the rule as a function; the audit uses it to decide whether a link or a
sitemap loc is served, so both always agree with what a visitor gets. The server itself is the
standard library's threading HTTP server: enough for a local preview, not a production server
(deploy behind nginx or a static host, see deploy/).
"""

from __future__ import annotations

import mimetypes
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from functools import partial
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote, urlsplit

from generator.write.host_files import read_policies

ASSET_PREFIX = "/_assets/"
NOT_FOUND_PAGE = "404.html"
# Read by static hosts from the published folder, never meant to be fetched by a visitor.
HOST_ONLY_FILES = frozenset({"_headers", "_redirects", "_csp.conf"})
# The not-found page answers only with status 404, never as a page of its own.
_NOT_FOUND_NAMES = frozenset({NOT_FOUND_PAGE, NOT_FOUND_PAGE.removesuffix(".html")})
LONG_CACHE = "public, max-age=31536000, immutable"
_TEXT_TYPES = ("text/", "application/javascript", "application/json", "application/xml")


def resolve_request_path(root: Path, url_path: str) -> Path | None:
    """The file served at ``url_path`` (as sent, percent-encoded, without query), or None (404).

    Paths are decoded once (as nginx does) and not Unicode-normalized: a link whose bytes differ
    from the written file name is a 404 on a real server too.
    """
    try:
        path = unquote(url_path, errors="strict")
    except UnicodeDecodeError:
        return None
    return resolve_decoded_path(root, path)


def resolve_decoded_path(root: Path, path: str) -> Path | None:
    """``resolve_request_path`` for a path already percent-decoded."""
    if not path.startswith("/") or "\x00" in path or "\\" in path:
        return None
    if path == "/":
        index = root / "index.html"
        return index if index.is_file() else None
    if path.endswith("/"):
        return None
    segments = path[1:].split("/")
    if any(not s or s in (".", "..") or s.startswith(".") for s in segments):
        return None
    if len(segments) == 1 and (segments[0] in HOST_ONLY_FILES or segments[0] in _NOT_FOUND_NAMES):
        return None
    candidate = root.joinpath(*segments)
    if candidate.is_file():
        return candidate
    page = candidate.with_name(candidate.name + ".html")
    return page if page.is_file() else None


def content_type(file: Path) -> str:
    guessed = mimetypes.guess_type(file.name)[0] or "application/octet-stream"
    if file.suffix == ".js" or file.suffix == ".mjs":
        guessed = "text/javascript"
    if guessed.startswith(_TEXT_TYPES) or guessed.endswith("+xml"):
        return f"{guessed}; charset=utf-8"
    return guessed


class _LayoutHandler(BaseHTTPRequestHandler):
    """GET and HEAD by the layout rules; everything else is 405."""

    server_version = "storefront-static"

    def __init__(self, *args: object, root: Path, quiet: bool, **kwargs: object) -> None:
        self.root = root
        self.quiet = quiet
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]

    def do_GET(self) -> None:
        self._respond(include_body=True)

    def do_HEAD(self) -> None:
        self._respond(include_body=False)

    def _respond(self, *, include_body: bool) -> None:
        url_path = urlsplit(self.path).path or "/"
        file = resolve_request_path(self.root, url_path)
        status = HTTPStatus.OK
        if file is None:
            status = HTTPStatus.NOT_FOUND
            fallback = self.root / NOT_FOUND_PAGE
            file = fallback if fallback.is_file() else None
        body = file.read_bytes() if file is not None else b"Not found\n"
        self.send_response(status)
        self.send_header(
            "Content-Type", content_type(file) if file else "text/plain; charset=utf-8"
        )
        self.send_header("Content-Length", str(len(body)))
        cache = LONG_CACHE if url_path.startswith(ASSET_PREFIX) and status == 200 else "no-cache"
        self.send_header("Cache-Control", cache)
        self.send_header("X-Content-Type-Options", "nosniff")
        policies = read_policies(self.root)
        if policies is not None:
            # The page's: the payment and account pages have their own (as nginx sends them).
            self.send_header("Content-Security-Policy", policies.for_path(unquote(url_path)))
        self.end_headers()
        if include_body:
            self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        if not self.quiet:
            super().log_message(format, *args)


def make_server(
    root: Path, host: str = "127.0.0.1", port: int = 0, *, quiet: bool = True
) -> ThreadingHTTPServer:
    """A server bound to host:port (0 picks a free port); the caller runs and closes it."""
    handler = partial(_LayoutHandler, root=root.resolve(), quiet=quiet)
    server = ThreadingHTTPServer((host, port), handler)
    server.daemon_threads = True
    return server


@contextmanager
def serving(root: Path, host: str = "127.0.0.1", port: int = 0) -> Iterator[str]:
    """Serve ``root`` on a background thread; yields the base url, stops on exit."""
    server = make_server(root, host, port)
    thread = threading.Thread(target=server.serve_forever, name="static-server", daemon=True)
    thread.start()
    try:
        bound_host, bound_port = server.server_address[:2]
        yield f"http://{bound_host!s}:{bound_port}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def serve_forever(root: Path, host: str, port: int) -> None:
    """Serve in the foreground until interrupted (a later ``storefront serve`` can call this)."""
    with make_server(root, host, port, quiet=False) as server:
        print(f"Serving {root} at http://{host}:{server.server_address[1]}/ (Ctrl+C stops)")
        try:
            server.serve_forever()
        except KeyboardInterrupt:
            pass
