"""Webhook subscriptions of a store: a URL, a secret for signatures, the events wanted."""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import datetime
from urllib.parse import urlsplit

from sqlalchemy import Connection, delete, insert, select

from companion.db.commerce_schema import webhook_subscriptions as subs
from companion.webhooks.events import ALL, EVENT_TYPES, ORDER, ORDER_EVENT_TYPES, Entity


@dataclass(frozen=True, slots=True)
class Subscription:
    id: int
    store_id: int
    url: str
    secret: str
    events: list[str]


class SubscriptionError(ValueError):
    """A subscription that cannot be stored; the message says which part is wrong."""


def check_events(events: list[str]) -> list[str]:
    valid = {
        ALL,
        *EVENT_TYPES,
        *ORDER_EVENT_TYPES,
        f"{ORDER}.*",
        *(f"{entity}.*" for entity in Entity),
    }
    unknown = [e for e in events if e not in valid]
    if unknown:
        raise SubscriptionError(
            f"unknown event type(s): {', '.join(unknown)}; use e.g. product.updated, product.* or *"
        )
    return events or [ALL]


def check_url(url: str) -> str:
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise SubscriptionError(f"{url!r} is not an http(s) URL")
    return url


def add_subscription(
    conn: Connection,
    *,
    store_id: int,
    url: str,
    events: list[str],
    now: datetime,
    secret: str | None = None,
) -> Subscription:
    events = check_events(events)
    secret = secret or "whsec_" + secrets.token_urlsafe(32)
    result = conn.execute(
        insert(subs).values(
            store_id=store_id, url=check_url(url), secret=secret, events=events, created_at=now
        )
    )
    assert result.inserted_primary_key is not None
    return Subscription(int(result.inserted_primary_key[0]), store_id, url, secret, events)


def list_subscriptions(conn: Connection, *, store_id: int) -> list[Subscription]:
    rows = conn.execute(
        select(subs.c.id, subs.c.store_id, subs.c.url, subs.c.secret, subs.c.events)
        .where(subs.c.store_id == store_id)
        .order_by(subs.c.id)
    )
    return [Subscription(r.id, r.store_id, r.url, r.secret, list(r.events)) for r in rows]


def remove_subscription(conn: Connection, *, store_id: int, subscription_id: int) -> bool:
    """Pending deliveries go with it (foreign key cascade)."""
    removed = conn.execute(
        delete(subs).where(subs.c.store_id == store_id, subs.c.id == subscription_id)
    )
    return removed.rowcount == 1
