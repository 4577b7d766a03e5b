"""What invalidates a cached catalogue answer in this process: a committed write to a catalogue
table, seen by SQLAlchemy on any engine of the process.

Two kinds of change:
- ``catalogue`` moves on any write to a catalogue table: every cached answer is dropped;
- ``stock`` marks the products whose stock alone changed (an order taking units, a
  cancellation giving them back): only answers showing those products' stock are dropped (a
  card or a product page shows only whether it is in stock, so only when a variant ran out or
  came back; the variants' list shows the counts). A write is
  a stock change when it is ``UPDATE variants SET stock = ...`` and nothing else, and the code
  that made it named the products (``stock_changed``); one it did not name counts as a stock
  change of every product.
Both move after the write's transaction ends (when its connection goes back to the pool, so
before the writing request answers). After the commit, not before: a reader that read the old
rows while the write was under way labelled its answer with the old value, which is stale from
then on.

Writes by other processes reach this one through ``companion.answer_cache.feeds``.

A mark is the time it was made (``time.monotonic``, one clock for every process of a host), and
an answer is checked against the marks made since its reading began: the same check for an
answer this worker read and for one another worker read (``companion.answer_cache.shared``).
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Iterable
from typing import Any

from sqlalchemy import Connection, Engine, Table, event
from sqlalchemy.pool import Pool

from companion.db import schema
from companion.pricing import unit_in_stock

# Marks come from request threads, the event loop and a feed's reconnecting thread at once.
_marking = threading.Lock()


class Version:
    """A number that only moves forward; read ``value``, move it with ``bump``."""

    def __init__(self) -> None:
        self.value = 0
        self.at = 0.0  # when it last moved (time.monotonic)

    def bump(self) -> None:
        with _marking:
            self.at = time.monotonic()
            self.value += 1


#: Moves whenever a catalogue table other than a variant's stock may have changed.
catalogue = Version()


class StockMarks:
    """When each product's stock last changed (``time.monotonic``): its counts (what
    ``/products/{id}/variants`` shows), and its in-stock flag (what a card or a product page
    shows), which moves only when a variant runs out or comes back."""

    def __init__(self) -> None:
        self.any_at = 0.0  # the last change of any product's stock
        self.every_at = 0.0  # the last change of every product's stock (``mark_all``)
        self._counts_at: dict[int, float] = {}
        self._flags_at: dict[int, float] = {}

    def mark(self, counts: Iterable[int], flags: Iterable[int] = ()) -> None:
        """The stock of ``counts`` changed; of those, ``flags`` may be in or out of stock now."""
        with _marking:
            at = time.monotonic()
            for product_id in counts:
                self._counts_at[product_id] = at
            for product_id in flags:
                self._flags_at[product_id] = at
            self.any_at = at  # last: a reader that sees it sees the products too

    def mark_all(self) -> None:
        with _marking:
            self.any_at = self.every_at = time.monotonic()

    def unchanged_after(
        self, at: float, product_ids: frozenset[int] | None, *, counts: bool = False
    ) -> bool:
        """No mark made at ``at`` (``time.monotonic``) or later of these products' in-stock
        flags (``counts``: of their counts), or of any product's (``product_ids`` None)."""
        if self.any_at < at:
            return True
        if product_ids is None or self.every_at >= at:
            return False
        changed = self._counts_at if counts else self._flags_at
        return all(changed.get(p, 0.0) < at for p in product_ids)


stock = StockMarks()

#: The tables the read routes show (companion.db.schema), but the keys: a key's store is
#: resolved before the cache (companion.tenancy), and its changes move ``revocations``.
CATALOGUE_TABLES = frozenset(
    value.name
    for value in vars(schema).values()
    if isinstance(value, Table) and value.name != "api_keys"
)

#: The target of a write statement; DDL counts as a write to every table.
_WRITE = re.compile(
    r"\b(?:INSERT\s+(?:OR\s+\w+\s+)?INTO|REPLACE\s+INTO|UPDATE|DELETE\s+FROM)\s+[\"`]?(\w+)"
    r"|\b(CREATE|ALTER|DROP|TRUNCATE)\b",
    re.IGNORECASE,
)
#: ``UPDATE variants SET stock=<one expression> WHERE|RETURNING``: a change of stock alone.
_STOCK_ONLY = re.compile(
    r"\s*UPDATE\s+\"?variants\"?\s+SET\s+\"?stock\"?\s*=[^,]*?\s(?:WHERE|RETURNING)\b",
    re.IGNORECASE | re.DOTALL,
)
# Kept on the pooled connection's own dict (it outlives one checkout), read at check-in.
_DIRTY = "answer_cache_dirty"  # wrote to a catalogue table: everything changes
_STOCK_WRITES = "answer_cache_stock_writes"  # stock-only statements run
_STOCK_NAMED = "answer_cache_stock_named"  # of which the code named the products
_STOCK_PRODUCTS = "answer_cache_stock_products"


def classify(statement: str) -> str | None:
    """ "stock", "catalogue" or None (a read, or a write to another table)."""
    if statement.lstrip()[:6].upper() == "SELECT":
        return None
    if _STOCK_ONLY.match(statement) and ";" not in statement:
        return "stock"
    for match in _WRITE.finditer(statement):
        table = match.group(1)
        if table is None or table.lower() in CATALOGUE_TABLES:
            return "catalogue"
    return None


def stock_changed(conn: Connection, changes: Iterable[tuple[int, int | None, int]]) -> None:
    """Name what the last statement on ``conn`` did to stock: ``(product id, the variant's
    stock now, units added)`` per variant it changed (none: it changed none)."""
    info = conn.info
    info[_STOCK_NAMED] = info.get(_STOCK_NAMED, 0) + 1
    counts, flags = info.setdefault(_STOCK_PRODUCTS, (set(), set()))
    for product_id, now, added in changes:
        counts.add(product_id)
        before = None if now is None else now - added
        if unit_in_stock(before) != unit_in_stock(now):
            flags.add(product_id)


def _after_execute(conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
    kind = classify(statement)
    if kind == "catalogue":
        conn.info[_DIRTY] = True
    elif kind == "stock":
        conn.info[_STOCK_WRITES] = conn.info.get(_STOCK_WRITES, 0) + 1


def _on_checkin(_dbapi_conn: Any, record: Any) -> None:
    """The connection's transaction is over (committed or rolled back): mark what changed."""
    if record is None:
        return
    info = record.info
    dirty = info.pop(_DIRTY, False)
    writes = info.pop(_STOCK_WRITES, 0)
    named = info.pop(_STOCK_NAMED, 0)
    counts, flags = info.pop(_STOCK_PRODUCTS, ((), ()))
    if dirty:
        catalogue.bump()
    elif writes and named == writes:
        stock.mark(counts, flags)
    elif writes:
        stock.mark_all()


_installed = False


def watch_writes() -> None:
    """Listen on every engine of the process (idempotent)."""
    global _installed
    if _installed:
        return
    event.listen(Engine, "after_cursor_execute", _after_execute)
    event.listen(Pool, "checkin", _on_checkin)
    _installed = True
