"""Read answers sent as plain JSON, built field by field.

A route that returns a pydantic model has FastAPI validate it against the response model once
more and serialise it (in a worker thread, for a plain function): as much work again as building
it. The hot read routes build their bodies as dicts whose fields are exactly the response
model's, in its order, and return them as JSON; their decorators still name the response model,
which documents the shape (the OpenAPI document does not change) and which tests check the
answers against. The bytes are the same as pydantic's (compact, UTF-8 unescaped), so entity tags
do not move.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from starlette.responses import JSONResponse


def answer(body: Mapping[str, Any]) -> JSONResponse:
    return JSONResponse(body)


def page(
    items: Sequence[Mapping[str, Any]], next_cursor: str | None, has_more: bool
) -> JSONResponse:
    """The list envelope ``{items, next_cursor, has_more}``."""
    return JSONResponse({"items": items, "next_cursor": next_cursor, "has_more": has_more})
