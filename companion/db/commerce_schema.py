"""The companion's commerce tables: carts, checkouts, orders, customers, payments, webhooks.

Same conventions as ``schema``: every row has ``store_id``; naive UTC timestamps; integer VND.
"""

from __future__ import annotations

from companion.db.schema import metadata

__all__ = ["metadata"]
