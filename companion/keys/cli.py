"""`storefront api keys create|list|revoke|rotate`: manage publishable and secret keys.

    storefront api keys create [--db ...] [--store ID] [--name NAME]
                               [--secret --permission orders:write ...]
    storefront api keys list   [--db ...] [--store ID]
    storefront api keys revoke [--db ...] [--store ID] [--wait SECONDS] KEY_ID
    storefront api keys rotate [--db ...] [--store ID] [--wait SECONDS] KEY_ID

``--store`` may be left out when the database holds exactly one store. Revoke and rotate return
once every worker refuses the old key (``keys.everywhere``).
``add_keys_parser(actions)`` is called with the sub-parsers of `storefront api`.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from companion.cli_support import CommandError, guarded, open_database, pick_store
from companion.clock import SystemClock, wire_timestamp
from companion.keys.everywhere import Confirmation, end_everywhere
from companion.keys.lifecycle import create_key, list_keys, revoke_key, rotate_key
from companion.keys.permissions import PERMISSIONS
from companion.settings import CompanionSettings

#: What revoke and rotate promise (their help texts).
AT_ONCE = "every worker refuses it before this command returns"


def add_keys_parser(subparsers: Any) -> None:
    keys = subparsers.add_parser(
        "keys",
        help="create, list, revoke or rotate keys (publishable, or secret for the admin API)",
    )
    key_actions = keys.add_subparsers(dest="keys_action", metavar="ACTION", required=True)
    for name, func, text in (
        ("create", run_create, "create a key; the full key is printed once"),
        ("list", run_list, "list keys (prefix only)"),
        ("revoke", run_revoke, f"revoke a key; {AT_ONCE}"),
        (
            "rotate",
            run_rotate,
            "issue a new key for the key's store, with its name (printed once), and revoke the "
            f"old one; {AT_ONCE}",
        ),
    ):
        action = key_actions.add_parser(name, help=text, description=text)
        # SUPPRESS: a --db given before `keys` is kept unless repeated here.
        action.add_argument("--db", default=argparse.SUPPRESS, help="SQLite file or URL")
        action.add_argument("--store", type=int, help="store id (needed with several stores)")
        if name == "create":
            action.add_argument("--name", default="", help="a label for the key")
            action.add_argument(
                "--secret",
                action="store_true",
                help="a secret key (sk_live_...) for the admin API, with the --permission given; "
                "it must never reach client code",
            )
            action.add_argument(
                "--permission",
                action="append",
                default=[],
                choices=PERMISSIONS,
                metavar="NAME",
                help=f"a permission of the secret key (repeat for more): {', '.join(PERMISSIONS)}",
            )
        if name in ("revoke", "rotate"):
            wait = CompanionSettings().key_revoke_wait
            action.add_argument(
                "--wait",
                type=float,
                default=wait,
                metavar="SECONDS",
                help="how long to wait for every worker (PostgreSQL) to confirm; past it the "
                f"workers that did not are named and the exit status is 1 (default {wait:g})",
            )
            action.add_argument("key_id", type=int, help="id of the key (see `keys list`)")
        action.set_defaults(func=guarded(func))


def run_create(args: argparse.Namespace) -> int:
    if args.permission and not args.secret:
        raise CommandError("--permission is for secret keys: add --secret")
    if args.secret and not args.permission:
        raise CommandError(f"a secret key needs --permission (one of {', '.join(PERMISSIONS)})")
    engine = open_database(args.db)
    with engine.begin() as conn:
        store_id = pick_store(conn, args.store)
        info, key = create_key(
            conn,
            store_id,
            now=SystemClock().now(),
            name=args.name,
            permissions=args.permission if args.secret else None,
        )
    kind = (
        f"secret key {info.id} ({', '.join(info.permissions)})" if args.secret else f"key {info.id}"
    )
    print(f"created {kind} for store {store_id}; it is shown only now:")
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
        kind = f"secret {','.join(k.permissions)}" if k.kind == "secret" else "publishable"
        print(f"{k.id}\tstore {k.store_id}\t{k.prefix}\t{kind}\t{state}{label}")
    if not rows:
        print("no keys", file=sys.stderr)
    return 0


def run_revoke(args: argparse.Namespace) -> int:
    engine = open_database(args.db)
    now = SystemClock().now()
    found, said = end_everywhere(
        engine,
        lambda conn: revoke_key(conn, args.key_id, now=now, store_id=args.store),
        wait=args.wait,
    )
    if not found:
        raise CommandError(f"no key {args.key_id} in the database")
    print(f"revoked key {args.key_id}")
    return reported(said)


def run_rotate(args: argparse.Namespace) -> int:
    engine = open_database(args.db)
    now = SystemClock().now()
    rotated, said = end_everywhere(
        engine,
        lambda conn: rotate_key(conn, args.key_id, now=now, store_id=args.store),
        wait=args.wait,
    )
    if rotated is None:
        with engine.connect() as conn:
            known = [k for k in list_keys(conn, args.store) if k.id == args.key_id]
        if known:
            raise CommandError(f"key {args.key_id} is revoked already: create a new one")
        raise CommandError(f"no key {args.key_id} in the database")
    info, key = rotated
    print(f"revoked key {args.key_id}; created key {info.id} for store {info.store_id}")
    print("the new key is shown only now:")
    print(key)
    return reported(said)


def reported(said: Confirmation) -> int:
    """Say which workers confirmed (PostgreSQL); 1 when some did not in time."""
    if said.listening:
        closed = f", {said.closed} closed their connection" if said.closed else ""
        print(f"{said.confirmed} of {said.listening} workers confirmed{closed}", file=sys.stderr)
    if said.missing:
        shown = ", ".join(str(pid) for pid in said.missing)
        print(
            f"storefront api: warning: {len(said.missing)} worker(s) did not confirm in time "
            f"(database server processes {shown}): they may accept the old key until they do",
            file=sys.stderr,
        )
        return 1
    return 0
