"""What the OpenAPI document says beyond the routes: the description, the key, the error body."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi
from fastapi.security import APIKeyHeader
from pydantic import BaseModel, Field

from companion.problems import PROBLEM_CONTENT_TYPE
from companion.settings import CompanionSettings

OPENAPI_PATH = "/public/v1/openapi.json"
DOCS_PATH = "/public/v1/docs"


def description(settings: CompanionSettings) -> str:
    """The document's introduction, with the limits this app was built with."""
    return f"""\
The storefront public API, as served by the companion.

**Store.** `X-Service-Key: pk_live_...` selects the store. An unknown or revoked key is answered
401 at once. Without a key the store is the one linked to the request's host name (port ignored);
when the database holds exactly one store, unkeyed requests from any host go to it.

**Lists.** Every list answers `{{items, next_cursor, has_more}}`. Send `next_cursor` back verbatim
as `cursor`. `limit` defaults to {settings.default_limit} and larger values are clamped to
{settings.max_limit} (collections: {settings.collections_max_limit}). Endpoints without a `cursor`
parameter answer one page: `has_more` says whether rows were left out, `next_cursor` is null.

**Rate limits.** {settings.rate_per_minute} requests per 60 s and {settings.rate_per_hour} per
hour, per key; all unkeyed requests to a store share one bucket. Windows are fixed and start at
the Unix epoch. Every answer carries `RateLimit-Limit`, `RateLimit-Remaining` and
`RateLimit-Reset` (seconds until the tightest window resets) for the tightest window, and
`RateLimit-Policy` listing every window. Over the limit: 429 with `Retry-After` (seconds) and
`retry_after` in the body.

**Errors.** Every 4xx/5xx is RFC 9457 problem JSON `{{type, title, status, detail, code}}`; 422
adds `errors: [{{field, message}}]`, 429 adds `retry_after`.

**Values.** Timestamps are UTC without a Z. Money is integer VND. A null `url` means no page.
"""


def service_key_scheme() -> APIKeyHeader:
    """The key header as a security scheme (optional: the Host header may select the store)."""
    return APIKeyHeader(name="X-Service-Key", auto_error=False, scheme_name="ServiceKey")


class FieldErrorBody(BaseModel):
    field: str
    message: str


class ProblemBody(BaseModel):
    type: str
    title: str
    status: int
    detail: str
    code: str
    errors: list[FieldErrorBody] | None = Field(default=None, description="Only on 422")
    retry_after: int | None = Field(default=None, description="Only on 429: seconds to wait")


def _problem(description: str) -> dict[str, Any]:
    # FastAPI files ``model`` under application/json; ``problem_json_openapi`` moves it.
    return {"description": description, "model": ProblemBody}


PROBLEM_RESPONSES: dict[int | str, dict[str, Any]] = {
    401: _problem("Unknown or revoked key, or no key and no store for the host"),
    404: _problem("Nothing found"),
    422: _problem("Invalid parameters"),
    429: _problem("Rate limit reached"),
}


def as_problem_json(doc: dict[str, Any]) -> dict[str, Any]:
    """Error responses documented under application/problem+json, the type they are sent as."""
    ref = "#/components/schemas/ProblemBody"
    for operation in (op for item in doc.get("paths", {}).values() for op in item.values()):
        if not isinstance(operation, dict):
            continue
        for response in operation.get("responses", {}).values():
            content = response.get("content", {})
            if content.get("application/json", {}).get("schema", {}).get("$ref") == ref:
                content[PROBLEM_CONTENT_TYPE] = content.pop("application/json")
    return doc


def install_openapi(app: FastAPI) -> None:
    """Serve the generated document with problem responses under their real media type."""

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            doc = get_openapi(
                title=app.title,
                version=app.version,
                description=app.description,
                routes=app.routes,
            )
            app.openapi_schema = as_problem_json(doc)
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]
