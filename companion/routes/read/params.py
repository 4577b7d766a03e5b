"""Parameters shared by the read endpoints, declared once so OpenAPI documents them alike.

Ids are bounded to what an integer column holds, so a huge or negative id is a 422 rather than
a database overflow. References that may be an id or a slug (``category=12`` or
``category=ao-thun``) are parsed by ``parse_ref``.
"""

from __future__ import annotations

import re
from typing import Annotated

from fastapi import Path, Query

MAX_ID = 2**31 - 1
_DIGITS = re.compile(r"[0-9]{1,18}")

EntityId = Annotated[int, Path(ge=1, le=MAX_ID, description="Numeric id")]
Slug = Annotated[str, Path(max_length=300, description="The record's slug")]
Limit = Annotated[
    int | None,
    Query(ge=1, description="Page size; default 20, larger values are clamped to the maximum"),
]
Cursor = Annotated[
    str | None,
    Query(max_length=200, description="next_cursor of the previous page, sent back verbatim"),
]
Ref = Annotated[str | None, Query(max_length=300, description="An id or a slug")]


def parse_ref(value: str) -> int | str | None:
    """An id (digits), else a slug; None for an id no row can have (too large)."""
    value = value.strip()
    if _DIGITS.fullmatch(value):
        number = int(value)
        return number if 1 <= number <= MAX_ID else None
    if value.isdigit():  # non-ASCII digits or more than 18 of them: not an id we issue
        return None
    return value
