"""Signing in and out of the back office, and a forgotten password reset by e-mail.

A login claims its attempt under the customers' rules (``customers.throttle``: per client at
the e-mail, per client, per e-mail) before the password is checked, and hashes in the worker's
hashing lane; a refused or throttled login is written to the request log with its reason.
"""

from __future__ import annotations

import secrets
from datetime import timedelta

from fastapi import APIRouter, Request
from starlette.responses import RedirectResponse, Response

from companion.backoffice import audit, resets
from companion.backoffice.sessions import (
    close_session,
    close_sessions_of,
    csrf_token,
    open_session,
)
from companion.backoffice.staff import StaffError, check_password, credentials, normalize_email
from companion.clients import client_address
from companion.customers.login_attempts import claim_attempt, give_back
from companion.customers.passwords import burn_verification, hash_password, verify_password
from companion.customers.throttle import counts_of
from companion.deps import ServicesDep, password_hasher_of
from companion.logging_http import note_refusal
from companion.routes.backoffice.access import (
    LOGIN_COOKIE,
    SESSION_COOKIE,
    AdminRoute,
    Form,
    PostedDesk,
    StoreId,
    check_login_form,
    cookie_options,
)
from companion.routes.backoffice.render import page
from companion.routes.commerce.customer_account import login_limits

router = APIRouter(route_class=AdminRoute)


def login_page(
    request: Request, status: int = 200, error: str = "", email: str = "", minutes: int = 0
) -> Response:
    return with_login_cookie(
        request, "login.html", status, error=error, email=email, minutes=minutes
    )


def with_login_cookie(request: Request, name: str, status: int, **context: object) -> Response:
    """A page whose form is sent before there is a session: its CSRF token is made from a
    cookie of its own, set (or kept) with the page."""
    services = request.app.state.services
    secret = request.cookies.get(LOGIN_COOKIE) or secrets.token_urlsafe(24)
    response = page(
        name,
        status,
        csrf=csrf_token(secret, "login"),
        mail=bool(services.settings.smtp_host),
        **context,
    )
    response.set_cookie(LOGIN_COOKIE, secret, **cookie_options(request))
    return response


@router.get("/login")
def get_login(request: Request) -> Response:
    return login_page(request)


@router.post("/login")
def post_login(request: Request, form: Form, services: ServicesDep, store_id: StoreId) -> Response:
    check_login_form(request, form)
    email, password = normalize_email(form.get("email", "")), form.get("password", "")
    now, limits = services.clock.now(), login_limits(services.settings)
    counts = counts_of(limits, client_address(request.scope), f"staff:{email}")
    refused = claim_attempt(
        services.engine, store_id=store_id, counts=counts, window=limits.window, now=now
    )
    if refused is not None:
        note_refusal(request.scope, f"admin login throttled: {refused.whom}")
        response = login_page(
            request, 429, error="throttled", email=email, minutes=-(-refused.seconds // 60)
        )
        response.headers["Retry-After"] = str(refused.seconds)
        return response
    hasher = password_hasher_of(request)
    with services.engine.begin() as conn:
        found = credentials(conn, store_id=store_id, email=email)
        if found is None:
            burn_verification(hasher, password)
        if found is None or not verify_password(hasher, found[1], password):
            note_refusal(request.scope, "admin login refused: wrong e-mail or password")
            return login_page(request, 401, error="wrong", email=email)
        give_back(conn, store_id=store_id, counts=counts)
        staff = found[0]
        lifetime = timedelta(seconds=services.settings.staff_session_seconds)
        token = open_session(conn, staff=staff, now=now, lifetime=lifetime)
        audit.record(conn, staff=staff, action="login", now=now)
    response = RedirectResponse("/admin", status_code=303)
    response.set_cookie(
        SESSION_COOKIE, token, max_age=int(lifetime.total_seconds()), **cookie_options(request)
    )
    return response


@router.post("/logout")
def post_logout(request: Request, desk: PostedDesk, services: ServicesDep) -> Response:
    with services.engine.begin() as conn:
        close_session(conn, token=request.cookies.get(SESSION_COOKIE, ""))
        audit.record(conn, staff=desk.staff, action="logout", now=services.clock.now())
    response = RedirectResponse("/admin/login", status_code=303)
    response.delete_cookie(SESSION_COOKIE, **cookie_options(request))
    return response


@router.get("/password/forgot")
def get_forgot(request: Request) -> Response:
    return password_page(request, "forgot")


@router.post("/password/forgot")
def post_forgot(request: Request, form: Form, services: ServicesDep, store_id: StoreId) -> Response:
    """The same answer whether the e-mail has an account or not."""
    check_login_form(request, form)
    settings = services.settings
    if settings.smtp_host:
        resets.send_reset(
            services.engine,
            settings,
            store_id=store_id,
            email=form.get("email", ""),
            now=services.clock.now(),
            link_base=f"{str(request.base_url).rstrip('/')}/admin/password/new",
        )
    return password_page(request, "sent")


@router.get("/password/new")
def get_new_password(request: Request, token: str = "") -> Response:
    return password_page(request, "new", token=token[:100])


@router.post("/password/new")
def post_new_password(
    request: Request, form: Form, services: ServicesDep, store_id: StoreId
) -> Response:
    check_login_form(request, form)
    token, password = form.get("token", ""), form.get("password", "")
    try:
        check_password(password)
    except StaffError:
        return password_page(request, "new", 422, token=token, error="short")
    password_hash = hash_password(password_hasher_of(request), password)
    now = services.clock.now()
    with services.engine.begin() as conn:
        staff = resets.use_reset(conn, store_id=store_id, token=token, now=now)
        if staff is None:
            note_refusal(request.scope, "admin password reset refused: unknown or used token")
            return password_page(request, "new", 400, token="", error="token")
        resets.set_password(conn, staff=staff, password_hash=password_hash, now=now)
        close_sessions_of(conn, store_id=store_id, staff_id=staff.id)
        audit.record(conn, staff=staff, action="password_reset", now=now)
    return password_page(request, "done")


def password_page(
    request: Request, step: str, status: int = 200, token: str = "", error: str = ""
) -> Response:
    return with_login_cookie(request, "password.html", status, step=step, token=token, error=error)
