"""Articles (published, newest first), their categories and tags.

An article is served once it is published and its published_at has come. Articles have no url
column: clients link them at /bai-viet/<slug>.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from datetime import datetime
from typing import Annotated, Any

from fastapi import APIRouter, Query
from sqlalchemy import ColumnElement, Connection, func, select

from companion.cursors import clamp_limit
from companion.db.schema import (
    article_categories,
    article_category_links,
    article_tag_links,
    article_tags,
    articles,
)
from companion.deps import CurrentTenant, ReadDb, ServicesDep
from companion.problems import not_found
from companion.routes.one_hop import OneHopRoute
from companion.routes.read.paging import after_desc, cut_page, first_page, time_cursor, time_key
from companion.routes.read.params import Cursor, EntityId, Limit, Ref, Slug
from companion.routes.read.refs import ref_match
from companion.schemas.envelope import Envelope
from companion.schemas.read import (
    ArticleCategory,
    ArticleDetail,
    ArticleSummary,
    ArticleTag,
    ArticleTagRef,
)
from companion.wire_values import wire

router = APIRouter(route_class=OneHopRoute)

NEWEST = (articles.c.published_at.desc(), articles.c.id.desc())


def published(store_id: int, now: datetime) -> list[ColumnElement[bool]]:
    return [
        articles.c.store_id == store_id,
        articles.c.status == "published",
        articles.c.published_at.is_not(None),
        articles.c.published_at <= now,
    ]


def summaries(conn: Connection, rows: Sequence[Any]) -> list[dict[str, Any]]:
    """List fields of each article row, with its categories and tags (two batched queries)."""
    ids = [r.id for r in rows]
    cats: dict[int, list[ArticleCategory]] = defaultdict(list)
    for link in conn.execute(
        select(article_category_links.c.article_id, article_categories)
        .join(article_categories, article_categories.c.id == article_category_links.c.category_id)
        .where(article_category_links.c.article_id.in_(ids))
        .order_by(article_categories.c.position, article_categories.c.id)
    ):
        cats[link.article_id].append(ArticleCategory(id=link.id, name=link.name, slug=link.slug))
    tags: dict[int, list[ArticleTagRef]] = defaultdict(list)
    for link in conn.execute(
        select(article_tag_links.c.article_id, article_tags.c.name, article_tags.c.slug)
        .join(article_tags, article_tags.c.id == article_tag_links.c.tag_id)
        .where(article_tag_links.c.article_id.in_(ids))
        .order_by(article_tags.c.name)
    ):
        tags[link.article_id].append(ArticleTagRef(name=link.name, slug=link.slug))
    return [
        {
            "id": r.id,
            "title": r.title,
            "slug": r.slug,
            "excerpt": r.excerpt,
            "cover_image_url": r.cover_image_url,
            "published_at": wire(r.published_at),
            "updated_at": wire(r.updated_at),
            "categories": cats[r.id],
            "tags": tags[r.id],
        }
        for r in rows
    ]


def in_category(store_id: int, raw: str) -> ColumnElement[bool]:
    match = ref_match(article_categories, raw)
    linked = (
        select(article_category_links.c.article_id)
        .join(article_categories, article_categories.c.id == article_category_links.c.category_id)
        .where(article_categories.c.store_id == store_id, match)
    )
    return articles.c.id.in_(linked)


def with_tag(store_id: int, slug: str) -> ColumnElement[bool]:
    linked = (
        select(article_tag_links.c.article_id)
        .join(article_tags, article_tags.c.id == article_tag_links.c.tag_id)
        .where(article_tags.c.store_id == store_id, article_tags.c.slug == slug)
    )
    return articles.c.id.in_(linked)


@router.get("/articles", summary="Published articles, newest first")
def list_articles(
    db: ReadDb,
    tenant: CurrentTenant,
    services: ServicesDep,
    limit: Limit = None,
    cursor: Cursor = None,
    category: Ref = None,
    tag: Annotated[str | None, Query(max_length=200, description="A tag slug")] = None,
) -> Envelope[ArticleSummary]:
    settings = services.settings
    size = clamp_limit(limit, default=settings.default_limit, maximum=settings.max_limit)
    conds = published(tenant.store_id, services.clock.now())
    if category is not None:
        conds.append(in_category(tenant.store_id, category))
    if tag is not None:
        conds.append(with_tag(tenant.store_id, tag))
    if cursor is not None:
        conds.append(after_desc(articles.c.published_at, articles.c.id, *time_cursor(cursor)))
    query = select(articles).where(*conds).order_by(*NEWEST).limit(size + 1)
    rows = db.execute(query).all()
    page, next_cursor, has_more = cut_page(rows, size, lambda r: time_key(r.published_at, r.id))
    items = [ArticleSummary(**s) for s in summaries(db, page)]
    return Envelope[ArticleSummary](items=items, next_cursor=next_cursor, has_more=has_more)


@router.get("/articles/by-slug/{slug}", summary="Article detail with content, categories, tags")
def article_by_slug(
    slug: Slug, db: ReadDb, tenant: CurrentTenant, services: ServicesDep
) -> ArticleDetail:
    conds = published(tenant.store_id, services.clock.now())
    row = db.execute(select(articles).where(*conds, articles.c.slug == slug)).first()
    if row is None:
        raise not_found(f"article {slug!r}")
    (summary,) = summaries(db, [row])
    return ArticleDetail(
        **summary,
        content_html=row.content_html,
        author_name=row.author_name,
        meta_title=row.meta_title,
        meta_description=row.meta_description,
    )


@router.get("/articles/{article_id}/related", summary="Articles sharing a category")
def related_articles(
    article_id: EntityId,
    db: ReadDb,
    tenant: CurrentTenant,
    services: ServicesDep,
    limit: Limit = None,
) -> Envelope[ArticleSummary]:
    settings = services.settings
    size = clamp_limit(limit, default=settings.default_limit, maximum=settings.max_limit)
    conds = published(tenant.store_id, services.clock.now())
    found = db.execute(select(articles.c.id).where(*conds, articles.c.id == article_id)).first()
    if found is None:
        raise not_found(f"article {article_id}")
    shared = select(article_category_links.c.category_id).where(
        article_category_links.c.article_id == article_id
    )
    siblings = select(article_category_links.c.article_id).where(
        article_category_links.c.category_id.in_(shared)
    )
    query = (
        select(articles)
        .where(*conds, articles.c.id != article_id, articles.c.id.in_(siblings))
        .order_by(*NEWEST)
        .limit(size + 1)
    )
    page, has_more = first_page(db.execute(query).all(), size)
    items = [ArticleSummary(**s) for s in summaries(db, page)]
    return Envelope[ArticleSummary](items=items, next_cursor=None, has_more=has_more)


@router.get("/article-categories", summary="Article categories")
def list_article_categories(db: ReadDb, tenant: CurrentTenant) -> Envelope[ArticleCategory]:
    rows = db.execute(
        select(article_categories)
        .where(article_categories.c.store_id == tenant.store_id)
        .order_by(article_categories.c.position, article_categories.c.id)
    ).all()
    items = [ArticleCategory(id=r.id, name=r.name, slug=r.slug) for r in rows]
    return Envelope[ArticleCategory](items=items, next_cursor=None, has_more=False)


@router.get("/article-tags", summary="Tags of published articles, most used first")
def list_article_tags(
    db: ReadDb, tenant: CurrentTenant, services: ServicesDep
) -> Envelope[ArticleTag]:
    count = func.count(articles.c.id)
    query = (
        select(article_tags.c.name, article_tags.c.slug, count.label("article_count"))
        .join(article_tag_links, article_tag_links.c.tag_id == article_tags.c.id)
        .join(articles, articles.c.id == article_tag_links.c.article_id)
        .where(*published(tenant.store_id, services.clock.now()))
        .group_by(article_tags.c.id, article_tags.c.name, article_tags.c.slug)
        .order_by(count.desc(), article_tags.c.name)
    )
    items = [
        ArticleTag(name=r.name, slug=r.slug, article_count=r.article_count)
        for r in db.execute(query)
    ]
    return Envelope[ArticleTag](items=items, next_cursor=None, has_more=False)
