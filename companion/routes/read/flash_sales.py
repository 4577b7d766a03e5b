"""Flash sales: the running ones, one sale, and its products at the sale price."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from fastapi import APIRouter
from sqlalchemy import Connection, select

from companion.cursors import clamp_limit
from companion.db.schema import flash_sale_products, flash_sales, products
from companion.deps import CurrentTenant, ReadDb, ServicesDep
from companion.pricing import sale_status
from companion.problems import not_found
from companion.product_cards import CARD_COLUMNS, PUBLISHED, build_cards
from companion.routes.one_hop import OneHopRoute
from companion.routes.read.paging import first_page
from companion.routes.read.params import EntityId, Limit
from companion.schemas.envelope import Envelope
from companion.schemas.read import FlashSale, ProductCard
from companion.wire_values import wire

router = APIRouter(route_class=OneHopRoute)


def to_sale(row: Any, now: datetime) -> FlashSale:
    return FlashSale(
        id=row.id,
        name=row.name,
        starts_at=wire(row.starts_at),
        ends_at=wire(row.ends_at),
        status=sale_status(row.starts_at, row.ends_at, now),
    )


def find_sale(conn: Connection, store_id: int, sale_id: int) -> Any:
    row = conn.execute(
        select(flash_sales).where(flash_sales.c.store_id == store_id, flash_sales.c.id == sale_id)
    ).first()
    if row is None:
        raise not_found(f"flash sale {sale_id}")
    return row


@router.get("/flash-sales", summary="Running flash sales, ending soonest first")
def list_flash_sales(
    db: ReadDb, tenant: CurrentTenant, services: ServicesDep, limit: Limit = None
) -> Envelope[FlashSale]:
    settings = services.settings
    size = clamp_limit(limit, default=settings.default_limit, maximum=settings.max_limit)
    now = services.clock.now()
    query = (
        select(flash_sales)
        .where(
            flash_sales.c.store_id == tenant.store_id,
            flash_sales.c.starts_at <= now,
            flash_sales.c.ends_at > now,
        )
        .order_by(flash_sales.c.ends_at, flash_sales.c.id)
        .limit(size + 1)
    )
    page, has_more = first_page(db.execute(query).all(), size)
    return Envelope[FlashSale](
        items=[to_sale(r, now) for r in page], next_cursor=None, has_more=has_more
    )


@router.get("/flash-sales/{sale_id}", summary="One flash sale (running, scheduled or ended)")
def flash_sale(
    sale_id: EntityId, db: ReadDb, tenant: CurrentTenant, services: ServicesDep
) -> FlashSale:
    return to_sale(find_sale(db, tenant.store_id, sale_id), services.clock.now())


@router.get("/flash-sales/{sale_id}/products", summary="Products of a sale at the sale price")
def flash_sale_products_list(
    sale_id: EntityId,
    db: ReadDb,
    tenant: CurrentTenant,
    services: ServicesDep,
    limit: Limit = None,
) -> Envelope[ProductCard]:
    """effective_price is price * (100 - discount_percent) / 100, rounded to whole VND."""
    settings = services.settings
    size = clamp_limit(limit, default=settings.default_limit, maximum=settings.max_limit)
    sale = find_sale(db, tenant.store_id, sale_id)
    query = (
        select(*CARD_COLUMNS)
        .join(flash_sale_products, flash_sale_products.c.product_id == products.c.id)
        .where(
            products.c.store_id == tenant.store_id,
            PUBLISHED,
            flash_sale_products.c.flash_sale_id == sale.id,
        )
        .order_by(flash_sale_products.c.position, products.c.id)
        .limit(size + 1)
    )
    page, has_more = first_page(db.execute(query).all(), size)
    cards = build_cards(
        db, tenant.store_id, page, services.clock.now(), fixed_discount=sale.discount_percent
    )
    return Envelope[ProductCard](items=cards, next_cursor=None, has_more=has_more)
