"""The ASGI app of `storefront serve`: the built site, the API and the session on one origin.

Requests under /public/ (and the sandbox gateway's /sandbox/ and /payments/) go to the API: the
embedded companion app, or a proxy to the configured API (``api_proxy``). Requests under
/session/ go to the customer-session endpoints (``session_app``), which the islands call.
Everything else is a file of the output, served by the layout rules of
``static.resolve_request_path``: 200 and no redirect for /a/b from a/b.html, 404.html with
status 404.
"""

from __future__ import annotations

from pathlib import Path

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import (
    FileResponse,
    PlainTextResponse,
    RedirectResponse,
    Response,
)
from starlette.routing import Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from generator.serve.static import (
    ASSET_PREFIX,
    LONG_CACHE,
    NOT_FOUND_PAGE,
    content_type,
    resolve_request_path,
)
from generator.write.host_files import read_policies

#: Paths the API answers: the public API, and the sandbox gateway's pages and IPN endpoint.
API_PREFIXES = ("/public/", "/sandbox/", "/payments/")
#: Paths of the customer session (login, logout, the forwarder the islands call).
SESSION_PREFIXES = ("/session/",)


def site_app(root: Path) -> Starlette:
    """The output folder by the layout rules, with the Content-Security-Policy its build wrote
    for each page (as the shipped nginx config sends it); GET and HEAD only."""

    async def page(request: Request) -> Response:
        # Read at each answer: a rebuild (watch) may have written another policy.
        policies = read_policies(root)
        headers = {}
        if policies is not None:
            headers["Content-Security-Policy"] = policies.for_path(request.url.path)
        file = resolve_request_path(root, request.url.path)
        if file is not None:
            asset = request.url.path.startswith(ASSET_PREFIX)
            headers["Cache-Control"] = LONG_CACHE if asset else "no-cache"
            return FileResponse(file, media_type=content_type(file), headers=headers)
        fallback = root / NOT_FOUND_PAGE
        if fallback.is_file():
            return FileResponse(
                fallback, status_code=404, media_type=content_type(fallback), headers=headers
            )
        return PlainTextResponse("Not found\n", status_code=404, headers=headers)

    return Starlette(routes=[Route("/{path:path}", page, methods=["GET", "HEAD"])])


class SameOrigin:
    """Dispatches by path: the API under /public/, the session under /session/, else the site."""

    def __init__(self, site: ASGIApp, api: ASGIApp, session: ASGIApp | None = None) -> None:
        self.site = site
        self.api = api
        self.session = session

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            send = with_security_headers(send)
        path = scope.get("path", "") if scope["type"] in ("http", "websocket") else ""
        if path.startswith(API_PREFIXES):
            await self.api(scope, receive, send)
        elif self.session is not None and path.startswith(SESSION_PREFIXES):
            await self.session(scope, receive, send)
        else:
            await self.site(scope, receive, send)


#: Sent with every answer, as the shipped nginx config and the ``_headers`` file send them: no
#: answer is ever read as another type than it says.
SECURITY_HEADERS = (
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"strict-origin-when-cross-origin"),
)


def with_security_headers(send: Send) -> Send:
    async def sending(message: Message) -> None:
        if message["type"] == "http.response.start":
            names = {name.lower() for name, _ in message.get("headers", [])}
            extra = [(name, value) for name, value in SECURITY_HEADERS if name not in names]
            message = {**message, "headers": [*message.get("headers", []), *extra]}
        await send(message)

    return sending


class UnderPrefix:
    """The whole origin (site, API, session) under a site's path prefix (``/shop``), as a static
    host publishes a project site: ``/shop/a`` is the site's ``/a``, ``/shop`` redirects to
    ``/shop/``, anything outside the prefix is a 404."""

    def __init__(self, app: ASGIApp, base_path: str) -> None:
        self.app = app
        self.base = base_path
        self._raw_base = base_path.encode("ascii")

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        path: str = scope.get("path", "")
        if path.startswith(self.base + "/"):
            raw: bytes = scope.get("raw_path") or path.encode()
            inner = {
                **scope,
                "path": path[len(self.base) :],
                "raw_path": raw[len(self._raw_base) :] if raw.startswith(self._raw_base) else raw,
            }
            await self.app(inner, receive, send)
            return
        response: Response
        if path == self.base and scope["type"] == "http":
            response = RedirectResponse(self.base + "/", status_code=301)
        else:
            response = PlainTextResponse(f"Not found: the site lives under {self.base}/\n", 404)
        await response(scope, receive, send)


def mounted(app: ASGIApp, base_path: str) -> ASGIApp:
    """``app`` served at the root, or under ``base_path`` when the site has one."""
    return UnderPrefix(app, base_path) if base_path else app
