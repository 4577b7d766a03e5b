"""Products named by id in commerce calls: do they exist, and their cards for listings."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from sqlalchemy import Connection, select

from companion.db.schema import products
from companion.product_cards import CARD_COLUMNS, PUBLISHED, build_cards
from companion.refusals import Invalid
from companion.schemas.read import ProductCard


def require_published_product(
    conn: Connection, *, store_id: int, product_id: int, field: str = "product_id"
) -> None:
    found = conn.execute(
        select(products.c.id).where(
            products.c.store_id == store_id, products.c.id == product_id, PUBLISHED
        )
    ).first()
    if found is None:
        raise Invalid(field, f"no published product {product_id} in this store")


def cards_by_id(
    conn: Connection, *, store_id: int, product_ids: Iterable[int], now: datetime
) -> dict[int, ProductCard]:
    """Cards of the published products among ``product_ids`` (others are absent)."""
    ids = sorted(set(product_ids))
    if not ids:
        return {}
    rows = conn.execute(
        select(*CARD_COLUMNS).where(
            products.c.store_id == store_id, products.c.id.in_(ids), PUBLISHED
        )
    ).all()
    return {card.id: card for card in build_cards(conn, store_id, rows, now)}


def cards_in_order(
    conn: Connection, *, store_id: int, product_ids: list[int], now: datetime
) -> list[ProductCard]:
    cards = cards_by_id(conn, store_id=store_id, product_ids=product_ids, now=now)
    return [cards[pid] for pid in product_ids if pid in cards]
