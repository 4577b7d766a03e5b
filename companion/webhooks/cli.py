"""`storefront api webhooks add|list|remove|deliver`: manage content-change subscriptions.

    storefront api webhooks add URL [--event TYPE ...] [--secret S] [--db ...] [--store ID]
    storefront api webhooks list    [--db ...] [--store ID]
    storefront api webhooks remove  ID [--db ...] [--store ID]
    storefront api webhooks deliver [--db ...] [--watch SECONDS]

``add_webhook_parser(actions)`` is called with the sub-parsers of `storefront api`.
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any

import httpx

from companion.cli_support import CommandError, guarded, open_database, pick_store
from companion.clock import SystemClock
from companion.webhooks.events import EVENT_TYPES, ORDER_EVENT_TYPES
from companion.webhooks.subscriptions import (
    SubscriptionError,
    add_subscription,
    list_subscriptions,
    remove_subscription,
)
from companion.webhooks.worker import deliver_due


def add_webhook_parser(subparsers: Any) -> None:
    hooks = subparsers.add_parser(
        "webhooks",
        help="content-change webhooks: add, list, remove subscriptions; deliver events",
        description="Subscribers are told (HMAC-signed POST) when products, categories, "
        "collections, articles, pages or menus are created, updated or deleted.",
    )
    actions = hooks.add_subparsers(dest="webhooks_action", metavar="ACTION", required=True)
    add = actions.add_parser("add", help="subscribe a URL; prints its signing secret once")
    add.add_argument("url", help="http(s) URL that receives the POSTs")
    add.add_argument(
        "--event",
        action="append",
        default=[],
        metavar="TYPE",
        help="event type, <entity>.* or * (repeatable; default *: content events, not order "
        f"events). Types: {', '.join((*EVENT_TYPES, *ORDER_EVENT_TYPES))}",
    )
    add.add_argument("--secret", help="signing secret (default: generated)")
    listing = actions.add_parser("list", help="list subscriptions")
    remove = actions.add_parser("remove", help="remove a subscription and its pending deliveries")
    remove.add_argument("subscription_id", type=int, help="id shown by `webhooks list`")
    deliver = actions.add_parser("deliver", help="send the deliveries that are due")
    deliver.add_argument(
        "--watch", type=float, metavar="SECONDS", help="keep delivering, every SECONDS"
    )
    for action, func in (
        (add, run_add),
        (listing, run_list),
        (remove, run_remove),
        (deliver, run_deliver),
    ):
        action.add_argument("--db", default=argparse.SUPPRESS, help="SQLite file or URL")
        if action is not deliver:
            action.add_argument("--store", type=int, help="store id (needed with several stores)")
        action.set_defaults(func=guarded(func))


def run_add(args: argparse.Namespace) -> int:
    engine = open_database(args.db)
    with engine.begin() as conn:
        store_id = pick_store(conn, args.store)
        try:
            sub = add_subscription(
                conn,
                store_id=store_id,
                url=args.url,
                events=list(args.event),
                now=SystemClock().now(),
                secret=args.secret,
            )
        except SubscriptionError as exc:
            raise CommandError(str(exc)) from None
    print(f"added webhook {sub.id} for store {store_id}: {sub.url} ({', '.join(sub.events)})")
    print(f"signing secret (shown only now): {sub.secret}")
    return 0


def run_list(args: argparse.Namespace) -> int:
    engine = open_database(args.db)
    with engine.connect() as conn:
        store_id = pick_store(conn, args.store)
        subs = list_subscriptions(conn, store_id=store_id)
    for sub in subs:
        print(f"{sub.id}\tstore {sub.store_id}\t{sub.url}\t{', '.join(sub.events)}")
    if not subs:
        print("no webhooks", file=sys.stderr)
    return 0


def run_remove(args: argparse.Namespace) -> int:
    engine = open_database(args.db)
    with engine.begin() as conn:
        store_id = pick_store(conn, args.store)
        if not remove_subscription(conn, store_id=store_id, subscription_id=args.subscription_id):
            raise CommandError(f"no webhook {args.subscription_id} in store {store_id}")
    print(f"removed webhook {args.subscription_id}")
    return 0


def run_deliver(args: argparse.Namespace) -> int:
    if args.watch is not None and args.watch <= 0:
        raise CommandError("--watch must be a positive number of seconds")
    engine = open_database(args.db)
    with httpx.Client() as client:
        while True:
            report = deliver_due(engine, client, SystemClock())
            print(
                f"delivered {report.delivered}, retrying {report.retrying}, failed {report.failed}",
                file=sys.stderr,
            )
            if args.watch is None:
                return 0
            time.sleep(args.watch)
