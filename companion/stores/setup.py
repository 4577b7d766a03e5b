"""A new store: its row and cash on delivery, what it takes to sell before anything else is set.

Everything else a store shows is the merchant's to add through the admin API or the back office
(its catalogue, shipping methods, coupons); its keys and staff through `storefront api keys` and
`storefront api staff`. A store without a shipping method charges no shipping.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import Connection, insert, select

from companion.db.commerce_schema import payment_gateways
from companion.db.schema import stores
from companion.payments.gateways import COD, COD_NAME

NAME_LIMIT = 200


class StoreError(Exception):
    """A store that cannot be made as asked: its message is one line for the merchant."""


@dataclass(frozen=True, slots=True)
class StoreRow:
    id: int
    name: str
    email: str | None


def create_store(
    conn: Connection,
    *,
    name: str,
    email: str | None = None,
    phone: str | None = None,
    address: str | None = None,
    now: datetime,
) -> StoreRow:
    """A store named ``name`` (VND, Vietnamese) taking cash on delivery."""
    name = name.strip()
    if not name or len(name) > NAME_LIMIT:
        raise StoreError(f"a store's name is 1 to {NAME_LIMIT} characters")
    store_id = conn.execute(
        insert(stores).values(
            name=name,
            email=email or None,
            phone=phone or None,
            address=address or None,
            social={},
            currency_code="VND",
            locale="vi",
            created_at=now,
        )
    ).inserted_primary_key
    assert store_id is not None
    conn.execute(
        insert(payment_gateways).values(
            store_id=int(store_id[0]), code=COD, name=COD_NAME, enabled=True, position=0
        )
    )
    return StoreRow(int(store_id[0]), name, email or None)


def list_stores(conn: Connection) -> list[StoreRow]:
    rows = conn.execute(select(stores.c.id, stores.c.name, stores.c.email).order_by(stores.c.id))
    return [StoreRow(*row) for row in rows]
