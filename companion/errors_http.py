"""Every 4xx/5xx answer as RFC 9457 problem JSON: the exception handlers and the crash barrier.

``install_error_handling(app)`` registers handlers for ``Problem``, a service's ``Refused``
(``companion.refusals``), Starlette's HTTPException
(unknown routes: 404, wrong method: 405, unreadable bodies: 400) and request validation (422 with
``errors: [{field, message}]``). ``CrashBarrier`` (added by ``create_app``) turns any unexpected
exception into a 500 problem without a traceback, and a database that cannot be reached or is
too busy to answer into a 503 with ``Retry-After`` (code ``database_unavailable``): a restart of
the database is a pause to wait out, not a fault of the request. It is a middleware rather than
an ``Exception`` handler because Starlette re-raises after calling such a handler, which an
in-process client would see.
"""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Sequence
from http import HTTPStatus
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from sqlalchemy.exc import DBAPIError, OperationalError
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.responses import JSONResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from companion.problems import (
    PROBLEM_CONTENT_TYPE,
    FieldError,
    Problem,
    problem_of,
    service_unavailable,
)
from companion.refusals import Refused

LOG = "companion.errors"
MAX_DETAIL = 500
#: Seconds a client is asked to wait when the database cannot answer.
DATABASE_RETRY_AFTER = 5


def problem_response(problem: Problem, headers: dict[str, str] | None = None) -> JSONResponse:
    all_headers = {**problem.headers, **(headers or {})}
    return JSONResponse(
        problem.body(),
        status_code=problem.status,
        headers=all_headers,
        media_type=PROBLEM_CONTENT_TYPE,
    )


def http_problem(status: int, method: str, path: str, detail: Any) -> Problem:
    """The problem for an HTTPException raised by the framework (or by a route)."""
    if status == 404:
        return Problem(404, "not_found", "Not found", f"no resource at {method} {path}")
    if status == 405:
        return Problem(
            405, "method_not_allowed", "Method not allowed", f"{method} is not allowed on {path}"
        )
    try:
        phrase = HTTPStatus(status).phrase
    except ValueError:
        phrase = "Error"
    code = phrase.lower().replace(" ", "_").replace("-", "_")
    text = detail if isinstance(detail, str) and detail else phrase
    return Problem(status, code, phrase, text[:MAX_DETAIL])


def field_name(loc: Sequence[Any]) -> str:
    """``("query", "limit")`` -> ``limit``; ``("body", "items", 0, "qty")`` -> ``items.0.qty``."""
    parts = [str(p) for p in loc]
    if len(parts) > 1 and parts[0] in {"query", "path", "header", "cookie", "body"}:
        parts = parts[1:]
    return ".".join(parts) or "request"


def validation_problem(errors: Sequence[Any]) -> Problem:
    field_errors = tuple(
        FieldError(field_name(e.get("loc", ())), str(e.get("msg", "is invalid")))
        for e in errors
        if isinstance(e, dict)
    ) or (FieldError("request", "is invalid"),)
    detail = "; ".join(f"{e.field}: {e.message}" for e in field_errors)
    return Problem(422, "validation_error", "Invalid request", detail[:MAX_DETAIL], field_errors)


async def _on_problem(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, Problem)
    return problem_response(exc)


async def _on_refusal(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, Refused)
    return problem_response(problem_of(exc))


async def _on_http_exception(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, StarletteHTTPException)
    problem = http_problem(exc.status_code, request.method, request.url.path, exc.detail)
    return problem_response(problem, dict(exc.headers or {}))


async def _on_validation_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, RequestValidationError)
    return problem_response(validation_problem(exc.errors()))


def install_error_handling(app: FastAPI) -> None:
    app.add_exception_handler(Problem, _on_problem)
    app.add_exception_handler(Refused, _on_refusal)  # a service's refusal (companion.refusals)
    app.add_exception_handler(StarletteHTTPException, _on_http_exception)
    app.add_exception_handler(RequestValidationError, _on_validation_error)


def internal_error() -> Problem:
    return Problem(
        500, "internal_error", "Internal server error", "the server failed to answer; try again"
    )


def database_unavailable() -> Problem:
    wait = DATABASE_RETRY_AFTER
    return service_unavailable(
        "database_unavailable",
        wait,
        f"the database could not be reached or was too busy to answer; retry after {wait} s",
    )


#: SQLite's operational errors that are the database's state (its driver says OperationalError
#: for a syntax error or a missing table too: those stay a 500).
_SQLITE_UNAVAILABLE = (
    "database is locked",
    "database table is locked",
    "unable to open database",
    "disk i/o error",
)


def database_unreachable(exc: BaseException) -> bool:
    """An error that invalidated its connection, or the driver's operational errors
    (PostgreSQL: a connection refused or lost, a server shutting down, a statement timeout, a
    deadlock rolled back; SQLite: a lock held too long, a file it cannot open): the database's
    state, not the request's fault."""
    if isinstance(exc, DBAPIError) and exc.connection_invalidated:
        return True
    if not isinstance(exc, OperationalError):
        return False
    if isinstance(exc.orig, sqlite3.OperationalError):
        return str(exc.orig).lower().startswith(_SQLITE_UNAVAILABLE)
    # PostgreSQL's class 54 (a statement too complex, a row too large) is the request's.
    return not str(getattr(exc.orig, "sqlstate", None) or "").startswith("54")


class CrashBarrier:
    """Answers a 500 problem (logged, no traceback on the wire) for any unexpected exception,
    a 503 with Retry-After when the database could not answer."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def tracking_send(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, receive, tracking_send)
        except Exception as exc:
            unreachable = database_unreachable(exc)
            if unreachable:  # one line a request while it lasts, not a traceback each
                reason = str(getattr(exc, "orig", None) or exc).strip().partition("\n")[0]
                logging.getLogger(LOG).error(
                    "database unavailable on %s: %s", scope.get("path"), reason
                )
            else:
                logging.getLogger(LOG).exception("unhandled error on %s", scope.get("path"))
            if started:
                raise  # the answer is half sent: only the server can end the connection
            problem = database_unavailable() if unreachable else internal_error()
            await problem_response(problem)(scope, receive, send)
