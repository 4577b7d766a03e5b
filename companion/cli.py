"""`storefront api`: run the companion API; its `keys` and `webhooks` actions live with their
packages (``keys.cli``, ``webhooks.cli``).

    storefront api [--db PATH_OR_URL] [--seed demo [--products N]] [--host H] [--port P]
                   [--public-url URL] [--workers N] [--session-key KEY]
                   [--session-origin ORIGIN ...] [--site-origin ORIGIN ...]
                   [--sandbox-payments] [--max-body-bytes N]
                   [--header-timeout SECONDS] [--body-timeout SECONDS]
    storefront api keys ...
    storefront api staff ...
    storefront api stores ...
    storefront api webhooks ...

User errors end in one line on stderr and a non-zero exit, never a traceback.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any
from urllib.parse import urlsplit

from sqlalchemy import Engine

from companion.backoffice.cli import add_staff_parser
from companion.cli_support import CommandError, guarded, open_database, shown_database
from companion.keys.cli import add_keys_parser
from companion.keys.material import SECRET_PREFIX
from companion.settings import CompanionSettings, browsable_origin
from companion.stores.cli import add_stores_parser
from companion.webhooks.cli import add_webhook_parser

DEFAULT_DB = CompanionSettings().database
#: Each worker holds up to 20 PostgreSQL connections (see engine.py): 4 fit the default 100.
MAX_WORKERS = 4


def add_parser(subparsers: Any) -> None:
    api = subparsers.add_parser(
        "api",
        help="run the companion API server (or manage its keys)",
        description="Serve the storefront public API under /public/v1 from a SQLite file or a "
        "database URL. Unkeyed requests go to the store linked to their host name or, when "
        "the database holds a single store, to that store.",
    )
    api.add_argument("--db", default=DEFAULT_DB, help=f"SQLite file or URL (default {DEFAULT_DB})")
    api.add_argument("--seed", choices=["demo"], help="seed the demo store (kept if already there)")
    api.add_argument("--products", type=int, default=300, help="demo products (default 300)")
    api.add_argument("--host", default="127.0.0.1", help="address to listen on")
    api.add_argument("--port", type=int, default=8001, help="port to listen on (default 8001)")
    api.add_argument(
        "--public-url",
        default=os.environ.get("STOREFRONT_PUBLIC_URL"),
        metavar="URL",
        help="where shoppers reach this server (https://api.example.vn behind a proxy): the "
        "sandbox payment page and its return are sent there (env STOREFRONT_PUBLIC_URL; "
        "default http://HOST:PORT, 127.0.0.1 for an any-address --host)",
    )
    api.add_argument(
        "--workers",
        type=int,
        default=1,
        help="worker processes (default 1); they share rate limits and state through the "
        "database, so use PostgreSQL (postgresql://...) for more than one",
    )
    api.add_argument(
        "--session-key",
        default=None,
        help="publishable key the /session/* endpoints (the islands' login and cart) send to "
        "this API; give them their own key: limits count per key",
    )
    api.add_argument(
        "--session-origin",
        action="append",
        default=[],
        metavar="ORIGIN",
        help="an origin (https://shop.example.vn) whose pages may write through /session/*; "
        "repeat for several (default: the request's own origin)",
    )
    api.add_argument(
        "--site-origin",
        action="append",
        default=None,
        metavar="ORIGIN",
        help="an origin of the store's own site (https://shop.example.vn), where a payment may "
        "send the shopper back; repeat for each domain the store is published on (env "
        "STOREFRONT_SITE_ORIGINS, comma-separated). The public url, the session origins and "
        "https on the store's host names are its sites too; any other return_url is refused",
    )
    api.add_argument(
        "--sandbox-payments",
        action="store_true",
        help="let the sandbox gateway take every store's online payments (its Pay button marks "
        "an order paid; no money moves): for a test or staging store. Without it, only the "
        "demo store has the sandbox, and the others are offered no online gateway",
    )
    api.add_argument(
        "--no-order-discounts",
        dest="order_discounts",
        action="store_false",
        help="charge orders as the spec says, without the quote's coupon and promotions "
        "(by default the companion writes them to the order and says so in GET /cart/quote)",
    )
    defaults = CompanionSettings()
    api.add_argument(
        "--smtp-host",
        default=os.environ.get("STOREFRONT_SMTP_HOST"),
        metavar="HOST",
        help="SMTP server that sends each shopper an e-mail of the order placed (default "
        "$STOREFRONT_SMTP_HOST; none: no e-mail). Its login, if any, comes from "
        "$STOREFRONT_SMTP_USER and $STOREFRONT_SMTP_PASSWORD",
    )
    api.add_argument(
        "--smtp-port",
        type=int,
        default=int(os.environ.get("STOREFRONT_SMTP_PORT", defaults.smtp_port)),
        metavar="N",
        help=f"its port (default $STOREFRONT_SMTP_PORT or {defaults.smtp_port})",
    )
    api.add_argument(
        "--smtp-from",
        default=os.environ.get("STOREFRONT_SMTP_FROM"),
        metavar="ADDRESS",
        help="the From of the order e-mails (default $STOREFRONT_SMTP_FROM; needed with "
        "--smtp-host)",
    )
    api.add_argument(
        "--merchant-email",
        default=os.environ.get("STOREFRONT_MERCHANT_EMAIL"),
        metavar="ADDRESS",
        help="where an e-mail of each new and each paid order is sent, through --smtp-host "
        "(default $STOREFRONT_MERCHANT_EMAIL; none: no e-mail to the merchant)",
    )
    api.add_argument(
        "--smtp-tls",
        choices=("starttls", "tls", "none"),
        default=os.environ.get("STOREFRONT_SMTP_TLS", defaults.smtp_tls),
        help="starttls (default), tls from the start (port 465), or none (a local relay)",
    )
    api.add_argument(
        "--max-body-bytes",
        type=int,
        default=defaults.max_body_bytes,
        metavar="N",
        help="largest request body; a larger one is answered 413 as it is read "
        f"(default {defaults.max_body_bytes})",
    )
    api.add_argument(
        "--header-timeout",
        type=float,
        default=defaults.header_timeout,
        metavar="SECONDS",
        help="a connection that has not sent a request's line and headers by then is closed "
        f"(default {defaults.header_timeout:g})",
    )
    api.add_argument(
        "--body-timeout",
        type=float,
        default=defaults.body_timeout,
        metavar="SECONDS",
        help="a request body that sends nothing more for this long is answered 408 "
        f"(default {defaults.body_timeout:g})",
    )
    api.set_defaults(func=guarded(run_api))
    actions = api.add_subparsers(dest="api_action", metavar="ACTION")
    add_webhook_parser(actions)
    add_keys_parser(actions)
    add_staff_parser(actions)
    add_stores_parser(actions)


def _public_url(given: str | None, host: str, port: int) -> str:
    """The origin (and path prefix) shoppers' browsers reach this server at."""
    if given:
        parts = urlsplit(given)
        if parts.scheme not in ("http", "https") or not parts.hostname or parts.query:
            raise CommandError(
                f"--public-url must be an http(s) address such as https://api.example.vn, "
                f"got {given!r}"
            )
        return given.rstrip("/")
    return browsable_origin(host, port)


