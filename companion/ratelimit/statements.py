"""The SQL of a lease: units added to a bucket's counter of every window of the policy.

Each counter row is (bucket, window seconds): the upsert resets it when a new window began and
adds the units only where they still fit under that window's limit, returning the counts of the
windows that took them. Rows are always written in the same order (bucket, then window length),
so two workers never wait on each other crosswise. Plain SQL that PostgreSQL and SQLite (3.35+)
both read, except where a docstring says PostgreSQL's; the policy's lengths and limits are
integers.
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import TextClause, text

from companion.ratelimit.windows import Window

TABLE = "rate_limit_counts"


def _ordered(windows: Sequence[Window]) -> list[Window]:
    return sorted(windows, key=lambda w: w.seconds)


def _upsert_tail(windows: Sequence[Window]) -> str:
    """What the upsert does with a row already there, and what it returns."""
    limits = " ".join(f"WHEN {int(w.seconds)} THEN {int(w.limit)}" for w in _ordered(windows))
    return (
        "ON CONFLICT (bucket, window_seconds) DO UPDATE SET "
        f"count = CASE WHEN {TABLE}.window_index = excluded.window_index "
        f"THEN {TABLE}.count + excluded.count ELSE excluded.count END, "
        "window_index = excluded.window_index "
        f"WHERE {TABLE}.window_index <> excluded.window_index "
        f"OR {TABLE}.count + excluded.count <= CASE {TABLE}.window_seconds {limits} END "
    )


def lease_statement(windows: Sequence[Window]) -> TextClause:
    """The upsert that leases ``:units`` of ``:bucket`` in every window (the windows'
    ``:index_<seconds>``); it returns (window seconds, count) for each window that took them."""
    rows = ", ".join(
        f"(:bucket, {int(w.seconds)}, :index_{int(w.seconds)}, :units)" for w in _ordered(windows)
    )
    return text(
        f"INSERT INTO {TABLE} (bucket, window_seconds, window_index, count) VALUES {rows} "
        f"{_upsert_tail(windows)}RETURNING window_seconds, count"
    )


def lease_each_statement(windows: Sequence[Window]) -> TextClause:
    """``lease_statement`` for each of the buckets ``:buckets`` (an array) at once, each its
    ``:units`` (an array beside it); it returns (bucket, window seconds, count) for each window
    that took them. PostgreSQL's."""
    spans = ", ".join(f"({int(w.seconds)}, :index_{int(w.seconds)})" for w in _ordered(windows))
    return text(
        f"INSERT INTO {TABLE} (bucket, window_seconds, window_index, count) "
        "SELECT b.bucket, w.seconds, w.index, b.units "
        "FROM unnest(CAST(:buckets AS TEXT[]), CAST(:units AS INTEGER[])) AS b(bucket, units) "
        f"CROSS JOIN (VALUES {spans}) AS w(seconds, index) "
        "ORDER BY b.bucket, w.seconds "
        f"{_upsert_tail(windows)}RETURNING bucket, window_seconds, count"
    )


def give_back_statement(windows: Sequence[Window]) -> TextClause:
    """Takes ``:units`` back from the windows ``:taken`` (window seconds) of ``:bucket``, where
    they still are the windows ``:index_<seconds>``: a lease that not every window took.
    PostgreSQL's (``:taken`` is an array); the lease link is its only user."""
    indexes = " ".join(f"WHEN {int(w.seconds)} THEN :index_{int(w.seconds)}" for w in windows)
    return text(
        f"UPDATE {TABLE} SET count = count - :units "
        "WHERE bucket = :bucket AND window_seconds = ANY(:taken) "
        f"AND window_index = CASE window_seconds {indexes} END"
    )
