"""Refuses request lines no database can store: NUL characters in the path or query.

PostgreSQL text cannot hold NUL, so such a value would fail deep inside a query (a 500) instead
of being refused up front (a 422 naming where it was).
"""

from __future__ import annotations

from starlette.types import ASGIApp, Receive, Scope, Send

from companion.errors_http import problem_response
from companion.problems import unprocessable


class InputGuard:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        where = nul_in(scope) if scope["type"] == "http" else None
        if where is not None:
            problem = unprocessable(where, "must not contain NUL characters")
            await problem_response(problem)(scope, receive, send)
            return
        await self.app(scope, receive, send)


def nul_in(scope: Scope) -> str | None:
    """Where an HTTP request line holds a NUL character (``path`` or ``query``), if it does."""
    if "\x00" in scope.get("path", ""):
        return "path"
    query = scope.get("query_string", b"")
    if b"%00" in query or b"\x00" in query:
        return "query"
    return None
