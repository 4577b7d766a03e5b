"""RFC 9457 problem details: the body of every 4xx/5xx answer of the companion.

Routes and middleware raise ``Problem`` (or use the builders below); services raise their own
refusals (``companion.refusals``), which ``problem_of`` answers here. ``create_app`` registers
the exception handlers that turn them, FastAPI's validation errors and anything unexpected into
``application/problem+json``. Never a traceback, never a 500 for bad input.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from companion.refusals import Conflict, Invalid, NotFound, NotSignedIn, NotYours, Refused

PROBLEM_CONTENT_TYPE = "application/problem+json"


@dataclass(frozen=True, slots=True)
class FieldError:
    field: str
    message: str


@dataclass(slots=True)
class Problem(Exception):
    status: int
    code: str
    title: str
    detail: str = ""
    errors: tuple[FieldError, ...] = ()
    headers: dict[str, str] = field(default_factory=dict)
    extra: dict[str, Any] = field(default_factory=dict)

    def body(self) -> dict[str, Any]:
        body: dict[str, Any] = {
            "type": f"https://errors.storefront.dev/{self.code}",
            "title": self.title,
            "status": self.status,
            "detail": self.detail or self.title,
            "code": self.code,
        }
        if self.errors:
            body["errors"] = [{"field": e.field, "message": e.message} for e in self.errors]
        body.update(self.extra)
        return body


def not_found(what: str) -> Problem:
    return Problem(404, "not_found", "Not found", f"{what} was not found")


def unprocessable(field_name: str, message: str) -> Problem:
    return Problem(
        422,
        "validation_error",
        "Invalid request",
        f"{field_name}: {message}",
        errors=(FieldError(field_name, message),),
    )


def conflict(code: str, detail: str) -> Problem:
    return Problem(409, code, "Conflict", detail)


def unauthorized(code: str, detail: str) -> Problem:
    return Problem(401, code, "Unauthorized", detail)


def forbidden(code: str, detail: str) -> Problem:
    return Problem(403, code, "Forbidden", detail)


def service_unavailable(code: str, retry_after: int, detail: str) -> Problem:
    """503: nothing of the request was done for the server's sake; send it again after a wait."""
    return Problem(
        503,
        code,
        "Service unavailable",
        detail,
        headers={"Retry-After": str(retry_after)},
        extra={"retry_after": retry_after},
    )


def too_many_requests(retry_after: int, detail: str) -> Problem:
    return Problem(
        429,
        "rate_limited",
        "Too many requests",
        detail,
        headers={"Retry-After": str(retry_after)},
        extra={"retry_after": retry_after},
    )


def problem_of(refused: Refused) -> Problem:
    """The answer to a service's refusal."""
    if isinstance(refused, Invalid):
        return unprocessable(refused.field, refused.message)
    if isinstance(refused, NotFound):
        return Problem(404, refused.code, "Not found", refused.detail, extra=refused.extra)
    if isinstance(refused, NotSignedIn):
        return Problem(
            401,
            refused.code,
            "Unauthorized",
            refused.detail,
            headers={"WWW-Authenticate": "Bearer"},
            extra=refused.extra,
        )
    if isinstance(refused, NotYours):
        return Problem(403, refused.code, "Forbidden", refused.detail, extra=refused.extra)
    if isinstance(refused, Conflict):
        return Problem(409, refused.code, "Conflict", refused.detail, extra=refused.extra)
    return Problem(422, refused.code, "Invalid request", refused.detail, extra=refused.extra)
