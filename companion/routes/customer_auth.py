"""The customer behind a request: ``Authorization: Bearer <CUSTOMER_JWT>`` beside the key.

``CustomerId`` requires a valid token (401 otherwise); ``OptionalCustomerId`` is None without
one, but a token that is sent and wrong is still a 401 (``customers.auth.customer_of``). Both
check it with the route's own transaction (FastAPI gives a request one ``Db``).
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from sqlalchemy import Connection

from companion.customers.auth import customer_of, required
from companion.deps import CurrentTenant, Db, ServicesDep, services_of

# Declarative only (it reads a header); it documents the scheme in the OpenAPI document.
customer_bearer = HTTPBearer(
    auto_error=False,
    scheme_name="CustomerJWT",
    description="The customer JWT from POST /customer/login, sent beside X-Service-Key",
)

Credentials = Annotated[HTTPAuthorizationCredentials | None, Depends(customer_bearer)]


def optional_customer(
    credentials: Credentials, db: Db, services: ServicesDep, tenant: CurrentTenant
) -> int | None:
    token = None if credentials is None else credentials.credentials
    now = services.clock.now()
    return customer_of(token, db, services.settings, store_id=tenant.store_id, now=now)


def customer_of_request(
    credentials: HTTPAuthorizationCredentials | None, db: Connection, request: Request
) -> int | None:
    """``optional_customer`` for a caller holding the request and a connection."""
    services = services_of(request)
    token = None if credentials is None else credentials.credentials
    store_id = request.state.tenant.store_id
    return customer_of(token, db, services.settings, store_id=store_id, now=services.clock.now())


def require_customer(customer_id: Annotated[int | None, Depends(optional_customer)]) -> int:
    return required(customer_id)


OptionalCustomerId = Annotated[int | None, Depends(optional_customer)]
CustomerId = Annotated[int, Depends(require_customer)]
