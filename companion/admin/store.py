"""The store's own details (name, contact, address, logo, social links) and its webhooks."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import Connection, select, update

from companion.admin.errors import Invalid, NotFound
from companion.db.schema import stores
from companion.webhooks.subscriptions import (
    Subscription,
    SubscriptionError,
    add_subscription,
    list_subscriptions,
    remove_subscription,
)

#: The details a merchant may change (currency and locale are the API's, fixed).
EDITABLE = frozenset({"name", "logo_url", "email", "phone", "address", "social"})


def store_details(conn: Connection, *, store_id: int) -> dict[str, Any]:
    row = conn.execute(select(stores).where(stores.c.id == store_id)).first()
    if row is None:
        raise NotFound(f"store {store_id}")
    return dict(row._mapping)


def update_store(conn: Connection, *, store_id: int, changes: dict[str, Any]) -> dict[str, Any]:
    unknown = sorted(set(changes) - EDITABLE)
    if unknown:
        raise Invalid(unknown[0], f"not a detail the merchant sets; one of {sorted(EDITABLE)}")
    if "name" in changes and not str(changes["name"] or "").strip():
        raise Invalid("name", "the store needs a name")
    if changes:
        conn.execute(update(stores).where(stores.c.id == store_id).values(**changes))
    return store_details(conn, store_id=store_id)


def subscriptions(conn: Connection, *, store_id: int) -> list[Subscription]:
    return list_subscriptions(conn, store_id=store_id)


def subscribe(
    conn: Connection, *, store_id: int, url: str, events: list[str], now: datetime
) -> Subscription:
    try:
        return add_subscription(conn, store_id=store_id, url=url, events=events, now=now)
    except SubscriptionError as error:
        raise Invalid("events" if "event" in str(error) else "url", str(error)) from None


def unsubscribe(conn: Connection, *, store_id: int, subscription_id: int) -> None:
    if not remove_subscription(conn, store_id=store_id, subscription_id=subscription_id):
        raise NotFound(f"subscription {subscription_id}")
