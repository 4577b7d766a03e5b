"""The demo store's gateway credentials on any other store: a reason not to start.

The seed gives the demo store fixed sandbox credentials, published in the source. On another
store the hash secret would let anyone sign its payment notifications (an order marked paid),
and the merchant code would make the gateway's messages for the two stores indistinguishable.
"""

from __future__ import annotations

from sqlalchemy import Connection, or_, select

from companion.db.commerce_schema import payment_gateways
from companion.demo_published import DEMO_HASH_SECRET, DEMO_MERCHANT_CODE
from companion.payments.sandbox_access import demo_store_id


class DemoSecretsInUse(Exception):
    """A store that is not the demo carries the demo's credentials: one line saying which."""


def demo_secret_holders(conn: Connection) -> list[tuple[int, str]]:
    """(store id, what it carries) for every gateway of another store than the demo that holds
    the demo's hash secret or merchant code, enabled or not (it may be enabled later)."""
    demo = demo_store_id(conn)
    rows = conn.execute(
        select(
            payment_gateways.c.store_id,
            payment_gateways.c.code,
            payment_gateways.c.hash_secret,
        )
        .where(
            or_(
                payment_gateways.c.hash_secret == DEMO_HASH_SECRET,
                payment_gateways.c.merchant_code == DEMO_MERCHANT_CODE,
            )
        )
        .order_by(payment_gateways.c.store_id, payment_gateways.c.id)
    )
    return [
        (
            row.store_id,
            f"{row.code} gateway holds the demo store's "
            + ("hash secret" if row.hash_secret == DEMO_HASH_SECRET else "merchant code"),
        )
        for row in rows
        if row.store_id != demo
    ]


def refuse_demo_secrets(conn: Connection) -> None:
    """Raise ``DemoSecretsInUse`` when a store other than the demo holds its credentials."""
    holders = demo_secret_holders(conn)
    if not holders:
        return
    store_id, what = holders[0]
    more = f" (and {len(holders) - 1} more)" if len(holders) > 1 else ""
    raise DemoSecretsInUse(
        f"store {store_id} is not the demo store, but its {what}{more}, which the source "
        "publishes: give it its own merchant code and hash secret, or remove the gateway"
    )
