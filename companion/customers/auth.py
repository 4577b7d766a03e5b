"""The customer a token names: checked against the store's signing key and its customers.

``customer_of`` is None without a token; a token that is sent and wrong is refused
(``NotSignedIn``) rather than silently ignored. The routes' dependencies that read the token
from ``Authorization: Bearer <CUSTOMER_JWT>`` are in ``companion.routes.customer_auth``.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Connection

from companion.customers.accounts import get_customer
from companion.customers.signing_key import stored_jwt_secret
from companion.customers.tokens import TokenRejected, read_token
from companion.refusals import NotSignedIn
from companion.settings import CompanionSettings


def customer_of(
    token: str | None,
    db: Connection,
    settings: CompanionSettings,
    *,
    store_id: int,
    now: datetime,
) -> int | None:
    """The customer ``token`` names, None without one."""
    if token is None:
        return None
    secret = stored_jwt_secret(db, settings, store_id=store_id)
    if secret is None:
        raise NotSignedIn("invalid_token", "the customer token is not valid")
    try:
        customer_id = read_token(token, secret, store_id=store_id, now=now)
    except TokenRejected as exc:
        raise NotSignedIn(exc.code, str(exc)) from None
    if get_customer(db, store_id=store_id, customer_id=customer_id) is None:
        raise NotSignedIn("invalid_token", "the customer of this token no longer exists")
    return customer_id


def required(customer_id: int | None) -> int:
    if customer_id is None:
        raise NotSignedIn(
            "login_required", "send the customer JWT as Authorization: Bearer <token>"
        )
    return customer_id
