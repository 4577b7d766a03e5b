"""GET /search (products) and GET /search/content (articles, CMS pages): accent-insensitive.

Every word of ``q`` must appear in the folded name or title (``companion.text.fold``), so "ao
thun" finds "Áo thun cổ tròn". Results are newest first and cursor-paginated.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

from fastapi import APIRouter, Query
from sqlalchemy import ColumnElement, Connection, and_, select, true

from companion.cursors import clamp_limit
from companion.db.schema import articles, pages, products
from companion.deps import CurrentTenant, Db, Services, ServicesDep
from companion.product_cards import CARD_COLUMNS, PUBLISHED, build_cards
from companion.routes.commerce.pages import newest_first, page_of
from companion.routes.one_hop import OneHopRoute
from companion.routes.read.category_index import category_parents, descendants, filed_under
from companion.routes.read.paging import cut_page, time_cursor, time_key
from companion.routes.read.params import Cursor, Limit
from companion.schemas.commerce_activity import ContentEntity, ContentHit
from companion.schemas.commerce_fields import MAX_ID
from companion.schemas.envelope import Envelope
from companion.schemas.read import ProductCard
from companion.text import fold
from companion.wire_values import article_path, clean_url, wire

router = APIRouter(tags=["search"], route_class=OneHopRoute)

SearchText = Annotated[
    str | None, Query(max_length=200, description="Words to find, accents optional")
]
OptionalId = Annotated[int | None, Query(ge=1, le=MAX_ID)]


def words_in(column: Any, q: str | None) -> ColumnElement[bool]:
    """Every folded word of ``q`` occurs in ``column`` (a folded copy of the text)."""
    words = fold(q or "").split()
    return and_(true(), *(column.contains(word, autoescape=True) for word in words))


@router.get("/search", response_model=Envelope[ProductCard], summary="Search products")
def search_products(
    db: Db,
    tenant: CurrentTenant,
    services: ServicesDep,
    q: SearchText = None,
    limit: Limit = None,
    cursor: Cursor = None,
    category_id: OptionalId = None,
    brand_id: OptionalId = None,
) -> Envelope[ProductCard]:
    """``category_id`` includes the category's subcategories."""
    store_id = tenant.store_id
    conds = [products.c.store_id == store_id, PUBLISHED, words_in(products.c.search_name, q)]
    if category_id is not None:
        conds.append(filed_under(descendants(category_parents(db, store_id), category_id)))
    if brand_id is not None:
        conds.append(products.c.brand_id == brand_id)
    rows, next_cursor, has_more = newest_first(
        db,
        select(*CARD_COLUMNS).where(*conds),
        time_col=products.c.created_at,
        id_col=products.c.id,
        cursor=cursor,
        limit=limit,
        services=services,
    )
    cards = build_cards(db, store_id, rows, services.clock.now())
    return page_of(cards, next_cursor, has_more)


@router.get(
    "/search/content", response_model=Envelope[ContentHit], summary="Search articles or pages"
)
def search_content(
    db: Db,
    tenant: CurrentTenant,
    services: ServicesDep,
    q: SearchText = None,
    entity_type: ContentEntity = ContentEntity.ARTICLE,
    limit: Limit = None,
    cursor: Cursor = None,
) -> Envelope[ContentHit]:
    """Articles by title (newest published first), or CMS pages by title (newest updated)."""
    if entity_type is ContentEntity.ARTICLE:
        return _search_articles(db, tenant.store_id, services, q, limit, cursor)
    return _search_pages(db, tenant.store_id, services, q, limit, cursor)


def _search_articles(
    db: Connection,
    store_id: int,
    services: Services,
    q: str | None,
    limit: int | None,
    cursor: str | None,
) -> Envelope[ContentHit]:
    query = select(articles).where(
        articles.c.store_id == store_id,
        articles.c.status == "published",
        articles.c.published_at.is_not(None),
        articles.c.published_at <= services.clock.now(),
        words_in(articles.c.search_title, q),
    )
    rows, next_cursor, has_more = newest_first(
        db,
        query,
        time_col=articles.c.published_at,
        id_col=articles.c.id,
        cursor=cursor,
        limit=limit,
        services=services,
    )
    hits = [
        ContentHit(
            entity_type=ContentEntity.ARTICLE,
            id=r.id,
            title=r.title,
            slug=r.slug,
            url=article_path(r.slug),
            excerpt=r.excerpt,
            updated_at=wire(r.updated_at),
        )
        for r in rows
    ]
    return page_of(hits, next_cursor, has_more)


def _search_pages(
    db: Connection,
    store_id: int,
    services: Services,
    q: str | None,
    limit: int | None,
    cursor: str | None,
) -> Envelope[ContentHit]:
    """Pages have no folded-title column and are few: they are folded and matched here."""
    settings = services.settings
    size = clamp_limit(limit, default=settings.default_limit, maximum=settings.max_limit)
    words = fold(q or "").split()
    rows = [
        r
        for r in db.execute(
            select(pages).where(pages.c.store_id == store_id, pages.c.status == "published")
        )
        if all(word in fold(r.title) for word in words)
    ]
    rows.sort(key=lambda r: (r.updated_at, r.id), reverse=True)
    if cursor:
        after: tuple[datetime, int] = time_cursor(cursor)
        rows = [r for r in rows if (r.updated_at, r.id) < after]
    page, next_cursor, has_more = cut_page(
        rows[: size + 1], size, lambda r: time_key(r.updated_at, r.id)
    )
    hits = [
        ContentHit(
            entity_type=ContentEntity.CMS_PAGE,
            id=r.id,
            title=r.title,
            slug=r.slug,
            url=clean_url(r.url),
            excerpt=None,
            updated_at=wire(r.updated_at),
        )
        for r in page
    ]
    return page_of(hits, next_cursor, has_more)
