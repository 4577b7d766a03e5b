"""Keyset cursors of the form ``<sort key>|<id>``: opaque to clients, stable under writes.

The sort key is usually a timestamp in wire form (so a cursor looks like
``2026-11-20T03:04:05|42``) but may be a number for price sorts. Clients send it back verbatim.
"""

from __future__ import annotations

from companion.problems import unprocessable


def encode_cursor(sort_key: str, row_id: int) -> str:
    return f"{sort_key}|{row_id}"


def decode_cursor(cursor: str) -> tuple[str, int]:
    """Split a cursor into (sort key, id); a malformed one is a 422 naming `cursor`."""
    key, sep, raw_id = cursor.rpartition("|")
    if not sep or not (raw_id.isascii() and raw_id.isdigit()) or len(raw_id) > 18:
        raise unprocessable("cursor", "not a cursor returned by this API")
    return key, int(raw_id)


def clamp_limit(limit: int | None, *, default: int, maximum: int) -> int:
    """The page size: the default when absent, at most ``maximum`` (larger values are clamped)."""
    if limit is None:
        return default
    if limit < 1:
        raise unprocessable("limit", "must be at least 1")
    return min(limit, maximum)
