"""POST /customer/register, POST /customer/login, GET/PATCH /customer/me,
POST /customer/me/password, GET /customer/me/points."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from fastapi import APIRouter, Request, Response, status
from sqlalchemy import Connection, select

from companion.clients import client_address
from companion.customers.accounts import (
    Customer,
    find_credentials,
    get_customer,
    normalize_email,
    password_hash_of,
    register_customer,
    set_password,
    update_profile,
)
from companion.customers.login_attempts import claim_attempt, give_back
from companion.customers.passwords import burn_verification, verify_password
from companion.customers.signing_key import jwt_secret
from companion.customers.throttle import LoginLimits, counts_of
from companion.customers.tokens import issue_token
from companion.db.commerce_schema import point_entries
from companion.deps import CurrentTenant, Db, Hasher, ServicesDep
from companion.logging_http import note_refusal
from companion.problems import Problem, not_found, unprocessable
from companion.routes.commerce.pages import newest_first, page_of
from companion.routes.customer_auth import CustomerId
from companion.routes.one_hop import OneHopRoute
from companion.routes.read.params import Cursor, Limit
from companion.schemas.commerce_customer import (
    CustomerOut,
    LoginIn,
    LoginOut,
    PasswordChangeIn,
    PointEntryOut,
    ProfilePatch,
    RegisterIn,
)
from companion.schemas.envelope import Envelope
from companion.settings import CompanionSettings
from companion.wire_values import wire

router = APIRouter(tags=["customer"], route_class=OneHopRoute)


def customer_view(customer: Customer) -> CustomerOut:
    return CustomerOut(
        id=customer.id,
        email=customer.email,
        full_name=customer.full_name,
        phone=customer.phone,
        points_balance=customer.points_balance,
        created_at=wire(customer.created_at),
    )


def current_customer(conn: Connection, *, store_id: int, customer_id: int) -> Customer:
    customer = get_customer(conn, store_id=store_id, customer_id=customer_id)
    if customer is None:
        raise not_found("customer")
    return customer


def bad_credentials() -> Problem:
    return Problem(401, "invalid_credentials", "Unauthorized", "wrong e-mail or password")


@router.post("/customer/register", response_model=CustomerOut, status_code=status.HTTP_201_CREATED)
def post_register(
    body: RegisterIn, db: Db, tenant: CurrentTenant, services: ServicesDep, hasher: Hasher
) -> CustomerOut:
    customer = register_customer(
        db,
        hasher,
        store_id=tenant.store_id,
        email=body.email,
        password=body.password,
        full_name=body.full_name,
        phone=body.phone or None,
        now=services.clock.now(),
    )
    return customer_view(customer)


def login_limits(settings: CompanionSettings) -> LoginLimits:
    return LoginLimits(
        per_client_account=settings.login_attempts,
        per_client=settings.login_client_attempts,
        per_account=settings.login_account_attempts,
        window=timedelta(seconds=settings.login_window_seconds),
    )


def login_throttled(retry_after: int) -> Problem:
    return Problem(
        429,
        "login_throttled",
        "Too many requests",
        f"too many login attempts; retry after {retry_after} s",
        headers={"Retry-After": str(retry_after)},
        extra={"retry_after": retry_after},
    )


@router.post("/customer/login", response_model=LoginOut, summary="Yields the customer token")
def post_login(
    body: LoginIn,
    request: Request,
    db: Db,
    tenant: CurrentTenant,
    services: ServicesDep,
    hasher: Hasher,
) -> LoginOut:
    """A JWT valid for ``jwt_lifetime_seconds`` (7 days by default); no refresh token. Attempts
    are limited per client at an e-mail (5 in 15 minutes), per client and per e-mail (429
    ``login_throttled`` with Retry-After; companion.customers.throttle). Like registering and
    changing a password, it waits for the worker's hashing lane (503 ``overloaded`` when it
    stays full; companion.hashing_lane)."""
    store_id, now = tenant.store_id, services.clock.now()
    email = normalize_email(body.email)
    limits = login_limits(services.settings)
    counts = counts_of(limits, client_address(request.scope), email)
    refused = claim_attempt(
        services.engine, store_id=store_id, counts=counts, window=limits.window, now=now
    )
    if refused is not None:
        note_refusal(request.scope, f"login throttled: {refused.whom}")
        raise login_throttled(refused.seconds)
    found = find_credentials(db, store_id=store_id, email=email)
    if found is None:
        burn_verification(hasher, body.password)
    if found is None or not verify_password(hasher, found[1], body.password):
        raise bad_credentials()
    give_back(db, store_id=store_id, counts=counts)
    customer = found[0]
    lifetime = services.settings.jwt_lifetime_seconds
    issued = issue_token(
        jwt_secret(db, services.settings, store_id=store_id, now=now),
        customer_id=customer.id,
        store_id=store_id,
        now=now,
        lifetime_seconds=lifetime,
    )
    return LoginOut(
        token=issued.token,
        expires_at=wire(issued.expires_at),
        expires_in=lifetime,
        customer=customer_view(customer),
    )


@router.get("/customer/me", response_model=CustomerOut)
def get_me(db: Db, tenant: CurrentTenant, customer_id: CustomerId) -> CustomerOut:
    return customer_view(current_customer(db, store_id=tenant.store_id, customer_id=customer_id))


@router.patch("/customer/me", response_model=CustomerOut)
def patch_me(
    body: ProfilePatch,
    db: Db,
    tenant: CurrentTenant,
    services: ServicesDep,
    customer_id: CustomerId,
) -> CustomerOut:
    """Changes the fields sent; the e-mail (the login) cannot be changed here."""
    changes: dict[str, Any] = body.model_dump(exclude_unset=True)
    if "full_name" in changes and changes["full_name"] is None:
        raise unprocessable("full_name", "cannot be null")
    if "phone" in changes:
        changes["phone"] = changes["phone"] or None
    update_profile(
        db,
        store_id=tenant.store_id,
        customer_id=customer_id,
        changes=changes,
        now=services.clock.now(),
    )
    return customer_view(current_customer(db, store_id=tenant.store_id, customer_id=customer_id))


@router.post(
    "/customer/me/password",
    status_code=status.HTTP_204_NO_CONTENT,
    response_class=Response,
    summary="Change the password",
)
def post_password(
    body: PasswordChangeIn,
    db: Db,
    tenant: CurrentTenant,
    services: ServicesDep,
    customer_id: CustomerId,
    hasher: Hasher,
) -> None:
    """Needs the current password. Tokens already issued stay valid until they expire."""
    stored = password_hash_of(db, store_id=tenant.store_id, customer_id=customer_id)
    if not verify_password(hasher, stored, body.current_password):
        raise unprocessable("current_password", "is not the account's password")
    set_password(
        db,
        hasher,
        store_id=tenant.store_id,
        customer_id=customer_id,
        password=body.new_password,
        now=services.clock.now(),
    )


@router.get("/customer/me/points", response_model=Envelope[PointEntryOut])
def get_points(
    db: Db,
    tenant: CurrentTenant,
    services: ServicesDep,
    customer_id: CustomerId,
    cursor: Cursor = None,
    limit: Limit = None,
) -> Envelope[PointEntryOut]:
    """Loyalty point movements, newest first; the balance is on GET /customer/me."""
    query = select(point_entries).where(
        point_entries.c.store_id == tenant.store_id,
        point_entries.c.customer_id == customer_id,
    )
    rows, next_cursor, has_more = newest_first(
        db,
        query,
        time_col=point_entries.c.created_at,
        id_col=point_entries.c.id,
        cursor=cursor,
        limit=limit,
        services=services,
    )
    items = [
        PointEntryOut(
            id=r.id,
            delta=r.delta,
            reason=r.reason,
            order_id=r.order_id,
            created_at=wire(r.created_at),
        )
        for r in rows
    ]
    return page_of(items, next_cursor, has_more)
