"""`storefront api stores create|list`: a merchant's own store, the first step before its keys
and staff.

    storefront api stores create [--db ...] [--email ...] [--phone ...] [--address ...] NAME
    storefront api stores list [--db ...]
"""

from __future__ import annotations

import argparse
from typing import Any

from companion.cli_support import CommandError, guarded, open_database
from companion.clock import SystemClock
from companion.stores.setup import StoreError, create_store, list_stores


def add_stores_parser(subparsers: Any) -> None:
    found = subparsers.add_parser("stores", help="make or list the database's stores")
    actions = found.add_subparsers(dest="stores_action", metavar="ACTION", required=True)
    create = actions.add_parser(
        "create",
        help="make a store (it takes cash on delivery; the rest is added in the back office)",
        description="Make a store in the database (a SQLite file is made if there is none). "
        "Then give it keys (storefront api keys create --store ID) and an owner (storefront api "
        "staff add EMAIL --role owner --store ID); its catalogue, shipping and coupons are "
        "added in the back office or through the admin API.",
    )
    listed = actions.add_parser("list", help="list the stores")
    for action in (create, listed):
        action.add_argument("--db", default=argparse.SUPPRESS, help="SQLite file or URL")
    create.add_argument("name", help="the store's name, as shoppers read it")
    create.add_argument("--email", help="the store's contact e-mail")
    create.add_argument("--phone", help="the store's contact phone")
    create.add_argument("--address", help="the store's address")
    create.set_defaults(func=guarded(run_create))
    listed.set_defaults(func=guarded(run_list))


def run_create(args: argparse.Namespace) -> int:
    engine = open_database(args.db, create=True)
    try:
        with engine.begin() as conn:
            store = create_store(
                conn,
                name=args.name,
                email=args.email,
                phone=args.phone,
                address=args.address,
                now=SystemClock().now(),
            )
    except StoreError as exc:
        raise CommandError(str(exc)) from None
    finally:
        engine.dispose()
    print(
        f"made store {store.id}, {store.name}; next: storefront api keys create --store "
        f"{store.id}, then storefront api staff add EMAIL --role owner --store {store.id}"
    )
    return 0


def run_list(args: argparse.Namespace) -> int:
    engine = open_database(args.db)
    try:
        with engine.connect() as conn:
            found = list_stores(conn)
    finally:
        engine.dispose()
    for store in found:
        print(f"{store.id}\t{store.name}\t{store.email or ''}")
    if not found:
        print("no stores: storefront api stores create NAME makes one")
    return 0
