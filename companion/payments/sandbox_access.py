"""Which stores the sandbox gateway serves, and so which gateways a store's checkout offers.

The sandbox's Pay button marks an order paid and no money moves, and it signs with whatever
secret the store holds: it serves the demo store (known by the demo's publishable key, as the
seed finds it) and every other store only when asked for by name (``sandbox_payments``). Every
online gateway of this companion is paid through it, so a store it does not serve is offered
no online gateway.
"""

from __future__ import annotations

from sqlalchemy import Connection, select

from companion.db.schema import api_keys
from companion.demo_published import DEMO_KEY
from companion.keys.material import hash_key
from companion.payments.gateways import Gateway, connected_gateways

_DEMO_KEY_HASH = hash_key(DEMO_KEY)


def demo_store_id(conn: Connection) -> int | None:
    """The demo store, if the database holds it."""
    found: int | None = conn.execute(
        select(api_keys.c.store_id).where(api_keys.c.key_hash == _DEMO_KEY_HASH)
    ).scalar_one_or_none()
    return found


def sandbox_serves(conn: Connection, *, store_id: int, asked: bool) -> bool:
    """Whether the sandbox takes payments for the store (``asked``: ``sandbox_payments``)."""
    return asked or demo_store_id(conn) == store_id


def accepted_gateways(conn: Connection, *, store_id: int, sandbox: bool) -> list[Gateway]:
    """The gateways a shopper may choose: the online ones only where the sandbox serves."""
    return [g for g in connected_gateways(conn, store_id=store_id) if sandbox or not g.online]