def _site_origins(given: list[str] | None) -> tuple[str, ...]:
    """--site-origin values, else STOREFRONT_SITE_ORIGINS (comma-separated); each checked."""
    from companion.payments.return_origins import NotPlain, read_origin

    if given is None:
        named = os.environ.get("STOREFRONT_SITE_ORIGINS", "")
        given = [part.strip() for part in named.split(",") if part.strip()]
    for origin in given:
        try:
            read_origin(origin)
        except NotPlain as exc:
            raise CommandError(
                f"--site-origin must be an origin such as https://shop.example.vn: {origin!r} {exc}"
            ) from None
    return tuple(given)


def refuse_demo_secrets(engine: Engine) -> None:
    """Stop before serving when a store other than the demo holds the demo's credentials."""
    from companion.backoffice.demo_staff import demo_staff_holders
    from companion.payments.demo_secrets import DemoSecretsInUse
    from companion.payments.demo_secrets import refuse_demo_secrets as refuse

    try:
        with engine.connect() as conn:
            refuse(conn)
            holders = demo_staff_holders(conn)
    except DemoSecretsInUse as exc:
        raise CommandError(str(exc)) from None
    if holders:
        raise CommandError(
            f"store {holders[0]} is not the demo store, but a staff account of it has the demo "
            "store's published password: give it its own (storefront api staff add)"
        )


