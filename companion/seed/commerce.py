"""Commerce side of the demo store (coupons, gateways, shipping, warehouses, customers)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Connection


def seed_commerce(conn: Connection, *, store_id: int, now: datetime) -> None:
    """Add the demo store's commerce data. Called by the demo seeder after the catalogue."""
