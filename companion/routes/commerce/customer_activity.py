"""GET/POST /customer/saved-products, DELETE /customer/saved-products/{product_id},
GET/POST /customer/product-views."""

from __future__ import annotations

from fastapi import APIRouter, Response, status
from sqlalchemy import delete, insert, select
from sqlalchemy.exc import IntegrityError

from companion.commerce.product_refs import cards_by_id, require_published_product
from companion.commerce.product_views import record_product_view
from companion.db.commerce_schema import product_views, saved_products
from companion.deps import CurrentTenant, Db, ServicesDep
from companion.problems import not_found
from companion.routes.commerce.pages import newest_first, page_of
from companion.routes.customer_auth import CustomerId
from companion.routes.one_hop import OneHopRoute
from companion.routes.read.params import Cursor, EntityId, Limit
from companion.schemas.commerce_activity import ProductRefIn, ProductViewOut, SavedProductOut
from companion.schemas.envelope import Envelope
from companion.wire_values import wire

router = APIRouter(tags=["customer"], route_class=OneHopRoute)


@router.get("/customer/saved-products", response_model=Envelope[SavedProductOut])
def get_saved_products(
    db: Db,
    tenant: CurrentTenant,
    services: ServicesDep,
    customer_id: CustomerId,
    cursor: Cursor = None,
    limit: Limit = None,
) -> Envelope[SavedProductOut]:
    """Most recently saved first, each with its product card."""
    query = select(saved_products).where(
        saved_products.c.store_id == tenant.store_id,
        saved_products.c.customer_id == customer_id,
    )
    rows, next_cursor, has_more = newest_first(
        db,
        query,
        time_col=saved_products.c.saved_at,
        id_col=saved_products.c.product_id,
        cursor=cursor,
        limit=limit,
        services=services,
    )
    cards = cards_by_id(
        db,
        store_id=tenant.store_id,
        product_ids=[r.product_id for r in rows],
        now=services.clock.now(),
    )
    items = [
        SavedProductOut(
            product_id=r.product_id, saved_at=wire(r.saved_at), product=cards.get(r.product_id)
        )
        for r in rows
    ]
    return page_of(items, next_cursor, has_more)


@router.post(
    "/customer/saved-products",
    response_model=SavedProductOut,
    status_code=status.HTTP_201_CREATED,
)
def post_saved_product(
    body: ProductRefIn,
    db: Db,
    tenant: CurrentTenant,
    services: ServicesDep,
    customer_id: CustomerId,
) -> SavedProductOut:
    """Saving a product twice keeps the first save."""
    store_id, now = tenant.store_id, services.clock.now()
    require_published_product(db, store_id=store_id, product_id=body.product_id)
    try:
        with db.begin_nested():
            db.execute(
                insert(saved_products).values(
                    store_id=store_id,
                    customer_id=customer_id,
                    product_id=body.product_id,
                    saved_at=now,
                )
            )
    except IntegrityError:
        pass  # already saved
    saved_at = db.execute(
        select(saved_products.c.saved_at).where(
            saved_products.c.customer_id == customer_id,
            saved_products.c.product_id == body.product_id,
        )
    ).scalar_one()
    cards = cards_by_id(db, store_id=store_id, product_ids=[body.product_id], now=now)
    return SavedProductOut(
        product_id=body.product_id, saved_at=wire(saved_at), product=cards.get(body.product_id)
    )


@router.delete(
    "/customer/saved-products/{product_id}",
    status_code=status.HTTP_204_NO_CONTENT,
    response_class=Response,
)
def delete_saved_product(
    product_id: EntityId, db: Db, tenant: CurrentTenant, customer_id: CustomerId
) -> None:
    removed = db.execute(
        delete(saved_products).where(
            saved_products.c.store_id == tenant.store_id,
            saved_products.c.customer_id == customer_id,
            saved_products.c.product_id == product_id,
        )
    )
    if removed.rowcount == 0:
        raise not_found(f"saved product {product_id}")


@router.get("/customer/product-views", response_model=Envelope[ProductViewOut])
def get_product_views(
    db: Db,
    tenant: CurrentTenant,
    services: ServicesDep,
    customer_id: CustomerId,
    cursor: Cursor = None,
    limit: Limit = None,
) -> Envelope[ProductViewOut]:
    """The customer's product views, newest first."""
    query = select(product_views).where(
        product_views.c.store_id == tenant.store_id,
        product_views.c.customer_id == customer_id,
    )
    rows, next_cursor, has_more = newest_first(
        db,
        query,
        time_col=product_views.c.viewed_at,
        id_col=product_views.c.id,
        cursor=cursor,
        limit=limit,
        services=services,
    )
    cards = cards_by_id(
        db,
        store_id=tenant.store_id,
        product_ids=[r.product_id for r in rows],
        now=services.clock.now(),
    )
    items = [
        ProductViewOut(
            id=r.id,
            product_id=r.product_id,
            viewed_at=wire(r.viewed_at),
            product=cards.get(r.product_id),
        )
        for r in rows
    ]
    return page_of(items, next_cursor, has_more)


@router.post(
    "/customer/product-views",
    response_model=ProductViewOut,
    status_code=status.HTTP_201_CREATED,
)
def post_product_view(
    body: ProductRefIn,
    db: Db,
    tenant: CurrentTenant,
    services: ServicesDep,
    customer_id: CustomerId,
) -> ProductViewOut:
    store_id, now = tenant.store_id, services.clock.now()
    require_published_product(db, store_id=store_id, product_id=body.product_id)
    view_id = record_product_view(
        db,
        store_id=store_id,
        product_id=body.product_id,
        customer_id=customer_id,
        session_token=None,
        now=now,
    )
    cards = cards_by_id(db, store_id=store_id, product_ids=[body.product_id], now=now)
    return ProductViewOut(
        id=view_id,
        product_id=body.product_id,
        viewed_at=wire(now),
        product=cards.get(body.product_id),
    )
