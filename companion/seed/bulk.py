"""Bulk writes for seeding: executemany in batches, one statement shape per table.

Portable Core inserts only. Parent rows are inserted with ``RETURNING`` in parameter order
(SQLAlchemy's "insertmanyvalues"), which SQLite and PostgreSQL both support, so ids come from
the database's own sequence instead of being guessed; child rows use a plain executemany.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from itertools import islice
from typing import Any

from sqlalchemy import Connection, Table, insert

Row = Mapping[str, Any]

BATCH_SIZE = 10_000


def insert_returning_ids(conn: Connection, table: Table, rows: Sequence[Row]) -> list[int]:
    """Insert ``rows`` and return their new ids, in the order of ``rows``."""
    if not rows:
        return []
    statement = insert(table).returning(table.c.id, sort_by_parameter_order=True)
    return list(conn.execute(statement, list(rows)).scalars())


def insert_rows(conn: Connection, table: Table, rows: Iterable[Row]) -> int:
    """Insert ``rows`` (any iterable, consumed in batches to bound memory); return the count."""
    count = 0
    iterator = iter(rows)
    while batch := list(islice(iterator, BATCH_SIZE)):
        conn.execute(insert(table), batch)
        count += len(batch)
    return count
