"""The admin API's OpenAPI document, apart from the public API's (which never lists it)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from fastapi.openapi.utils import get_openapi

#: Where the document is kept in the repository (a test checks it against the running app).
DOCUMENT = "docs/admin-openapi.json"


_made: dict[str, dict[str, Any]] = {}


def _prefixed(router: APIRouter, prefix: str) -> APIRouter:
    """The routes as the app serves them, under ``prefix``."""
    holder = APIRouter()
    holder.include_router(router, prefix=prefix)
    return holder


def admin_openapi(router: APIRouter, prefix: str) -> dict[str, Any]:
    """Made once per prefix (routers are not hashable: no functools.cache)."""
    if prefix in _made:
        return _made[prefix]
    schema = get_openapi(
        title="Storefront admin API (companion extension)",
        version="1",
        description=(
            "The merchant's API: secret keys only (Authorization: Bearer sk_live_...), each "
            "route behind one permission. Each key has its own rate limit, the public API's "
            "policy: every answer carries RateLimit-* headers, and past it the answer is 429 "
            "rate_limited with Retry-After. Errors are problem JSON (RFC 9457). See "
            "docs/admin-api.md."
        ),
        routes=_prefixed(router, prefix).routes,
    )
    schema["components"].setdefault("securitySchemes", {})["secretKey"] = {
        "type": "http",
        "scheme": "bearer",
        "description": "A secret key of the store (sk_live_...)",
    }
    schema["security"] = [{"secretKey": []}]
    _made[prefix] = schema
    return schema
