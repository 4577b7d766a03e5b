"""GET /routes/resolve: which entity a path shows, so a client renders it there (200, no redirect).

Looked up in order: the merchant's custom paths (the custom_paths table; the only way to reach
a collection), then the url columns of products, categories and CMS pages, then article paths
/bai-viet/<slug>. A match whose target is not visible (draft, hidden, not yet published) does
not count. The path is tried as given, NFC-normalised, percent-decoded and without a trailing
slash. Nothing found: 404.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterator
from datetime import datetime
from typing import Annotated, Any, Literal
from urllib.parse import unquote

from fastapi import APIRouter, Query
from sqlalchemy import ColumnElement, Connection, Table, select

from companion.db.schema import articles, categories, collections, custom_paths, pages, products
from companion.deps import CurrentTenant, ReadDb, ServicesDep
from companion.problems import not_found
from companion.routes.one_hop import OneHopRoute
from companion.schemas.read import RouteTarget

router = APIRouter(route_class=OneHopRoute)

TargetType = Literal["product", "category", "collection", "article", "cms_page"]
ARTICLE_PREFIX = "/bai-viet/"
TABLES: dict[str, Table] = {
    "product": products,
    "category": categories,
    "collection": collections,
    "article": articles,
    "cms_page": pages,
}
URL_OWNERS: tuple[TargetType, ...] = ("product", "category", "cms_page")


def visible(kind: str, now: datetime) -> ColumnElement[bool]:
    table = TABLES[kind]
    if kind == "collection":
        return table.c.visible.is_(True)
    if kind == "article":
        return (table.c.status == "published") & (table.c.published_at <= now)
    return table.c.status == "published"


def candidates(path: str) -> Iterator[str]:
    """The forms a client may have sent a stored path in, most literal first."""
    seen: set[str] = set()
    for form in (
        path,
        unicodedata.normalize("NFC", path),
        unicodedata.normalize("NFC", unquote(path)),
    ):
        for variant in (form, form.rstrip("/") or "/"):
            if variant not in seen:
                seen.add(variant)
                yield variant


def find_id(
    conn: Connection, kind: str, store_id: int, now: datetime, match: ColumnElement[bool]
) -> int | None:
    table = TABLES[kind]
    query = select(table.c.id).where(table.c.store_id == store_id, visible(kind, now), match)
    found: Any = conn.execute(query.limit(1)).scalar()
    return None if found is None else int(found)


def resolve(conn: Connection, store_id: int, path: str, now: datetime) -> RouteTarget | None:
    for form in candidates(path):
        custom = conn.execute(
            select(custom_paths.c.target_type, custom_paths.c.target_id).where(
                custom_paths.c.store_id == store_id, custom_paths.c.path == form
            )
        ).first()
        if custom is not None and custom.target_type in TABLES:
            kind = custom.target_type
            if find_id(conn, kind, store_id, now, TABLES[kind].c.id == custom.target_id):
                return RouteTarget(type=kind, id=custom.target_id)
        for kind in URL_OWNERS:
            found = find_id(conn, kind, store_id, now, TABLES[kind].c.url == form)
            if found is not None:
                return RouteTarget(type=kind, id=found)
        slug = form[len(ARTICLE_PREFIX) :] if form.startswith(ARTICLE_PREFIX) else ""
        if slug:
            found = find_id(conn, "article", store_id, now, articles.c.slug == slug)
            if found is not None:
                return RouteTarget(type="article", id=found)
    return None


@router.get("/routes/resolve", summary="The entity a path shows; 404 when nothing matches")
def resolve_route(
    path: Annotated[str, Query(min_length=1, max_length=2000, description="A site path")],
    db: ReadDb,
    tenant: CurrentTenant,
    services: ServicesDep,
) -> RouteTarget:
    target = resolve(db, tenant.store_id, path, services.clock.now())
    if target is None:
        raise not_found(f"route {path[:200]!r}")
    return target
