"""Queueing an event: one delivery row per interested subscription, in the writer's transaction.

Emitting inside the same transaction as the content write means an event exists exactly when
the change was committed (no event for a rolled-back write, no lost event for a committed one).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from sqlalchemy import Connection, insert

from companion.db.commerce_schema import webhook_deliveries
from companion.webhooks.events import (
    Action,
    Entity,
    new_event_id,
    order_payload,
    payload,
    wants,
)
from companion.webhooks.subscriptions import list_subscriptions


def emit(
    conn: Connection,
    *,
    store_id: int,
    entity: Entity,
    action: Action,
    entity_id: int,
    changed: list[str],
    now: datetime,
) -> int:
    """Queue the event for every subscription that wants it; the number of deliveries queued."""
    return _queue(
        conn,
        store_id=store_id,
        event_type=f"{entity}.{action}",
        now=now,
        body=lambda event_id: payload(
            event_id=event_id,
            entity=entity,
            action=action,
            entity_id=entity_id,
            store_id=store_id,
            changed=changed,
            now=now,
        ),
    )


def emit_order(
    conn: Connection, *, store_id: int, event_type: str, data: dict[str, object], now: datetime
) -> int:
    """Queue an order event (``events.ORDER_EVENT_TYPES``) for the subscriptions naming it."""
    return _queue(
        conn,
        store_id=store_id,
        event_type=event_type,
        now=now,
        body=lambda event_id: order_payload(
            event_id=event_id, event_type=event_type, store_id=store_id, data=data, now=now
        ),
    )


def _queue(
    conn: Connection,
    *,
    store_id: int,
    event_type: str,
    now: datetime,
    body: Callable[[str], str],
) -> int:
    subscribed = list_subscriptions(conn, store_id=store_id)
    targets = [s for s in subscribed if wants(s.events, event_type)]
    if not targets:
        return 0
    event_id = new_event_id()
    text = body(event_id)
    conn.execute(
        insert(webhook_deliveries),
        [
            {
                "store_id": store_id,
                "subscription_id": s.id,
                "event_id": event_id,
                "event_type": event_type,
                "payload": text,
                "status": "pending",
                "attempts": 0,
                "next_attempt_at": now,
                "created_at": now,
            }
            for s in targets
        ],
    )
    return len(targets)
