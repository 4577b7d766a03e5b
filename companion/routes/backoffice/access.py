"""Who may use a back-office page: the store (by host), the signed-in staff, the form's CSRF token.

Every page's handler runs inside ``AdminRoute``: a missing session sends the browser to the login
page (nothing done), a role without the power gets 403, a form whose token does not match gets
403 and a line in the request log with the reason. The session cookie is httpOnly, SameSite
Strict, limited to /admin, and Secure when the request came over https.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from typing import Annotated, Any
from urllib.parse import parse_qsl

from fastapi import Depends, Request
from fastapi.routing import APIRoute
from starlette.responses import RedirectResponse, Response

from companion.backoffice.sessions import csrf_matches, csrf_token, session_staff
from companion.backoffice.staff import Power, Staff, may
from companion.deps import ServicesDep
from companion.logging_http import note_refusal
from companion.routes.backoffice.render import page, secured
from companion.tenancy import host_name, tenant_for_host

SESSION_COOKIE = "sf_admin"
LOGIN_COOKIE = "sf_admin_login"  # the login and reset forms' CSRF secret, before a session
COOKIE_PATH = "/admin"
FORM_TYPE = "application/x-www-form-urlencoded"
#: Form fields read per request, and characters per field (a form is a few short fields).
MAX_FIELDS, MAX_FIELD_CHARS = 400, 10_000


class SignInNeeded(Exception):
    """No valid session: the browser is sent to the login page."""


class NotAllowed(Exception):
    """The staff member's role does not have the page's power."""


class FormRefused(Exception):
    """A form that is not answered (a wrong CSRF token, an unreadable body): the reason logged."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class PageMissing(Exception):
    """No such order or product in this store."""


class AdminRoute(APIRoute):
    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()

        async def run(request: Request) -> Response:
            try:
                response = await handler(request)
            except SignInNeeded:
                if request.method != "GET":
                    note_refusal(request.scope, "admin: not signed in")
                response = RedirectResponse("/admin/login", status_code=303)
            except NotAllowed:
                note_refusal(request.scope, "admin: the role does not allow this")
                response = page("refused.html", 403, why="role")
            except FormRefused as exc:
                note_refusal(request.scope, f"admin: {exc.reason}")
                response = page("refused.html", 403, why="form")
            except PageMissing:
                response = page("refused.html", 404, why="missing")
            return secured(response)

        return run


def store_of(request: Request, services: ServicesDep) -> int:
    """The store of the request's host (the only store when the host names none)."""
    return tenant_for_host(services.engine, host_name(request.headers.get("host", ""))).store_id


StoreId = Annotated[int, Depends(store_of)]


@dataclass(frozen=True, slots=True)
class Desk:
    """A signed-in staff member at their browser: the account, and their forms' token."""

    staff: Staff
    csrf: str

    def may(self, power: Power) -> bool:
        return may(self.staff.role, power)


def desk_of(request: Request, services: ServicesDep, store_id: StoreId) -> Desk:
    token = request.cookies.get(SESSION_COOKIE, "")
    with services.engine.connect() as conn:
        staff = session_staff(conn, store_id=store_id, token=token, now=services.clock.now())
    if staff is None:
        raise SignInNeeded
    return Desk(staff, csrf_token(token))


DeskDep = Annotated[Desk, Depends(desk_of)]


async def form_of(request: Request) -> dict[str, str]:
    """The fields of an url-encoded form (the first of each name)."""
    if request.headers.get("content-type", "").split(";")[0].strip() != FORM_TYPE:
        raise FormRefused("a form that is not url-encoded")
    body = (await request.body()).decode("utf-8", "replace")
    fields: dict[str, str] = {}
    for name, value in parse_qsl(body, keep_blank_values=True, max_num_fields=MAX_FIELDS):
        fields.setdefault(name, value[:MAX_FIELD_CHARS])
    return fields


Form = Annotated[dict[str, str], Depends(form_of)]


def posted_desk(request: Request, desk: DeskDep, form: Form) -> Desk:
    """The desk of a form sent with its session's CSRF token."""
    token = request.cookies.get(SESSION_COOKIE, "")
    if not csrf_matches(token, form.get("csrf", "")):
        raise FormRefused("CSRF token missing or wrong")
    return desk


PostedDesk = Annotated[Desk, Depends(posted_desk)]


def needs(power: Power) -> Callable[..., Desk]:
    def check(desk: DeskDep) -> Desk:
        if not desk.may(power):
            raise NotAllowed
        return desk

    return check


def posted_needs(power: Power) -> Callable[..., Desk]:
    def check(desk: PostedDesk) -> Desk:
        if not desk.may(power):
            raise NotAllowed
        return desk

    return check


def check_login_form(request: Request, form: dict[str, str]) -> None:
    if not csrf_matches(request.cookies.get(LOGIN_COOKIE, ""), form.get("csrf", ""), "login"):
        raise FormRefused("CSRF token missing or wrong (login form)")


def cookie_options(request: Request) -> dict[str, Any]:
    return {
        "httponly": True,
        "secure": request.url.scheme == "https",
        "samesite": "strict",
        "path": COOKIE_PATH,
    }
