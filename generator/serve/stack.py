"""What `storefront serve` runs, assembled: site + API + session on one origin.

``embedded_stack`` puts the companion in-process: the session endpoints and the sandbox
gateway's IPN reach it through ``httpx.ASGITransport`` (no loopback HTTP to itself), and its
``public_url`` is the served origin, so the sandbox's pay page and redirects stay on it.
``proxy_stack`` forwards /public/ to a configured API and sends session calls there with the key.
The embedded session spends the key as the companion beside it limits it (its own rate
settings), with no share per visitor: a preview's visitors are all one address.
Browser tests use ``embedded_stack`` under uvicorn exactly as the command does.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from datetime import datetime
from pathlib import Path

import httpx
import uvicorn
from starlette.types import ASGIApp

from generator.serve.api_proxy import ApiProxy
from generator.serve.app import SameOrigin, mounted, site_app
from session_service.body_limit import BodyLimit
from session_service.budget import BudgetLimits
from session_service.session import BODY_TIMEOUT, MAX_BODY, problem, session_app
from session_service.traffic import Traffic, TrafficSettings
from session_service.visitor import SessionUpstream

#: Host name of the in-process companion's base url; nothing resolves it.
EMBEDDED_BASE = "http://companion.internal/public/v1"
_TIMEOUT = httpx.Timeout(30.0, connect=10.0)


def embedded_stack(
    root: Path,
    *,
    database: str,
    public_url: str,
    seed_products: int | None,
    rate_per_minute: int | None = None,
    rate_per_hour: int | None = None,
    now: datetime | None = None,
) -> ASGIApp:
    """The output at ``root`` with the companion on ``database`` (seeded with the demo store
    of ``seed_products`` products when given), as served at ``public_url``. With ``now`` (naive
    UTC) the store is seeded at that instant and the companion's clock stays there, as in the
    demo a build starts: pages that show dates look the same on every run."""
    from companion.embedding import (
        DEMO_KEY,
        CompanionSettings,
        HttpIpnSender,
        ManualClock,
        create_app,
        in_process,
        request_logger,
        seed_demo,
    )

    settings = CompanionSettings(database=database, public_url=public_url)
    if rate_per_minute is not None:  # a tiny limit lets a test see the 429 path for real
        settings = replace(settings, rate_per_minute=rate_per_minute)
    if rate_per_hour is not None:
        settings = replace(settings, rate_per_hour=rate_per_hour)
    companion = create_app(settings, clock=ManualClock(now) if now is not None else None)
    key = None
    if seed_products is not None:
        seed_demo(companion.state.services.engine, products=seed_products, now=now)
        key = DEMO_KEY
    companion.state.ipn_sender = HttpIpnSender(httpx.ASGITransport(app=companion))
    http = httpx.AsyncClient(
        transport=in_process(companion), base_url=EMBEDDED_BASE, timeout=_TIMEOUT
    )
    limits = BudgetLimits(per_minute=settings.rate_per_minute, per_hour=settings.rate_per_hour)
    settings_of_traffic = TrafficSettings(budget=limits, visitor_per_minute=None)
    traffic = Traffic(settings_of_traffic, logger=request_logger())
    session = session_app(SessionUpstream(http, key), traffic=traffic)
    return SameOrigin(site_app(root), companion, session)


def proxy_stack(
    root: Path,
    *,
    api_url: str,
    key: str | None,
    max_body: int = MAX_BODY,
    body_timeout: float = BODY_TIMEOUT,
) -> ASGIApp:
    """The output at ``root``; /public/ (/sandbox/, /payments/) proxied to ``api_url``'s origin
    (``api_proxy``: plain paths under those prefixes, the headers the API reads), sessions to
    its base. A body is refused while it is read past ``max_body`` bytes or ``body_timeout``
    seconds without more, as the session endpoints refuse one."""
    http = httpx.AsyncClient(base_url=api_url, timeout=_TIMEOUT)
    proxy = BodyLimit(
        ApiProxy(api_url, httpx.AsyncClient(timeout=_TIMEOUT)),
        max_bytes=max_body,
        read_timeout=body_timeout,
        answer=problem,
    )
    return SameOrigin(site_app(root), proxy, session_app(SessionUpstream(http, key)))


@contextmanager
def serving_stack(
    out: Path,
    database: Path,
    *,
    seed_products: int,
    rate_per_minute: int | None = None,
    start_timeout: float = 30.0,
    base_path: str = "",
    now: datetime | None = None,
) -> Iterator[str]:
    """``embedded_stack`` under uvicorn on a thread, on a free loopback port, for the length of
    the block: yields the origin (``http://127.0.0.1:<port>``). For browser tests and Lighthouse,
    which must score pages with their real same-origin backend. With ``base_path`` ("/shop")
    everything is served under that prefix, as `storefront serve --site-url` does. ``now``: as
    ``embedded_stack``'s."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    origin = f"http://127.0.0.1:{sock.getsockname()[1]}"
    app = mounted(
        embedded_stack(
            out,
            database=str(database),
            public_url=origin + base_path,
            seed_products=seed_products,
            rate_per_minute=rate_per_minute,
            now=now,
        ),
        base_path,
    )
    server = uvicorn.Server(
        uvicorn.Config(app, log_level="warning", ws="none", lifespan="off", access_log=False)
    )
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + start_timeout
    try:
        while not server.started:
            if not thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError(f"the server for {out} did not start")
            time.sleep(0.05)
        yield origin
    finally:
        server.should_exit = True
        thread.join(timeout=15)
        sock.close()
