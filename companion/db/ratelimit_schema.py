"""The shared rate-limit counters: one row per bucket and window length.

A row holds the count of the window it last saw (``window_index``); the first request of a new
window resets it, so the table never grows beyond two rows per key or store. Every worker
process counts here, so a limit holds across workers (see ``companion.ratelimit.database``).
"""

from __future__ import annotations

from sqlalchemy import BigInteger, Column, Integer, String, Table

from companion.db.schema import metadata

rate_limit_counts = Table(
    "rate_limit_counts",
    metadata,
    Column("bucket", String(100), primary_key=True),  # "key:<id>" or "store:<id>"
    Column("window_seconds", Integer, primary_key=True),
    Column("window_index", BigInteger, nullable=False),  # epoch seconds // window_seconds
    Column("count", Integer, nullable=False),
)
