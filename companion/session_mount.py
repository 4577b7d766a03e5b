"""`storefront api` also serves the islands' /session/* endpoints, on the API's own origin.

The one implementation (``generator.serve.session``) in front of this same app, reached in
process through ``httpx.ASGITransport`` (no loopback HTTP to itself); a merchant who runs the
companion routes the site's /session/* here instead of running `storefront session`. Its
requests get lines in the request log of their own (the API's calls they make get theirs), and
bodies are held to the API's limits.
"""

from __future__ import annotations

import httpx
from starlette.types import ASGIApp, Receive, Scope, Send

from companion.logging_http import RequestLogMiddleware
from companion.settings import CompanionSettings
from generator.serve.session import SESSION_PREFIX, session_app
from generator.serve.visitor import SessionUpstream, normal_origin

_TIMEOUT = httpx.Timeout(30.0, connect=10.0)


def with_session(api: ASGIApp, settings: CompanionSettings) -> ASGIApp:
    base = settings.public_url.rstrip("/") + "/public/v1"
    http = httpx.AsyncClient(
        transport=httpx.ASGITransport(app=api), base_url=base, timeout=_TIMEOUT
    )
    allowed = frozenset(normal_origin(o) for o in settings.session_origins)
    session = session_app(
        SessionUpstream(http, settings.session_key),
        allowed_origins=allowed,
        max_body=settings.max_body_bytes,
        body_timeout=settings.body_timeout,
    )
    return SessionBeside(api, RequestLogMiddleware(session))


class SessionBeside:
    """/session/... to the session endpoints, everything else to the API."""

    def __init__(self, api: ASGIApp, session: ASGIApp) -> None:
        self.api = api
        self.session = session

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope.get("path", "").startswith(SESSION_PREFIX + "/"):
            await self.session(scope, receive, send)
        else:
            await self.api(scope, receive, send)
