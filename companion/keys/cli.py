"""`storefront api keys create|list|revoke`: manage publishable keys.

    storefront api keys create [--db ...] [--store ID] [--name NAME]
    storefront api keys list   [--db ...] [--store ID]
    storefront api keys revoke [--db ...] [--store ID] KEY_ID

``--store`` may be left out when the database holds exactly one store.
``add_keys_parser(actions)`` is called with the sub-parsers of `storefront api`.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from companion.cli_support import CommandError, guarded, open_database, pick_store
from companion.clock import SystemClock, wire_timestamp
from companion.keys.lifecycle import create_key, list_keys, revoke_key


def add_keys_parser(subparsers: Any) -> None:
    keys = subparsers.add_parser("keys", help="create, list or revoke publishable keys")
    key_actions = keys.add_subparsers(dest="keys_action", metavar="ACTION", required=True)
    for name, func, text in (
        ("create", run_create, "create a key; the full key is printed once"),
        ("list", run_list, "list keys (prefix only)"),
        ("revoke", run_revoke, "revoke a key; it stops working at once"),
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


def run_create(args: argparse.Namespace) -> int:
    engine = open_database(args.db)
    with engine.begin() as conn:
        store_id = pick_store(conn, args.store)
        info, key = create_key(conn, store_id, now=SystemClock().now(), name=args.name)
    print(f"created key {info.id} for store {store_id}; it is shown only now:")
    print(key)
    return 0


def run_list(args: argparse.Namespace) -> int:
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


def run_revoke(args: argparse.Namespace) -> int:
    engine = open_database(args.db)
    with engine.begin() as conn:
        if not revoke_key(conn, args.key_id, now=SystemClock().now(), store_id=args.store):
            raise CommandError(f"no key {args.key_id} in the database")
    print(f"revoked key {args.key_id}")
    return 0
