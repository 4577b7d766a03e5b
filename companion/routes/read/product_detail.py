"""One product: detail (by id or slug), related products and variants on sale."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from fastapi import APIRouter
from sqlalchemy import BindParameter, ColumnElement, Connection, Select, bindparam, select

from companion.cursors import clamp_limit
from companion.db.schema import brands, product_categories, product_images, products, variants
from companion.deps import CurrentTenant, ReadDb, ServicesDep
from companion.pricing import discounted, unit_in_stock
from companion.problems import not_found
from companion.product_cards import (
    CARD_COLUMNS,
    PUBLISHED,
    STORE,
    bound_card_select,
    build_cards,
    card_of,
    running_discounts,
)
from companion.routes.one_hop import OneHopRoute
from companion.routes.read.paging import first_page
from companion.routes.read.params import EntityId, Limit, Slug
from companion.schemas.envelope import Envelope
from companion.schemas.read import ProductCard, ProductDetail, Variant
from companion.wire_values import wire

router = APIRouter(route_class=OneHopRoute)

DETAIL_COLUMNS = (
    *CARD_COLUMNS,
    products.c.description_html,
    products.c.sku,
    products.c.meta_title,
    products.c.meta_description,
    products.c.published_at,
)


def find_product(conn: Connection, store_id: int, match: ColumnElement[bool], what: str) -> Any:
    row = conn.execute(
        select(*DETAIL_COLUMNS).where(products.c.store_id == store_id, PUBLISHED, match)
    ).first()
    if row is None:
        raise not_found(what)
    return row


MATCH: BindParameter[Any] = bindparam("match")


def _detail_query(column: ColumnElement[Any]) -> Select[Any]:
    return (
        bound_card_select(*DETAIL_COLUMNS[len(CARD_COLUMNS) :])
        .add_columns(brands.c.name.label("brand_name"))
        .select_from(products.outerjoin(brands, brands.c.id == products.c.brand_id))
        .where(products.c.store_id == STORE, PUBLISHED, column == MATCH)
    )


# Built once (see product_cards.STORE): the product by slug or by id, its images, its extra
# categories.
_BY = {"slug": _detail_query(products.c.slug), "id": _detail_query(products.c.id)}
_IMAGES = (
    select(product_images.c.url, product_images.c.alt)
    .where(
        product_images.c.product_id == bindparam("product_id"), product_images.c.store_id == STORE
    )
    .order_by(product_images.c.position, product_images.c.id)
)
_EXTRA = (
    select(product_categories.c.category_id)
    .where(product_categories.c.product_id == bindparam("product_id"))
    .order_by(product_categories.c.category_id)
)


def detail_fields(
    conn: Connection,
    store_id: int,
    by: Literal["slug", "id"],
    value: object,
    what: str,
    now: datetime,
) -> dict[str, Any]:
    """The fields of a ProductDetail, in its order, in three queries: the product (its slug or
    id ``value``) with its card columns and brand, its images, its extra categories."""
    row = conn.execute(_BY[by], {"store_id": store_id, "now": now, "match": value}).first()
    if row is None:
        raise not_found(what)
    ids = {"store_id": store_id, "product_id": row.id}
    images = conn.execute(_IMAGES, ids).all()
    extra = conn.execute(_EXTRA, ids).scalars()
    category_ids = [row.category_id] if row.category_id is not None else []
    category_ids += [cid for cid in extra if cid not in category_ids]
    has_brand = row.brand_id is not None and row.brand_name is not None
    return {
        **card_of(row),
        "description_html": row.description_html,
        "images": [{"url": i.url, "alt": i.alt} for i in images],
        "category_ids": category_ids,
        "brand": {"id": row.brand_id, "name": row.brand_name} if has_brand else None,
        "sku": row.sku,
        "meta_title": row.meta_title,
        "meta_description": row.meta_description,
        "published_at": wire(row.published_at) if row.published_at else None,
    }


@router.get(
    "/products/by-slug/{slug}", summary="Product detail by slug", response_model=ProductDetail
)
def product_by_slug(
    slug: Slug, db: ReadDb, tenant: CurrentTenant, services: ServicesDep
) -> dict[str, Any]:
    what = f"product {slug!r}"
    return detail_fields(db, tenant.store_id, "slug", slug, what, services.clock.now())


@router.get("/products/{product_id}", summary="Product detail by id", response_model=ProductDetail)
def product_by_id(
    product_id: EntityId, db: ReadDb, tenant: CurrentTenant, services: ServicesDep
) -> dict[str, Any]:
    what = f"product {product_id}"
    return detail_fields(db, tenant.store_id, "id", product_id, what, services.clock.now())


@router.get("/products/{product_id}/related", summary="Products of the same category")
def related_products(
    product_id: EntityId,
    db: ReadDb,
    tenant: CurrentTenant,
    services: ServicesDep,
    limit: Limit = None,
) -> Envelope[ProductCard]:
    settings = services.settings
    size = clamp_limit(limit, default=settings.default_limit, maximum=settings.max_limit)
    row = find_product(db, tenant.store_id, products.c.id == product_id, f"product {product_id}")
    rows: list[Any] = []
    if row.category_id is not None:
        query = (
            select(*CARD_COLUMNS)
            .where(
                products.c.store_id == tenant.store_id,
                PUBLISHED,
                products.c.category_id == row.category_id,
                products.c.id != row.id,
            )
            .order_by(products.c.created_at.desc(), products.c.id.desc())
            .limit(size + 1)
        )
        rows = list(db.execute(query).all())
    page, has_more = first_page(rows, size)
    cards = build_cards(db, tenant.store_id, page, services.clock.now())
    return Envelope[ProductCard](items=cards, next_cursor=None, has_more=has_more)


@router.get("/products/{product_id}/variants", summary="Variants on sale")
def product_variants(
    product_id: EntityId, db: ReadDb, tenant: CurrentTenant, services: ServicesDep
) -> Envelope[Variant]:
    """A variant without its own price (or compare-at price) sells at the product's."""
    store_id = tenant.store_id
    product = find_product(db, store_id, products.c.id == product_id, f"product {product_id}")
    discount = running_discounts(db, store_id, [product.id], services.clock.now()).get(product.id)
    rows = db.execute(
        select(variants)
        .where(
            variants.c.store_id == store_id,
            variants.c.product_id == product.id,
            variants.c.on_sale.is_(True),
        )
        .order_by(variants.c.position, variants.c.id)
    ).all()
    items = []
    for v in rows:
        price = v.price if v.price is not None else product.price
        options = v.options if isinstance(v.options, dict) else {}
        items.append(
            Variant(
                id=v.id,
                product_id=v.product_id,
                sku=v.sku,
                name=v.name,
                options={str(k): str(val) for k, val in options.items()},
                price=price,
                effective_price=discounted(price, discount),
                compare_at_price=v.compare_at_price
                if v.compare_at_price is not None
                else product.compare_at_price,
                in_stock=unit_in_stock(v.stock),
                stock=v.stock,
                image_url=v.image_url,
            )
        )
    return Envelope[Variant](items=items, next_cursor=None, has_more=False)
