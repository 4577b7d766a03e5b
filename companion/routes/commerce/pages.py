"""Newest-first keyset pages for the commerce lists (orders, points, reviews, ...)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypeVar

from sqlalchemy import Column, Connection, Row, Select

from companion.cursors import clamp_limit
from companion.deps import Services
from companion.routes.read.paging import after_desc, cut_page, time_cursor, time_key
from companion.schemas.envelope import Envelope

T = TypeVar("T")


def whole(items: Sequence[T]) -> Envelope[T]:
    """A list that always fits in one page."""
    return Envelope(items=list(items), next_cursor=None, has_more=False)


def page_of(items: Sequence[T], next_cursor: str | None, has_more: bool) -> Envelope[T]:
    return Envelope(items=list(items), next_cursor=next_cursor, has_more=has_more)


def newest_first(
    conn: Connection,
    query: Select[Any],
    *,
    time_col: Column[Any],
    id_col: Column[Any],
    cursor: str | None,
    limit: int | None,
    services: Services,
) -> tuple[list[Row[Any]], str | None, bool]:
    """One page of ``query`` ordered by (time, id) descending: rows, next cursor, has_more."""
    settings = services.settings
    size = clamp_limit(limit, default=settings.default_limit, maximum=settings.max_limit)
    if cursor:
        query = query.where(after_desc(time_col, id_col, *time_cursor(cursor)))
    rows = list(conn.execute(query.order_by(time_col.desc(), id_col.desc()).limit(size + 1)))
    return cut_page(rows, size, lambda row: time_key(row._mapping[time_col], row._mapping[id_col]))
