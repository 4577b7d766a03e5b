"""The customer behind a request: ``Authorization: Bearer <CUSTOMER_JWT>`` beside the key.

``CustomerId`` requires a valid token (401 otherwise); ``OptionalCustomerId`` is None without
one, but a token that is sent and wrong is still a 401 rather than silently ignored.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from sqlalchemy import Connection

from companion.customers.accounts import get_customer
from companion.customers.signing_key import stored_jwt_secret
from companion.customers.tokens import TokenRejected, read_token
from companion.deps import CurrentTenant, Db, Services, ServicesDep
from companion.problems import Problem
from companion.tenant import Tenant

# Declarative only (it reads a header); it documents the scheme in the OpenAPI document.
customer_bearer = HTTPBearer(
    auto_error=False,
    scheme_name="CustomerJWT",
    description="The customer JWT from POST /customer/login, sent beside X-Service-Key",
)

Credentials = Annotated[HTTPAuthorizationCredentials | None, Depends(customer_bearer)]


def token_problem(code: str, detail: str) -> Problem:
    return Problem(401, code, "Unauthorized", detail, headers={"WWW-Authenticate": "Bearer"})


def optional_customer(
    credentials: Credentials, db: Db, services: ServicesDep, tenant: CurrentTenant
) -> int | None:
    return customer_of(credentials, db, services, tenant)


def customer_of(
    credentials: HTTPAuthorizationCredentials | None,
    db: Connection,
    services: Services,
    tenant: Tenant,
) -> int | None:
    """The customer a token names, None without one; a 401 problem for a wrong one."""
    if credentials is None:
        return None
    secret = stored_jwt_secret(db, services.settings, store_id=tenant.store_id)
    if secret is None:
        raise token_problem("invalid_token", "the customer token is not valid")
    try:
        customer_id = read_token(
            credentials.credentials,
            secret,
            store_id=tenant.store_id,
            now=services.clock.now(),
        )
    except TokenRejected as exc:
        raise token_problem(exc.code, str(exc)) from None
    if get_customer(db, store_id=tenant.store_id, customer_id=customer_id) is None:
        raise token_problem("invalid_token", "the customer of this token no longer exists")
    return customer_id


def require_customer(customer_id: Annotated[int | None, Depends(optional_customer)]) -> int:
    return required(customer_id)


def required(customer_id: int | None) -> int:
    if customer_id is None:
        raise token_problem(
            "login_required", "send the customer JWT as Authorization: Bearer <token>"
        )
    return customer_id


OptionalCustomerId = Annotated[int | None, Depends(optional_customer)]
CustomerId = Annotated[int, Depends(require_customer)]
