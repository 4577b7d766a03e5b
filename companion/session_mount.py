"""`storefront api` also serves the islands' /session/* endpoints, on the API's own origin.

The one implementation (``session_service.session``) in front of this same app, reached in
process through ``httpx.ASGITransport`` (no loopback HTTP to itself); a merchant who runs the
companion routes the site's /session/* here instead of running `storefront session`. Its
requests get lines in the request log of their own (the API's calls they make get theirs), and
bodies are held to the API's limits, and the key's budget to the API's own rate settings
(each worker process its part).
"""

from __future__ import annotations

import logging
from typing import Any, cast

import httpx
from starlette.types import ASGIApp, Receive, Scope, Send
from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware

from companion.logging_http import ACCESS_LOGGER, RequestLogMiddleware
from companion.settings import CompanionSettings
from session_service.budget import BudgetLimits
from session_service.session import SESSION_PREFIX, session_app
from session_service.traffic import Traffic, TrafficSettings
from session_service.visitor import SessionUpstream, normal_origin

_TIMEOUT = httpx.Timeout(30.0, connect=10.0)
#: The peer address of the session's calls to the API in process (no socket: a placeholder).
IN_PROCESS_ADDRESS = "127.0.0.1"


def with_session(api: ASGIApp, settings: CompanionSettings) -> ASGIApp:
    base = settings.public_url.rstrip("/") + "/public/v1"
    http = httpx.AsyncClient(transport=in_process(api), base_url=base, timeout=_TIMEOUT)
    allowed = frozenset(normal_origin(o) for o in settings.session_origins)
    session = session_app(
        SessionUpstream(http, settings.session_key),
        allowed_origins=allowed,
        max_body=settings.max_body_bytes,
        body_timeout=settings.body_timeout,
        traffic=Traffic(TrafficSettings(budget=_budget(settings)), logger=_activity_logger()),
    )
    return SessionBeside(api, RequestLogMiddleware(session))


def _budget(settings: CompanionSettings) -> BudgetLimits:
    """The API's own limits on a key, this worker's part of them."""
    return BudgetLimits(
        per_minute=settings.rate_per_minute,
        per_hour=settings.rate_per_hour,
        share=1 / max(1, settings.workers),
    )


def _activity_logger() -> logging.Logger:
    return logging.getLogger(ACCESS_LOGGER)


def in_process(api: ASGIApp) -> httpx.ASGITransport:
    """The session's way to ``api`` in process. Its calls say whose they are in
    X-Forwarded-For (``VisitorClient``), believed as uvicorn believes a trusted proxy's: from
    this transport's own address alone, so the API's per-client limits see the shopper."""
    # uvicorn types ASGI apps its own way; the middleware is one all the same.
    believing = ProxyHeadersMiddleware(cast(Any, api), trusted_hosts=IN_PROCESS_ADDRESS)
    return httpx.ASGITransport(app=cast(ASGIApp, believing), client=(IN_PROCESS_ADDRESS, 123))


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
