"""CSRF protection of the cookie-authenticated session endpoints.

A write (any method but GET and HEAD) is accepted only when the browser says it comes from this
same origin (the ``Origin`` header's host is the request's ``Host``) and its body is JSON. A
cross-site form can neither fake ``Origin`` nor send ``application/json`` without a CORS
preflight, which this server never grants; ``SameSite=Lax`` cookies add a third wall.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from starlette.requests import Request

SAFE_METHODS = frozenset({"GET", "HEAD"})


def write_refusal(request: Request) -> tuple[int, str, str] | None:
    """(status, code, detail) when the write must be refused; None when it may go on."""
    if request.method in SAFE_METHODS:
        return None
    origin = request.headers.get("origin")
    host = request.headers.get("host", "")
    if not origin or origin == "null" or urlsplit(origin).netloc.lower() != host.lower():
        return 403, "cross_origin", "writes to the session must come from this site's own pages"
    media_type = request.headers.get("content-type", "").split(";", 1)[0].strip().lower()
    if media_type != "application/json":
        return 415, "json_required", "send the body as application/json"
    return None
