"""Parameters shared by the read endpoints, declared once so OpenAPI documents them alike.

Ids are bounded to what an integer column holds, so a huge or negative id is a 422 rather than
a database overflow.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Path, Query

MAX_ID = 2**31 - 1

EntityId = Annotated[int, Path(ge=1, le=MAX_ID, description="Numeric id")]
Slug = Annotated[str, Path(max_length=300, description="The record's slug")]
Limit = Annotated[
    int | None,
    Query(ge=1, description="Page size; larger values are clamped to the maximum"),
]
Cursor = Annotated[
    str | None,
    Query(max_length=200, description="next_cursor of the previous page, sent back verbatim"),
]
Ref = Annotated[str | None, Query(max_length=300, description="An id or a slug")]
