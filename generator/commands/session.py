"""`storefront session`: the islands' /session/* endpoints for any implementation of the spec,
run beside a static host that routes /session/* to it (deploy/README.md has each host's recipe).
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
from typing import TYPE_CHECKING, TypeVar
from urllib.parse import urlsplit

from generator.config import versioned_api_url
from generator.errors import ConfigError

if TYPE_CHECKING:
    import httpx

    from generator.serve.service import SessionSettings

#: Worker processes are independent (no state between requests): a few per core is plenty.
MAX_WORKERS = 32
DEFAULT_PORT = 8002
_Number = TypeVar("_Number", int, float)


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "session",
        help="serve the islands' /session/* endpoints in front of a store's API",
        description="Serve exactly the /session/* endpoints the islands call (login into an "
        "httpOnly cookie, the allow-listed API calls with the visitor's cookies, "
        "/session/health), in front of any implementation of the storefront public API. "
        "It keeps nothing between requests: run as many workers or machines as needed. "
        "Route /session/* of the site to it (deploy/README.md).",
    )
    parser.add_argument(
        "--api-url",
        default=None,
        help="the API's base, ending in /public/v1 [env STOREFRONT_API_URL]",
    )
    parser.add_argument(
        "--key",
        default=None,
        help="the session service's own publishable key (pk_live_...), not the build's: the "
        "rate limit counts per key [env STOREFRONT_SESSION_KEY]",
    )
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on")
    parser.add_argument(
        "--port", type=int, default=DEFAULT_PORT, help=f"port (default: {DEFAULT_PORT})"
    )
    parser.add_argument("--workers", type=int, default=1, help="worker processes (default: 1)")
    parser.add_argument(
        "--allowed-origin",
        action="append",
        default=[],
        metavar="ORIGIN",
        help="an origin (https://shop.example.vn) whose pages may write (log in, add to cart); "
        "repeat for several; default: the origin the request names "
        "[env STOREFRONT_ALLOWED_ORIGINS, comma-separated]",
    )
    parser.add_argument(
        "--trusted-proxy",
        action="append",
        default=[],
        metavar="ADDRESS",
        help="an address or network (10.0.0.0/8) whose X-Forwarded-Proto/-Host/-For headers "
        "are believed; repeat for several [env STOREFRONT_TRUSTED_PROXIES, comma-separated]",
    )
    parser.add_argument(
        "--max-body-bytes",
        type=int,
        default=None,
        metavar="N",
        help="largest request body; a larger one is answered 413 as it is read (default 262144)",
    )
    parser.add_argument(
        "--header-timeout",
        type=float,
        default=None,
        metavar="SECONDS",
        help="a connection that has not sent a request's line and headers by then is closed "
        "(default 15)",
    )
    parser.add_argument(
        "--body-timeout",
        type=float,
        default=None,
        metavar="SECONDS",
        help="a request body that sends nothing more for this long is answered 408 (default 30)",
    )
    _add_budget(parser)
    parser.set_defaults(func=run)


def _add_budget(parser: argparse.ArgumentParser) -> None:
    """What the service may spend of the key: the API counts per key, not per visitor."""
    budget = parser.add_argument_group(
        "the key's budget",
        "The key's limits are the store's whole selling capacity. Each process spends its part "
        "(--key-share, split among --workers); several instances on one key must each be "
        "given theirs (two instances: --key-share 0.5 each; with --workers 4, each worker "
        "spends an eighth). Buying (cart, checkout, "
        "account) keeps a reserve browsing never spends; activity (views, clicks, error "
        "reports) is answered at once and forwarded when there is room, or dropped (counts in "
        "the log and /session/health). A call that cannot be sent is answered 429 with "
        "Retry-After by this service, spending nothing of the key.",
    )
    budget.add_argument(
        "--rate-per-minute",
        type=int,
        default=None,
        metavar="N",
        help="the key's requests a minute at the API (default 600, the spec's)",
    )
    budget.add_argument(
        "--rate-per-hour",
        type=int,
        default=None,
        metavar="N",
        help="the key's requests an hour at the API (default 20000, the spec's)",
    )
    budget.add_argument(
        "--key-share",
        type=float,
        default=None,
        metavar="FRACTION",
        help="this instance's part of the key's limits, split among its workers "
        "(default 1: the only instance on the key)",
    )
    budget.add_argument(
        "--buying-reserve",
        type=float,
        default=None,
        metavar="FRACTION",
        help="fraction of each window only buying may spend (default 0.25)",
    )
    budget.add_argument(
        "--visitor-per-minute",
        type=int,
        default=None,
        metavar="N",
        help="requests one visitor (client address, behind --trusted-proxy; an IPv6 /64 is "
        "one visitor) may send a minute; past it, 429 with Retry-After; 0: no share per "
        "visitor (default 60)",
    )
    budget.add_argument(
        "--max-visitors",
        type=int,
        default=None,
        metavar="N",
        help="visitors whose share is tracked at once, the least recent forgotten (default 10000)",
    )
    budget.add_argument(
        "--shared-seconds",
        type=float,
        default=None,
        metavar="SECONDS",
        help="how long provinces, wards and payment methods are kept for every visitor; "
        "0: not kept, only coalesced (default 300)",
    )
    budget.add_argument(
        "--shared-bytes",
        type=int,
        default=None,
        metavar="BYTES",
        help="bytes of those answers kept at most; a larger one is not kept (default 8388608)",
    )
    budget.add_argument(
        "--activity-queue",
        type=int,
        default=None,
        metavar="N",
        help="activity calls waiting at most; past it the oldest is dropped (default 1000)",
    )
    budget.add_argument(
        "--activity-queue-bytes",
        type=int,
        default=None,
        metavar="BYTES",
        help="bytes of activity bodies waiting at most; past them the oldest are dropped "
        "(default 16777216)",
    )
    budget.add_argument(
        "--activity-max-age",
        type=float,
        default=None,
        metavar="SECONDS",
        help="an activity call not forwarded by then is dropped (default 60)",
    )
    budget.add_argument(
        "--activity-log-every",
        type=float,
        default=None,
        metavar="SECONDS",
        help="at most one log line with the activity counts this often (default 60)",
    )


def run(args: argparse.Namespace) -> int:
    from generator.serve.proxies import ProxyConfigError, parse_networks
    from generator.serve.service import (
        HEADER_TIMEOUT,
        SecretKeyRefused,
        SessionSettings,
        serve_session,
    )
    from session_service.session import BODY_TIMEOUT, MAX_BODY

    try:
        settings = SessionSettings(
            api_url=_api_url(args.api_url or os.environ.get("STOREFRONT_API_URL")),
            key=args.key or os.environ.get("STOREFRONT_SESSION_KEY") or None,
            allowed_origins=tuple(
                _origin(o) for o in args.allowed_origin or _listed("STOREFRONT_ALLOWED_ORIGINS")
            ),
            trusted_proxies=tuple(args.trusted_proxy or _listed("STOREFRONT_TRUSTED_PROXIES")),
        )
    except SecretKeyRefused as exc:
        raise ConfigError(str(exc)) from None
    settings = dataclasses.replace(
        settings,
        max_body_bytes=_positive("--max-body-bytes", args.max_body_bytes, MAX_BODY),
        header_timeout=_positive("--header-timeout", args.header_timeout, HEADER_TIMEOUT),
        body_timeout=_positive("--body-timeout", args.body_timeout, BODY_TIMEOUT),
    )
    settings = _with_budget(settings, args)
    if not 0 < args.port < 65536:
        raise ConfigError("--port must be between 1 and 65535")
    if not 1 <= args.workers <= MAX_WORKERS:
        raise ConfigError(f"--workers must be between 1 and {MAX_WORKERS}")
    try:
        parse_networks(settings.trusted_proxies)
    except ProxyConfigError as exc:
        raise ConfigError(str(exc)) from None
    if settings.key is None:
        print(
            "storefront session: warning: no --key; calls are unkeyed and share the store's "
            "unkeyed rate limit",
            file=sys.stderr,
        )
    _check_api(settings.api_url, settings.key)
    origins = ", ".join(settings.allowed_origins) or "the request's own origin"
    print(
        f"storefront session: http://{args.host}:{args.port}/session/ -> {settings.api_url} "
        f"({args.workers} worker{'s' if args.workers > 1 else ''}; writes from {origins}; "
        f"each worker spends {settings.key_share:g} of the key's limits)",
        file=sys.stderr,
    )
    try:
        serve_session(settings, host=args.host, port=args.port, workers=args.workers)
    except KeyboardInterrupt:
        return 0
    except SystemExit as exc:  # uvicorn exits when it cannot bind the socket
        if exc.code:
            raise ConfigError(f"cannot listen on {args.host}:{args.port} (in use?)") from None
    return 0


def _with_budget(settings: SessionSettings, args: argparse.Namespace) -> SessionSettings:
    """The budget's settings from the flags; the key's share split among the workers."""
    share = _positive("--key-share", args.key_share, 1.0)
    reserve = settings.buying_reserve if args.buying_reserve is None else args.buying_reserve
    if share > 1:
        raise ConfigError("--key-share must be above 0 and at most 1")
    if not 0 <= reserve < 0.5:
        raise ConfigError("--buying-reserve must be at least 0 and below 0.5")
    visitors = args.visitor_per_minute
    if visitors is not None and visitors < 0:
        raise ConfigError("--visitor-per-minute must be 0 (no share) or above")
    shared = settings.shared_seconds if args.shared_seconds is None else args.shared_seconds
    if shared < 0:
        raise ConfigError("--shared-seconds must be 0 or above")
    return dataclasses.replace(
        settings,
        rate_per_minute=_positive("--rate-per-minute", args.rate_per_minute, 600),
        rate_per_hour=_positive("--rate-per-hour", args.rate_per_hour, 20_000),
        key_share=share / max(1, args.workers),
        buying_reserve=reserve,
        visitor_per_minute=settings.visitor_per_minute if visitors is None else visitors or None,
        max_visitors=_positive("--max-visitors", args.max_visitors, settings.max_visitors),
        shared_seconds=shared,
        shared_bytes=_positive("--shared-bytes", args.shared_bytes, settings.shared_bytes),
        activity_queue=_positive("--activity-queue", args.activity_queue, settings.activity_queue),
        activity_max_age=_positive(
            "--activity-max-age", args.activity_max_age, settings.activity_max_age
        ),
        activity_log_every=_positive(
            "--activity-log-every", args.activity_log_every, settings.activity_log_every
        ),
        activity_queue_bytes=_positive(
            "--activity-queue-bytes", args.activity_queue_bytes, settings.activity_queue_bytes
        ),
    )


def _positive(flag: str, given: _Number | None, default: _Number) -> _Number:
    """A limit from the command line (above 0), or its default."""
    if given is None:
        return default
    if not given > 0:
        raise ConfigError(f"{flag} must be above 0")
    return given


def _check_api(api_url: str, key: str | None) -> None:
    """Ask the API for its store once before serving: a refused key (a typo, a revoked key)
    stops the service here, where a health check would not see it. An API that does not answer
    yet only warns: the service may start before it."""
    import httpx

    from session_service.visitor import SERVICE_KEY_HEADER

    headers = {SERVICE_KEY_HEADER: key} if key else {}
    try:
        answer = httpx.get(f"{api_url}/store", headers=headers, timeout=10.0)
    except httpx.HTTPError as exc:
        print(
            f"storefront session: warning: {api_url} does not answer yet "
            f"({type(exc).__name__}); shoppers' calls fail until it does",
            file=sys.stderr,
        )
        return
    if answer.status_code in (401, 403):
        raise ConfigError(
            f"{api_url} refuses the session's key ({answer.status_code}: {_detail(answer)}): "
            "check --key (STOREFRONT_SESSION_KEY)"
        )
    if answer.status_code == 404:
        raise ConfigError(f"{api_url}/store answered 404: is --api-url the API's base address?")
    if answer.status_code >= 400:
        print(
            f"storefront session: warning: {api_url}/store answered {answer.status_code} "
            f"({_detail(answer)})",
            file=sys.stderr,
        )


def _detail(answer: httpx.Response) -> str:
    try:
        body = answer.json()
    except ValueError:
        return answer.reason_phrase
    found = body.get("detail") or body.get("title") if isinstance(body, dict) else None
    return str(found) if found else answer.reason_phrase


def _api_url(value: str | None) -> str:
    if not value:
        raise ConfigError(
            "--api-url is required: the API's base address, ending in /public/v1 "
            "(or set STOREFRONT_API_URL)"
        )
    parts = urlsplit(value)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ConfigError(f"--api-url {value!r} is not an http(s) address")
    return versioned_api_url(value)


def _origin(value: str) -> str:
    parts = urlsplit(value.strip())
    if parts.scheme not in ("http", "https") or not parts.netloc or parts.path not in ("", "/"):
        raise ConfigError(
            f"--allowed-origin {value!r} is not an origin (scheme://host[:port], no path)"
        )
    return f"{parts.scheme}://{parts.netloc}"


def _listed(variable: str) -> list[str]:
    return [v.strip() for v in os.environ.get(variable, "").split(",") if v.strip()]
