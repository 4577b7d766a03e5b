"""`storefront session`: the /session/* endpoints alone, for a static host to route to.

The same ``session_app`` that `storefront serve` mounts beside the static files, in front of any
implementation of the spec (``api_url``, with its own publishable key), holding nothing between
requests: the two cookies are the session, so any number of workers (and machines) answer alike.
Around it, outermost first: the request log (one JSON line per request, ``X-Request-Id``), the
trusted-proxy reader (``proxies``), security headers, and a 404 problem for every path outside
/session/. Limits on what a client sends: the body's size and pace (``session_app``), and the
time its request's head may take (``companion.header_deadline``, uvicorn's protocol).

What it may spend of the key (``session_service.traffic``): the key's limits times this
process's share (each worker, each instance on the key, is given its part), a reserve for
buying, a share per visitor, shared reads and an activity queue, all from ``SessionSettings``.
"""

from __future__ import annotations

import dataclasses
import json
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import httpx
import uvicorn
from starlette.types import ASGIApp, Receive, Scope, Send

from generator.serve.app import with_security_headers
from generator.serve.proxies import TrustedProxies, parse_networks
from session_service.activity import LOG_EVERY, MAX_AGE, MAX_BYTES, MAX_ITEMS, ActivityLimits
from session_service.budget import PER_HOUR, PER_MINUTE, RESERVE, BudgetLimits, Clock
from session_service.session import (
    BODY_TIMEOUT,
    MAX_BODY,
    SESSION_PREFIX,
    problem,
    session_app,
)
from session_service.shared_reads import MAX_BYTES as SHARED_BYTES
from session_service.shared_reads import SECONDS
from session_service.traffic import Traffic, TrafficSettings
from session_service.visitor import SessionUpstream, normal_origin
from session_service.visitor_share import MAX_VISITORS
from session_service.visitor_share import PER_MINUTE as VISITOR_PER_MINUTE
from session_service.worker_heap import freeze_start_up

#: Environment variable carrying the settings to worker processes (JSON).
SETTINGS_VARIABLE = "STOREFRONT_SESSION_SETTINGS"
#: Seconds a stopping worker waits for requests in flight; an idle keep-alive connection's life
#: (longer than the proxy's, so the proxy closes first).
GRACEFUL_SECONDS = 30
KEEP_ALIVE_SECONDS = 65
#: Seconds a connection may take to send a request's head (default of the setting).
HEADER_TIMEOUT = 15.0
_TIMEOUT = httpx.Timeout(30.0, connect=10.0)


#: How a secret key of the API begins: one serves the admin API and must never reach client code.
SECRET_KEY_PREFIX = "sk_"


class SecretKeyRefused(ValueError):
    """The session service was given a secret key: it runs only with a publishable one."""


@dataclass(frozen=True, slots=True)
class SessionSettings:
    #: The API's base address, ending in /public/v1.
    api_url: str
    #: The session service's own publishable key (None: unkeyed calls).
    key: str | None
    #: Origins (scheme://host[:port]) writes may come from; empty: the request's own origin.
    allowed_origins: tuple[str, ...] = ()
    #: Addresses or networks whose X-Forwarded-* headers are believed.
    trusted_proxies: tuple[str, ...] = ()
    #: Largest request body, in bytes: a larger one is answered 413 while it is read.
    max_body_bytes: int = MAX_BODY
    #: Seconds a connection may take to send a request's head; then it is closed.
    header_timeout: float = HEADER_TIMEOUT
    #: Seconds a request body may go without sending anything more; then it is answered 408.
    body_timeout: float = BODY_TIMEOUT
    #: The key's requests a minute and an hour (the spec's); None: not limited here.
    rate_per_minute: int | None = PER_MINUTE
    rate_per_hour: int | None = PER_HOUR
    #: This process's part of the key's limits (1 / workers; several instances on one key:
    #: each is given its part, adding up to 1 at most).
    key_share: float = 1.0
    #: Fraction of each window kept for buying: browsing never spends it.
    buying_reserve: float = RESERVE
    #: Requests one visitor (client address) may send a minute; None: no share per visitor.
    visitor_per_minute: int | None = VISITOR_PER_MINUTE
    #: Visitors whose share is tracked at most (the least recently seen are forgotten).
    max_visitors: int = MAX_VISITORS
    #: Seconds provinces, wards and payment methods are kept for everyone.
    shared_seconds: float = SECONDS
    #: Bytes of those answers kept at most; a larger one is sent on, not kept.
    shared_bytes: int = SHARED_BYTES
    #: Activity calls queued at most, seconds one may wait, seconds between the counts' lines.
    activity_queue: int = MAX_ITEMS
    activity_max_age: float = MAX_AGE
    activity_log_every: float = LOG_EVERY
    #: Bytes of activity bodies queued at most (many near the largest body must not fill the
    #: memory); past them the oldest are dropped.
    activity_queue_bytes: int = MAX_BYTES

    def __post_init__(self) -> None:
        # The session service stands between browsers and the API: a secret key there would
        # serve the admin API's permissions to whoever reaches it.
        if self.key is not None and self.key.strip().startswith(SECRET_KEY_PREFIX):
            raise SecretKeyRefused(
                "the session service takes a publishable key (pk_live_...), never a secret "
                "key (sk_live_...): a secret key serves the admin API and must not reach clients"
            )