def seed(engine: Engine, products: int) -> None:
    """Seed the demo store (idempotent: an existing demo store is left as it is)."""
    try:
        from companion.seed.demo import seed_demo
        from companion.seed.errors import SeedError
    except ImportError as exc:
        raise CommandError(f"the demo seed is not available ({exc})") from None
    try:
        summary = seed_demo(engine, products=products)
    except SeedError as exc:
        raise CommandError(str(exc)) from None
    print(summary.describe(), file=sys.stderr)


def _mail_line(args: argparse.Namespace) -> str:
    """What the start line says of order e-mails: said once, so a store without them knows."""
    if not args.smtp_host:
        return "order e-mails: off (no --smtp-host)"
    merchant = (
        f"merchant's to {args.merchant_email}"
        if args.merchant_email
        else "none to the merchant (no --merchant-email)"
    )
    return f"order e-mails: from {args.smtp_from} via {args.smtp_host}:{args.smtp_port}, {merchant}"


def run_api(args: argparse.Namespace) -> int:
    from companion.server import ServeError, check_host, serve

    if not 0 < args.port < 65536:
        raise CommandError("--port must be between 1 and 65535")
    try:
        check_host(args.host, args.port)
    except ServeError as exc:
        raise CommandError(str(exc)) from None
    if not 1 <= args.workers <= MAX_WORKERS:
        raise CommandError(f"--workers must be between 1 and {MAX_WORKERS}")
    for flag, value in (
        ("--max-body-bytes", args.max_body_bytes),
        ("--header-timeout", args.header_timeout),
        ("--body-timeout", args.body_timeout),
    ):
        if not value > 0:
            raise CommandError(f"{flag} must be above 0")
    if args.smtp_host and not args.smtp_from:
        raise CommandError("--smtp-host needs --smtp-from, the address order e-mails come from")
    if not 0 < args.smtp_port < 65536:
        raise CommandError("--smtp-port must be between 1 and 65535")
    if args.session_key and args.session_key.strip().startswith(SECRET_PREFIX):
        raise CommandError(
            "--session-key takes a publishable key (pk_live_...), never a secret key: the "
            "session endpoints stand between browsers and the API"
        )
    public_url = _public_url(args.public_url, args.host, args.port)
    site_origins = _site_origins(args.site_origin)
    engine = open_database(args.db, create=True)
    try:
        if args.seed == "demo":
            seed(engine, args.products)
        refuse_demo_secrets(engine)
    finally:
        engine.dispose()
    settings = CompanionSettings(
        database=args.db,
        public_url=public_url,
        workers=args.workers,
        session_key=args.session_key,
        session_origins=tuple(args.session_origin),
        site_origins=site_origins,
        sandbox_payments=args.sandbox_payments,
        order_discounts=args.order_discounts,
        max_body_bytes=args.max_body_bytes,
        header_timeout=args.header_timeout,
        body_timeout=args.body_timeout,
        smtp_host=args.smtp_host or None,
        smtp_port=args.smtp_port,
        smtp_from=args.smtp_from or None,
        smtp_tls=args.smtp_tls,
        merchant_email=args.merchant_email or None,
        smtp_user=os.environ.get("STOREFRONT_SMTP_USER") or None,
        smtp_password=os.environ.get("STOREFRONT_SMTP_PASSWORD") or None,
    )
    workers = f"{args.workers} workers, " if args.workers > 1 else ""
    sandbox = "every store" if args.sandbox_payments else "the demo store only"
    print(
        f"storefront api: http://{args.host}:{args.port}/public/v1 ({workers}database "
        f"{shown_database(args.db)}; docs at /public/v1/docs; shoppers reach it at "
        f"{public_url}; sandbox payments: {sandbox}; {_mail_line(args)})",
        file=sys.stderr,
    )
    try:
        serve(settings, host=args.host, port=args.port, workers=args.workers)
    except ServeError as exc:
        raise CommandError(str(exc)) from None
    return 0
