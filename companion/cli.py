"""`storefront api`: run the companion API, and manage its publishable keys.

    storefront api [--db PATH_OR_URL] [--seed demo [--products N]] [--host H] [--port P]
                   [--workers N]
    storefront api keys create [--db ...] [--store ID] [--name NAME]
    storefront api keys list   [--db ...] [--store ID]
    storefront api keys revoke [--db ...] [--store ID] KEY_ID

``--store`` may be left out when the database holds exactly one store. User errors end in one
line on stderr and a non-zero exit, never a traceback.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from sqlalchemy import Engine

from companion.cli_support import CommandError, guarded, open_database, pick_store, shown_database
from companion.clock import SystemClock, wire_timestamp
from companion.keys.lifecycle import create_key, list_keys, revoke_key
from companion.settings import CompanionSettings
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
        "--workers",
        type=int,
        default=1,
        help="worker processes (default 1); they share rate limits and state through the "
        "database, so use PostgreSQL (postgresql://...) for more than one",
    )
    api.set_defaults(func=guarded(run_api))
    actions = api.add_subparsers(dest="api_action", metavar="ACTION")
    add_webhook_parser(actions)
    keys = actions.add_parser("keys", help="create, list or revoke publishable keys")
    key_actions = keys.add_subparsers(dest="keys_action", metavar="ACTION", required=True)
    for name, func, text in (
        ("create", run_keys_create, "create a key; the full key is printed once"),
        ("list", run_keys_list, "list keys (prefix only)"),
        ("revoke", run_keys_revoke, "revoke a key; it stops working at once"),
    ):
        action = key_actions.add_parser(name, help=text, description=text)
        # SUPPRESS: a --db given before `keys` is kept unless repeated here.
        action.add_argument("--db", default=argparse.SUPPRESS, help="SQLite file or URL")
        action.add_argument("--store", type=int, help="store id (needed with several stores)")
        if name == "create":
            action.add_argument("--name", default="", help="a label for the key")
        if name == "revoke":
            action.add_argument("key_id", type=int, help="id of the key (see `keys list`)")
        action.set_defaults(func=guarded(func))


def run_keys_create(args: argparse.Namespace) -> int:
    engine = open_database(args.db)
    with engine.begin() as conn:
        store_id = pick_store(conn, args.store)
        info, key = create_key(conn, store_id, now=SystemClock().now(), name=args.name)
    print(f"created key {info.id} for store {store_id}; it is shown only now:")
    print(key)
    return 0


def run_keys_list(args: argparse.Namespace) -> int:
    engine = open_database(args.db)
    with engine.connect() as conn:
        store_id = args.store if args.store is None else pick_store(conn, args.store)
        rows = list_keys(conn, store_id)
    for k in rows:
        state = f"revoked {wire_timestamp(k.revoked_at)}" if k.revoked_at else "active"
        label = f" {k.name}" if k.name else ""
        print(f"{k.id}\tstore {k.store_id}\t{k.prefix}\t{state}{label}")
    if not rows:
        print("no keys", file=sys.stderr)
    return 0


def run_keys_revoke(args: argparse.Namespace) -> int:
    engine = open_database(args.db)
    with engine.begin() as conn:
        if not revoke_key(conn, args.key_id, now=SystemClock().now(), store_id=args.store):
            raise CommandError(f"no key {args.key_id} in the database")
    print(f"revoked key {args.key_id}")
    return 0


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


def run_api(args: argparse.Namespace) -> int:
    from companion.server import ServeError, serve

    if not 0 < args.port < 65536:
        raise CommandError("--port must be between 1 and 65535")
    if not 1 <= args.workers <= MAX_WORKERS:
        raise CommandError(f"--workers must be between 1 and {MAX_WORKERS}")
    engine = open_database(args.db)
    if args.seed == "demo":
        seed(engine, args.products)
    engine.dispose()
    settings = CompanionSettings(
        database=args.db, public_url=f"http://{args.host}:{args.port}", workers=args.workers
    )
    workers = f"{args.workers} workers, " if args.workers > 1 else ""
    print(
        f"storefront api: http://{args.host}:{args.port}/public/v1 ({workers}database "
        f"{shown_database(args.db)}; docs at /public/v1/docs)",
        file=sys.stderr,
    )
    try:
        serve(settings, host=args.host, port=args.port, workers=args.workers)
    except ServeError as exc:
        raise CommandError(str(exc)) from None
    return 0
