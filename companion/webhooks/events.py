"""The content-change events: which entities, which actions, and the payload. Pure.

Payload (the exact bytes that are signed and sent)::

    {"id": "evt_...", "type": "product.updated", "created_at": "2026-11-20T03:04:05",
     "store_id": 1, "data": {"entity": "product", "id": 12, "action": "updated",
                             "changed": ["price"]}}
"""

from __future__ import annotations

import json
import secrets
from datetime import datetime
from enum import StrEnum

from companion.clock import wire_timestamp


class Entity(StrEnum):
    PRODUCT = "product"
    CATEGORY = "category"
    COLLECTION = "collection"
    ARTICLE = "article"
    PAGE = "page"
    MENU = "menu"
    BANNER = "banner"
    COUPON = "coupon"
    PROMOTION = "promotion"  # a text promotion (the storefront's strip)
    ORDER_PROMOTION = "order_promotion"  # an automatic order-level discount
    SHIPPING_METHOD = "shipping_method"
    FLASH_SALE = "flash_sale"


class Action(StrEnum):
    CREATED = "created"
    UPDATED = "updated"
    DELETED = "deleted"


EVENT_TYPES = tuple(f"{entity}.{action}" for entity in Entity for action in Action)
ALL = "*"
#: The order events (the merchant's, not content): sent only to subscriptions naming them
#: (``order.*`` or the type), never to ``*``, which a site rebuild subscribes with.
ORDER = "order"
ORDER_CREATED, ORDER_PAID, ORDER_STATUS_CHANGED = (
    "order.created",
    "order.paid",
    "order.status_changed",
)
ORDER_EVENT_TYPES = (ORDER_CREATED, ORDER_PAID, ORDER_STATUS_CHANGED)


def new_event_id() -> str:
    return "evt_" + secrets.token_hex(12)


def wants(subscribed: list[str], event_type: str) -> bool:
    """A subscription to ``*`` (content events only), to the exact type, or to ``<entity>.*``
    receives the event."""
    entity = event_type.split(".", 1)[0]
    everything = ALL in subscribed and entity != ORDER
    return everything or event_type in subscribed or f"{entity}.*" in subscribed


def order_payload(
    *, event_id: str, event_type: str, store_id: int, data: dict[str, object], now: datetime
) -> str:
    """An order event's body: ``data`` holds the order's id, code, status (and ``from``)."""
    body = {
        "id": event_id,
        "type": event_type,
        "created_at": wire_timestamp(now),
        "store_id": store_id,
        "data": {"entity": ORDER, **data},
    }
    return json.dumps(body, ensure_ascii=False, separators=(",", ":"))


def payload(
    *,
    event_id: str,
    entity: Entity,
    action: Action,
    entity_id: int,
    store_id: int,
    changed: list[str],
    now: datetime,
) -> str:
    """The JSON body, serialised once: every attempt sends (and signs) the same bytes."""
    body = {
        "id": event_id,
        "type": f"{entity}.{action}",
        "created_at": wire_timestamp(now),
        "store_id": store_id,
        "data": {
            "entity": entity.value,
            "id": entity_id,
            "action": action.value,
            "changed": sorted(changed),
        },
    }
    return json.dumps(body, ensure_ascii=False, separators=(",", ":"))
