"""What invalidates a cached catalogue answer in this process: a committed write to a catalogue
table, seen by SQLAlchemy on any engine of the process.

``catalogue`` moves after such a write's transaction ends (when its connection goes back to
the pool, so before the writing request answers): an answer read at an older value is never
served again. It moves after the commit, not before: a reader that read the old rows while the
write was under way labelled its answer with the old value, which is stale from then on.

Writes by other processes reach this one through ``companion.answer_cache.feeds``.
"""

from __future__ import annotations

import re
from typing import Any

from sqlalchemy import Engine, Table, event
from sqlalchemy.pool import Pool

from companion.db import schema
from companion.keys.lifecycle import Generation

#: Moves whenever a catalogue table may have changed.
catalogue = Generation()

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
#: Set on a pooled connection that wrote to a catalogue table; the version moves at check-in,
#: after its transaction ended (a connection that commits and goes on moves it then too).
_DIRTY = "answer_cache_dirty"


def writes_catalogue(statement: str) -> bool:
    """Whether a SQL statement may change a catalogue table (a SELECT never does)."""
    if statement.lstrip()[:6].upper() == "SELECT":
        return False
    for match in _WRITE.finditer(statement):
        table = match.group(1)
        if table is None or table.lower() in CATALOGUE_TABLES:
            return True
    return False


def _after_execute(conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
    if writes_catalogue(statement):
        conn.info[_DIRTY] = True  # the pooled connection's own dict: outlives this checkout


def _on_checkin(_dbapi_conn: Any, record: Any) -> None:
    """The connection's transaction is over (committed or rolled back): move the version."""
    if record is not None and record.info.pop(_DIRTY, False):
        catalogue.bump()


_installed = False


def watch_writes() -> None:
    """Listen on every engine of the process (idempotent)."""
    global _installed
    if _installed:
        return
    event.listen(Engine, "after_cursor_execute", _after_execute)
    event.listen(Pool, "checkin", _on_checkin)
    _installed = True
