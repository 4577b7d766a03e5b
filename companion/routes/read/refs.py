"""References that may be an id or a slug (``category=12`` or ``category=ao-thun``)."""

from __future__ import annotations

import re

from sqlalchemy import ColumnElement, Connection, Table, select

from companion.routes.read.params import MAX_ID

_DIGITS = re.compile(r"[0-9]{1,18}")


def parse_ref(value: str) -> int | str | None:
    """An id (ASCII digits), else a slug; None for an id no row can have (too large, zero)."""
    value = value.strip()
    if _DIGITS.fullmatch(value):
        number = int(value)
        return number if 1 <= number <= MAX_ID else None
    if value.isdigit():  # other digits, or more than 18: not an id this API issues
        return None
    return value


def ref_match(table: Table, raw: str) -> ColumnElement[bool]:
    """The condition selecting the row ``raw`` refers to (none when it cannot exist)."""
    ref = parse_ref(raw)
    if ref is None:
        return table.c.id.is_(None)
    return table.c.id == ref if isinstance(ref, int) else table.c.slug == ref


def ref_id(conn: Connection, table: Table, store_id: int, raw: str) -> int | None:
    """The id of the store's row (category, collection, ...) that ``raw`` refers to."""
    query = select(table.c.id).where(table.c.store_id == store_id, ref_match(table, raw))
    found = conn.execute(query).scalar_one_or_none()
    return None if found is None else int(found)
