"""GET /recommendations/product/{id}, GET /recommendations/recently-viewed,
POST /recommendations/view."""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated

from fastapi import APIRouter, Query, Response, status
from sqlalchemy import select

from companion.commerce.product_refs import cards_in_order, require_published_product
from companion.commerce.product_views import (
    also_viewed_ids,
    recently_viewed_ids,
    record_product_view,
)
from companion.cursors import clamp_limit
from companion.db.schema import products
from companion.deps import CurrentTenant, Db, ServicesDep
from companion.problems import forbidden, not_found, unprocessable
from companion.product_cards import CARD_COLUMNS, PUBLISHED, build_cards
from companion.refusals import NotSignedIn
from companion.routes.commerce.pages import page_of, whole
from companion.routes.customer_auth import OptionalCustomerId
from companion.routes.one_hop import OneHopRoute
from companion.routes.read.paging import first_page
from companion.routes.read.params import EntityId, Limit
from companion.schemas.commerce_activity import RecommendationViewIn
from companion.schemas.commerce_fields import MAX_ID
from companion.schemas.envelope import Envelope
from companion.schemas.read import ProductCard

router = APIRouter(tags=["recommendations"], route_class=OneHopRoute)


class RuleType(StrEnum):
    SAME_CATEGORY = "same_category"
    SAME_BRAND = "same_brand"
    ALSO_VIEWED = "also_viewed"  # viewed by the same customers or sessions


@router.get(
    "/recommendations/product/{product_id}",
    response_model=Envelope[ProductCard],
    summary="Products to suggest beside a product",
)
def get_product_recommendations(
    product_id: EntityId,
    db: Db,
    tenant: CurrentTenant,
    services: ServicesDep,
    rule_type: RuleType = RuleType.SAME_CATEGORY,
    limit: Limit = None,
) -> Envelope[ProductCard]:
    """One page; the product itself is never suggested. No cursor: ``has_more`` says whether a
    larger ``limit`` would have suggested more."""
    store_id, now = tenant.store_id, services.clock.now()
    size = clamp_limit(limit, default=8, maximum=services.settings.max_limit)
    product = db.execute(
        select(products.c.category_id, products.c.brand_id).where(
            products.c.store_id == store_id, products.c.id == product_id, PUBLISHED
        )
    ).first()
    if product is None:
        raise not_found(f"product {product_id}")
    if rule_type is RuleType.ALSO_VIEWED:
        ids, has_more = first_page(
            also_viewed_ids(db, store_id=store_id, product_id=product_id, limit=size + 1), size
        )
        return page_of(
            cards_in_order(db, store_id=store_id, product_ids=ids, now=now), None, has_more
        )
    column = products.c.category_id if rule_type is RuleType.SAME_CATEGORY else products.c.brand_id
    value = product.category_id if rule_type is RuleType.SAME_CATEGORY else product.brand_id
    if value is None:
        return whole([])
    rows = db.execute(
        select(*CARD_COLUMNS)
        .where(products.c.store_id == store_id, PUBLISHED, column == value)
        .where(products.c.id != product_id)
        .order_by(products.c.created_at.desc(), products.c.id.desc())
        .limit(size + 1)
    ).all()
    page, has_more = first_page(rows, size)
    return page_of(build_cards(db, store_id, page, now), None, has_more)


@router.get("/recommendations/recently-viewed", response_model=Envelope[ProductCard])
def get_recently_viewed(
    db: Db,
    tenant: CurrentTenant,
    services: ServicesDep,
    viewer_id: OptionalCustomerId,
    customer_id: Annotated[
        int | None, Query(ge=1, le=MAX_ID, description="Must be the logged-in customer")
    ] = None,
    session_token: Annotated[
        str | None, Query(max_length=100, description="The anonymous visitor's id")
    ] = None,
    limit: Limit = None,
) -> Envelope[ProductCard]:
    """Distinct products, latest view first: the customer's (with their JWT), else the
    session's; ``has_more`` as above. A customer's history is private: ``customer_id`` needs
    that customer's JWT."""
    if customer_id is not None:
        if viewer_id is None:
            raise NotSignedIn("login_required", "customer_id needs the customer's JWT")
        if viewer_id != customer_id:
            raise forbidden("not_your_history", "customer_id is not the logged-in customer")
    if viewer_id is None and not session_token:
        raise unprocessable("session_token", "send session_token, or the customer's JWT")
    size = clamp_limit(limit, default=8, maximum=services.settings.max_limit)
    viewed = recently_viewed_ids(
        db,
        store_id=tenant.store_id,
        customer_id=viewer_id,
        session_token=session_token,
        limit=size + 1,
    )
    ids, has_more = first_page(viewed, size)
    cards = cards_in_order(db, store_id=tenant.store_id, product_ids=ids, now=services.clock.now())
    return page_of(cards, None, has_more)


@router.post(
    "/recommendations/view",
    status_code=status.HTTP_204_NO_CONTENT,
    response_class=Response,
    summary="Record a product view",
)
def post_view(
    body: RecommendationViewIn,
    db: Db,
    tenant: CurrentTenant,
    services: ServicesDep,
    customer_id: OptionalCustomerId,
) -> None:
    """Feeds recently-viewed and also-viewed; with the JWT it counts for the customer."""
    if customer_id is None and not body.session_token:
        raise unprocessable("session_token", "send session_token, or the customer's JWT")
    require_published_product(db, store_id=tenant.store_id, product_id=body.product_id)
    record_product_view(
        db,
        store_id=tenant.store_id,
        product_id=body.product_id,
        customer_id=customer_id,
        session_token=body.session_token,
        now=services.clock.now(),
    )
