"""Newest-first keyset pages for the merchant's lists: ``<wire time>|<id>`` cursors."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Column, Connection, Row, Select, and_, or_

from companion.admin.errors import Invalid
from companion.clock import wire_timestamp


@dataclass(frozen=True, slots=True)
class Page:
    rows: list[Row[Any]]
    next_cursor: str | None


def _decode(cursor: str) -> tuple[datetime, int]:
    moment, sep, raw_id = cursor.rpartition("|")
    try:
        if not sep or not raw_id.isdigit() or len(raw_id) > 18:
            raise ValueError(cursor)
        return datetime.fromisoformat(moment).replace(tzinfo=None), int(raw_id)
    except ValueError:
        raise Invalid("cursor", "not a cursor this API returned") from None


def newest_first(
    conn: Connection,
    query: Select[Any],
    *,
    time_col: Column[Any],
    id_col: Column[Any],
    cursor: str | None,
    limit: int,
) -> Page:
    if cursor:
        at, row_id = _decode(cursor)
        query = query.where(or_(time_col < at, and_(time_col == at, id_col < row_id)))
    ordered = query.order_by(time_col.desc(), id_col.desc()).limit(limit + 1)
    rows = list(conn.execute(ordered))
    if len(rows) <= limit:
        return Page(rows, None)
    last = rows[limit - 1]._mapping
    return Page(rows[:limit], f"{wire_timestamp(last[time_col])}|{last[id_col]}")
