"""Bulk writes for seeding: executemany in batches, one statement shape per table.

Portable Core inserts only, and ids always come from the database's own sequence, never guessed
(explicit ids would leave a PostgreSQL sequence behind). Small parent tables are inserted with
``RETURNING`` in parameter order (SQLAlchemy's "insertmanyvalues"); the one large parent table,
products, with a plain executemany and a look-up by its unique slug; child rows with a plain
executemany.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from itertools import islice
from typing import Any

from sqlalchemy import Connection, Table, insert, select

Row = Mapping[str, Any]

BATCH_SIZE = 10_000


def insert_returning_ids(conn: Connection, table: Table, rows: Sequence[Row]) -> list[int]:
    """Insert ``rows`` and return their new ids, in the order of ``rows``."""
    if not rows:
        return []
    statement = insert(table).returning(table.c.id, sort_by_parameter_order=True)
    return list(conn.execute(statement, list(rows)).scalars())


def insert_keyed_rows(
    conn: Connection, table: Table, rows: Sequence[Row], *, key: str
) -> list[int]:
    """Insert one store's ``rows`` and return their ids, looked up by the unique column ``key``.

    For large parent tables: a plain executemany plus one look-up is several times faster than
    ``RETURNING`` on PostgreSQL (psycopg converts every placeholder of the multi-row statement).
    """
    if not rows:
        return []
    conn.execute(insert(table), list(rows))
    keys = [row[key] for row in rows]
    found = conn.execute(
        select(table.c[key], table.c.id).where(
            table.c.store_id == rows[0]["store_id"], table.c[key].in_(keys)
        )
    )
    ids: dict[Any, int] = {value: row_id for value, row_id in found}
    return [ids[value] for value in keys]


def insert_rows(conn: Connection, table: Table, rows: Iterable[Row]) -> int:
    """Insert ``rows`` (any iterable, consumed in batches to bound memory); return the count."""
    count = 0
    iterator = iter(rows)
    while batch := list(islice(iterator, BATCH_SIZE)):
        conn.execute(insert(table), batch)
        count += len(batch)
    return count


class RowWriter:
    """Inserts rows on one connection and tallies them per table (for the seed summary)."""

    def __init__(self, conn: Connection) -> None:
        self.conn = conn
        self.counts: dict[str, int] = {}

    def insert(self, table: Table, rows: Iterable[Row]) -> None:
        self.tally(table, insert_rows(self.conn, table, rows))

    def insert_returning_ids(self, table: Table, rows: Sequence[Row]) -> list[int]:
        ids = insert_returning_ids(self.conn, table, rows)
        self.tally(table, len(ids))
        return ids

    def insert_keyed_rows(self, table: Table, rows: Sequence[Row], *, key: str) -> list[int]:
        ids = insert_keyed_rows(self.conn, table, rows, key=key)
        self.tally(table, len(ids))
        return ids

    def tally(self, table: Table, count: int) -> None:
        """Count rows written to ``table`` by other means (a helper that owns its insert)."""
        self.counts[table.name] = self.counts.get(table.name, 0) + count