def traffic_settings(settings: SessionSettings) -> TrafficSettings:
    """What the session app may spend of the key, from the service's settings."""
    return TrafficSettings(
        budget=BudgetLimits(
            per_minute=settings.rate_per_minute,
            per_hour=settings.rate_per_hour,
            share=settings.key_share,
            reserve=settings.buying_reserve,
        ),
        visitor_per_minute=settings.visitor_per_minute,
        max_visitors=settings.max_visitors,
        shared_seconds=settings.shared_seconds,
        shared_bytes=settings.shared_bytes,
        activity=ActivityLimits(
            max_items=settings.activity_queue,
            max_age=settings.activity_max_age,
            log_every=settings.activity_log_every,
            max_bytes=settings.activity_queue_bytes,
        ),
    )


def service_app(
    settings: SessionSettings,
    *,
    transport: httpx.AsyncBaseTransport | None = None,
    clock: Clock | None = None,
) -> ASGIApp:
    """``transport``: how the API is reached (tests: the companion in process); default HTTP.
    ``clock``: the budget's monotonic clock (tests: a fake one)."""
    from companion.embedding import request_log, request_logger

    traffic = Traffic(traffic_settings(settings), logger=request_logger(), clock=clock)

    http = httpx.AsyncClient(base_url=settings.api_url, timeout=_TIMEOUT, transport=transport)
    allowed = frozenset(normal_origin(o) for o in settings.allowed_origins)
    session = session_app(
        SessionUpstream(http, settings.key),
        allowed_origins=allowed,
        max_body=settings.max_body_bytes,
        body_timeout=settings.body_timeout,
        traffic=traffic,
    )
    only = OnlySession(
        session,
        header_timeout=settings.header_timeout,
        stopping=lambda: traffic.activity.log_counts(final=True),
    )
    proxied = TrustedProxies(only, parse_networks(settings.trusted_proxies))
    return request_log(proxied)


class OnlySession:
    """The session endpoints, and a 404 problem for anything else (this is not a web server)."""

    def __init__(
        self,
        session: ASGIApp,
        *,
        header_timeout: float | None = None,
        stopping: Callable[[], None] | None = None,
    ) -> None:
        self.session = session
        self.header_timeout = header_timeout  # read by the HTTP protocol (header_deadline)
        self.stopping = stopping  # as the service stops (the activity counts' last line)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":  # nothing to start; the request log flushes as it stops
            while (await receive())["type"] != "lifespan.shutdown":
                await send({"type": "lifespan.startup.complete"})
            if self.stopping is not None:
                self.stopping()
            await send({"type": "lifespan.shutdown.complete"})
            return
        if scope["type"] != "http":  # no websockets
            return
        send = with_security_headers(send)
        if scope.get("path", "").startswith(SESSION_PREFIX + "/"):
            await self.session(scope, receive, send)
            return
        await problem(404, "not_found", "this service answers only under /session/")(
            scope, receive, send
        )


def settings_to_env(settings: SessionSettings) -> str:
    return json.dumps(dataclasses.asdict(settings))


def settings_from_env(environ: Mapping[str, str]) -> SessionSettings:
    raw = environ.get(SETTINGS_VARIABLE)
    if not raw:
        raise RuntimeError(
            f"{SETTINGS_VARIABLE} is not set: start workers with `storefront session`"
        )
    values = json.loads(raw)
    return SessionSettings(
        api_url=values["api_url"],
        key=values["key"],
        allowed_origins=tuple(values["allowed_origins"]),
        trusted_proxies=tuple(values["trusted_proxies"]),
        max_body_bytes=values["max_body_bytes"],
        header_timeout=values["header_timeout"],
        body_timeout=values["body_timeout"],
        rate_per_minute=values["rate_per_minute"],
        rate_per_hour=values["rate_per_hour"],
        key_share=values["key_share"],
        buying_reserve=values["buying_reserve"],
        visitor_per_minute=values["visitor_per_minute"],
        max_visitors=values["max_visitors"],
        shared_seconds=values["shared_seconds"],
        shared_bytes=values["shared_bytes"],
        activity_queue=values["activity_queue"],
        activity_max_age=values["activity_max_age"],
        activity_log_every=values["activity_log_every"],
        activity_queue_bytes=values["activity_queue_bytes"],
    )


def app_from_env() -> ASGIApp:
    """The app of one worker process (uvicorn's factory with several workers)."""
    app = service_app(settings_from_env(os.environ))
    freeze_start_up()
    return app


def serve_session(settings: SessionSettings, *, host: str, port: int, workers: int) -> None:
    """Run until interrupted; ``SystemExit`` with a code when the port cannot be bound."""
    from companion.embedding import HeaderDeadlineProtocol, log_config

    options: dict[str, Any] = {
        "host": host,
        "port": port,
        "log_level": "info",
        "log_config": log_config(),
        "access_log": False,  # the request log replaces it
        "server_header": False,
        "proxy_headers": False,  # X-Forwarded-* are read by TrustedProxies, from its list only
        "http": HeaderDeadlineProtocol,  # a connection's head must come within header_timeout
        "timeout_graceful_shutdown": GRACEFUL_SECONDS,
        "timeout_keep_alive": KEEP_ALIVE_SECONDS,
    }
    if workers <= 1:
        app = service_app(settings)
        freeze_start_up()
        uvicorn.Server(uvicorn.Config(app, **options)).run()
        return
    os.environ[SETTINGS_VARIABLE] = settings_to_env(settings)
    uvicorn.run("generator.serve.service:app_from_env", factory=True, workers=workers, **options)
