"""``create_app``: one companion API application, everything it needs built here and passed down.

Nothing is built at import time. The app works under ``httpx.ASGITransport`` (which runs no
lifespan): the engine is made, and migrations run, before ``create_app`` returns.

Every request takes the path below (in front of it, the served app has the chain bypass: a
kept catalogue read answered by these layers without passing through them,
``companion.chain_bypass``). Middleware, outermost first: request log (X-Request-Id, one JSON
line) -> body limit (413 past a size, 408 when it stops coming, refused while it is read) ->
hashing lane (a few password hashes at once, a bounded wait, a share per client) -> admission
gate (a few requests in flight, reads first, 503 past a bounded queue) -> crash barrier (500
problem) -> input guard (NUL) -> tenancy (key or Host -> store; 401) -> rate limit (429,
RateLimit-* headers) -> answer cache (catalogue answers served again until what they show
changes) -> entity tags (ETag, 304 on If-None-Match) -> the routes.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from functools import partial

import anyio.to_thread
from fastapi import FastAPI
from fastapi.telemetry import TelemetryConfig
from starlette.types import ASGIApp

from companion.admission import AdmissionGate
from companion.answer_cache.changes import watch_writes
from companion.answer_cache.feeds import feed_for, poll_once
from companion.answer_cache.middleware import AnswerCache
from companion.answer_cache.shared import SharedAnswers
from companion.clock import Clock, SystemClock
from companion.db.engine import POOL_SIZE, make_engine, open_pool
from companion.db.migrate import upgrade
from companion.deps import Services
from companion.errors_http import CrashBarrier, install_error_handling, problem_response
from companion.etag import ETagMiddleware
from companion.hashing_lane import HashingLane, Lane, hashing_paths
from companion.health import migration_heads
from companion.health import router as health_router
from companion.input_guard import InputGuard
from companion.keys.cache import KeyCache
from companion.keys.listener import listener_for
from companion.logging_http import RequestLogMiddleware, flush_request_log
from companion.openapi import DOCS_PATH, OPENAPI_PATH, description, install_openapi
from companion.problems import Problem
from companion.ratelimit.database import make_limiter
from companion.ratelimit.middleware import RateLimitMiddleware
from companion.ratelimit.windows import Window
from companion.settings import CompanionSettings
from companion.tenancy import TenancyMiddleware
from session_service.body_limit import BodyLimit

API_PREFIX = "/public/v1"
ALIAS_PREFIX = "/public"  # the spec's /public/* forms of the commerce routes
NO_TELEMETRY: TelemetryConfig = {"tracing": False, "metrics": False, "logs": False}


def rate_windows(settings: CompanionSettings) -> tuple[Window, ...]:
    return (Window(60, settings.rate_per_minute), Window(3600, settings.rate_per_hour))


def create_app(
    settings: CompanionSettings | None = None,
    *,
    clock: Clock | None = None,
    shared_answers: SharedAnswers | None = None,
) -> FastAPI:
    """``shared_answers``: where the workers of one server hand each other catalogue answers
    (``companion.answer_cache.shared``); None for a lone worker."""
    from companion.routes.admin import ADMIN_PREFIX
    from companion.routes.admin import router as admin_router
    from companion.routes.backoffice import router as backoffice_router
    from companion.routes.commerce import gateway_router
    from companion.routes.commerce import router as commerce_router
    from companion.routes.read import router as read_router

    settings = settings or CompanionSettings()
    clock = clock or SystemClock()
    engine = make_engine(settings.database)
    if settings.migrate:
        upgrade(engine)
    limiter = make_limiter(settings, engine, clock, rate_windows(settings))
    watch_writes()
    feed = feed_for(engine)
    services = Services(settings=settings, engine=engine, clock=clock, limiter=limiter, feed=feed)
    listener = listener_for(engine)  # PostgreSQL: revocations by other processes
    trusted = (lambda: listener.connected) if listener else (lambda: feed.delivers_revocations)

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        await anyio.to_thread.run_sync(open_pool, engine)
        feed.watch()  # a server runs the lifespan: its requests come through the event loop
        yield
        flush_request_log()
        feed.close()
        if listener is not None:
            listener.close()
        engine.dispose()  # a server shutting down releases its connections

    app = FastAPI(
        title="Storefront public API (companion)",
        version="1",
        description=description(settings),
        openapi_url=OPENAPI_PATH,
        docs_url=DOCS_PATH,
        redoc_url=None,
        lifespan=lifespan,
        # The companion has no OpenTelemetry set up; FastAPI would still ask, on every request,
        # whether a provider was (three environment reads): it is told not to look.
        telemetry=NO_TELEMETRY,
    )
    app.state.services = services
    # Read by the HTTP protocol (companion.header_deadline).
    app.state.header_timeout = settings.header_timeout
    # Read per request (a test may switch the extension off to play a spec-only backend).
    app.state.order_discounts = settings.order_discounts
    app.state.migration_heads = migration_heads()
    install_error_handling(app)
    install_openapi(app)
    # The routers, one line each, matched in order.
    app.include_router(health_router)  # /health/live, /health/ready: for the load balancer
    # The sandbox gateway's pages and IPN endpoint: the gateway's side, not the public API.
    # Always there; the pages answer only for the stores the sandbox serves (the demo store, or
    # every store with sandbox_payments), 404 for any other.
    app.include_router(gateway_router, include_in_schema=False)
    app.include_router(read_router, prefix=API_PREFIX)
    app.include_router(commerce_router, prefix=API_PREFIX)
    app.include_router(commerce_router, prefix=ALIAS_PREFIX, include_in_schema=False)
    app.include_router(admin_router, prefix=ADMIN_PREFIX, include_in_schema=False)
    app.include_router(backoffice_router)  # /admin: the back office's pages (routes.backoffice)

    # add_middleware wraps what is there: add innermost first.
    app.add_middleware(ETagMiddleware, prefix=f"{API_PREFIX}/")
    app.add_middleware(
        AnswerCache,
        feed=feed,
        engine=engine,
        clock=clock,
        prefix=f"{API_PREFIX}/",
        shared=shared_answers,
    )
    app.add_middleware(RateLimitMiddleware, limiter=limiter)
    app.add_middleware(
        TenancyMiddleware,
        engine=engine,
        keys=KeyCache(trusted=trusted),
        poll=partial(poll_once, feed),
        prefixes=(f"{ALIAS_PREFIX}/",),
        open_paths={OPENAPI_PATH, DOCS_PATH, f"{DOCS_PATH}/oauth2-redirect"},
    )
    app.add_middleware(InputGuard)
    app.add_middleware(CrashBarrier)
    # At most POOL_SIZE requests in flight per worker: no waiting on the pool inside a thread;
    # reads before writes, a bounded wait (503). Liveness answers even when the worker is
    # saturated; the sandbox waits on its own IPN.
    admitted = max(1, min(settings.admission_limit, POOL_SIZE))
    app.add_middleware(
        AdmissionGate,
        limit=admitted,
        queue=settings.admission_queue,
        max_wait=settings.admission_wait,
        exempt_prefixes=("/sandbox/", "/health/live"),
        patient_prefixes=("/payments/",),  # the gateway's IPN: never turned away
    )
    # In front of the gate: a login waiting for its turn to hash holds no slot. Fewer turns
    # than slots (but one at least), so hashing never takes every slot.
    app.state.hashing_lane = lane = Lane(
        size=max(1, min(settings.hashing_lane, admitted - 1)),
        wait=settings.hashing_wait,
        per_client=max(1, settings.hashing_per_client),
    )
    app.add_middleware(HashingLane, lane=lane, paths=hashing_paths(API_PREFIX, ALIAS_PREFIX))
    # A body past its limit is refused before it takes a slot, or as it passes it.
    app.add_middleware(
        BodyLimit,
        max_bytes=settings.max_body_bytes,
        read_timeout=settings.body_timeout,
        answer=body_refusal,
    )
    app.add_middleware(RequestLogMiddleware)  # the request id and log see everything
    return app


_REFUSAL_TITLES = {413: "Content too large", 408: "Request timeout"}


def body_refusal(status: int, code: str, detail: str) -> ASGIApp:
    """The problem answer to a body refused as it was read (``session_service.body_limit``)."""
    return problem_response(Problem(status, code, _REFUSAL_TITLES[status], detail))
