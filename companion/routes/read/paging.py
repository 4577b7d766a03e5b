"""Keyset paging: parse a cursor into a typed key, build the WHERE clause, cut the page.

Cursors are ``<key>|<id>`` (``companion.cursors``). The key is a wire timestamp for time-ordered
lists (created_at for products and sitemap rows, published_at for articles), or a price (or
``null``) for price sorts. Because each page continues strictly after the last row served, rows
inserted or updated between pages never make another row repeat or vanish from a time walk.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any, TypeVar

from sqlalchemy import ColumnElement, and_, or_

from companion.clock import wire_timestamp
from companion.cursors import decode_cursor, encode_cursor
from companion.problems import unprocessable

R = TypeVar("R")
MAX_MONEY = 2**63 - 1
NULL_KEY = "null"


def _split(cursor: str) -> tuple[str, int]:
    try:
        return decode_cursor(cursor)
    except ValueError:  # digits int() rejects (e.g. superscripts) are still not a cursor
        raise unprocessable("cursor", "not a cursor returned by this API") from None


def time_cursor(cursor: str) -> tuple[datetime, int]:
    key, row_id = _split(cursor)
    try:
        when = datetime.fromisoformat(key)
    except ValueError:
        raise unprocessable("cursor", "not a cursor returned by this API") from None
    if when.tzinfo is not None:
        raise unprocessable("cursor", "not a cursor returned by this API")
    return when, row_id


def money_cursor(cursor: str) -> tuple[int | None, int]:
    key, row_id = _split(cursor)
    if key == NULL_KEY:
        return None, row_id
    if not key.isascii() or not key.lstrip("-").isdigit() or abs(int(key)) > MAX_MONEY:
        raise unprocessable("cursor", "not a cursor returned by this API (or of another sort)")
    return int(key), row_id


def after_desc(key_col: Any, id_col: Any, key: Any, row_id: int) -> ColumnElement[bool]:
    """Rows after (key, id) in ``key DESC, id DESC`` order (key not null)."""
    return or_(key_col < key, and_(key_col == key, id_col < row_id))


def after_asc(key_col: Any, id_col: Any, key: Any, row_id: int) -> ColumnElement[bool]:
    """Rows after (key, id) in ``key ASC, id ASC`` order (key not null)."""
    return or_(key_col > key, and_(key_col == key, id_col > row_id))


def after_nullable(
    key_col: Any, id_col: Any, key: Any, row_id: int, *, descending: bool
) -> ColumnElement[bool]:
    """Rows after (key, id) when NULL keys sort last and ids follow the key's direction."""
    if key is None:
        tail = id_col < row_id if descending else id_col > row_id
        return and_(key_col.is_(None), tail)
    after = after_desc if descending else after_asc
    return or_(after(key_col, id_col, key, row_id), key_col.is_(None))


def cut_page(
    rows: Sequence[R], limit: int, cursor_of: Callable[[R], str]
) -> tuple[list[R], str | None, bool]:
    """Rows were fetched with ``limit + 1``: the page, the next cursor and has_more."""
    page = list(rows[:limit])
    has_more = len(rows) > limit
    next_cursor = cursor_of(page[-1]) if has_more and page else None
    return page, next_cursor, has_more


def first_page(rows: Sequence[R], limit: int) -> tuple[list[R], bool]:
    """For lists without a cursor: the first ``limit`` rows and whether any were left out."""
    return list(rows[:limit]), len(rows) > limit


def time_key(when: datetime, row_id: int) -> str:
    return encode_cursor(wire_timestamp(when) or "", row_id)


def money_key(amount: int | None, row_id: int) -> str:
    return encode_cursor(NULL_KEY if amount is None else str(amount), row_id)
