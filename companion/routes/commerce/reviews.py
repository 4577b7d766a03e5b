"""GET /reviews/ (public, per entity), GET/POST /customer/reviews/,
DELETE /customer/reviews/{review_id}."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query, Response, status
from sqlalchemy import Connection, delete, insert, select
from sqlalchemy.exc import IntegrityError

from companion.customers.accounts import get_customer
from companion.db.commerce_schema import reviews
from companion.db.schema import articles, products
from companion.deps import CurrentTenant, Db, ServicesDep
from companion.problems import conflict, not_found, unprocessable
from companion.routes.commerce.pages import newest_first, page_of
from companion.routes.customer_auth import CustomerId
from companion.routes.one_hop import OneHopRoute
from companion.routes.read.params import Cursor, EntityId, Limit
from companion.schemas.commerce_activity import ReviewedEntity, ReviewIn, ReviewOut
from companion.schemas.commerce_fields import MAX_ID
from companion.schemas.envelope import Envelope
from companion.wire_values import wire

router = APIRouter(tags=["reviews"], route_class=OneHopRoute)

_TABLES = {ReviewedEntity.PRODUCT: products, ReviewedEntity.ARTICLE: articles}


def review_view(row: Any) -> ReviewOut:
    return ReviewOut(
        id=row.id,
        entity_type=ReviewedEntity(row.entity_type),
        entity_id=row.entity_id,
        rating=row.rating,
        title=row.title,
        content=row.content,
        author_name=row.author_name,
        created_at=wire(row.created_at),
    )


def _published(conn: Connection, store_id: int, kind: ReviewedEntity, entity_id: int) -> bool:
    table = _TABLES[kind]
    found = conn.execute(
        select(table.c.id).where(
            table.c.store_id == store_id, table.c.id == entity_id, table.c.status == "published"
        )
    ).first()
    return found is not None


@router.get("/reviews/", response_model=Envelope[ReviewOut], summary="Reviews of one entity")
def get_reviews(
    db: Db,
    tenant: CurrentTenant,
    services: ServicesDep,
    entity_type: Annotated[ReviewedEntity, Query()],
    entity_id: Annotated[int, Query(ge=1, le=MAX_ID)],
    cursor: Cursor = None,
    limit: Limit = None,
) -> Envelope[ReviewOut]:
    """Newest first. Content is plain text as the customer typed it."""
    query = select(reviews).where(
        reviews.c.store_id == tenant.store_id,
        reviews.c.entity_type == entity_type.value,
        reviews.c.entity_id == entity_id,
        reviews.c.status == "published",  # hidden by the merchant: left out
    )
    rows, next_cursor, has_more = newest_first(
        db,
        query,
        time_col=reviews.c.created_at,
        id_col=reviews.c.id,
        cursor=cursor,
        limit=limit,
        services=services,
    )
    return page_of([review_view(r) for r in rows], next_cursor, has_more)


@router.get("/customer/reviews/", response_model=Envelope[ReviewOut])
def get_own_reviews(
    db: Db,
    tenant: CurrentTenant,
    services: ServicesDep,
    customer_id: CustomerId,
    cursor: Cursor = None,
    limit: Limit = None,
) -> Envelope[ReviewOut]:
    query = select(reviews).where(
        reviews.c.store_id == tenant.store_id, reviews.c.customer_id == customer_id
    )
    rows, next_cursor, has_more = newest_first(
        db,
        query,
        time_col=reviews.c.created_at,
        id_col=reviews.c.id,
        cursor=cursor,
        limit=limit,
        services=services,
    )
    return page_of([review_view(r) for r in rows], next_cursor, has_more)


@router.post("/customer/reviews/", response_model=ReviewOut, status_code=status.HTTP_201_CREATED)
def post_review(
    body: ReviewIn,
    db: Db,
    tenant: CurrentTenant,
    services: ServicesDep,
    customer_id: CustomerId,
) -> ReviewOut:
    """One review per customer and entity; the author name is the account's full name."""
    store_id = tenant.store_id
    if not _published(db, store_id, body.entity_type, body.entity_id):
        raise unprocessable(
            "entity_id", f"no published {body.entity_type.value} {body.entity_id} in this store"
        )
    customer = get_customer(db, store_id=store_id, customer_id=customer_id)
    assert customer is not None  # the auth dependency checked it
    try:
        with db.begin_nested():
            result = db.execute(
                insert(reviews).values(
                    store_id=store_id,
                    customer_id=customer_id,
                    entity_type=body.entity_type.value,
                    entity_id=body.entity_id,
                    rating=body.rating,
                    title=body.title or None,
                    content=body.content,
                    author_name=customer.full_name,
                    created_at=services.clock.now(),
                )
            )
    except IntegrityError:
        raise conflict("already_reviewed", "you have already reviewed this") from None
    assert result.inserted_primary_key is not None
    row = db.execute(select(reviews).where(reviews.c.id == result.inserted_primary_key[0])).one()
    return review_view(row)


@router.delete(
    "/customer/reviews/{review_id}",
    status_code=status.HTTP_204_NO_CONTENT,
    response_class=Response,
)
def delete_review(
    review_id: EntityId, db: Db, tenant: CurrentTenant, customer_id: CustomerId
) -> None:
    removed = db.execute(
        delete(reviews).where(
            reviews.c.store_id == tenant.store_id,
            reviews.c.customer_id == customer_id,
            reviews.c.id == review_id,
        )
    )
    if removed.rowcount == 0:
        raise not_found(f"review {review_id}")
