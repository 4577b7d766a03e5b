"""The customer JWT (HS256, PyJWT): claims ``sub``, ``store``, ``iat``, ``exp``; no refresh token.

Expiry is checked against the companion's clock, not the machine's, so tests can move time.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

import jwt

from companion.clock import epoch_seconds

ALGORITHM = "HS256"


@dataclass(frozen=True, slots=True)
class IssuedToken:
    token: str
    expires_at: datetime


class TokenRejected(Exception):
    """The token cannot be used; ``code`` is the problem code, the message says why."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


def issue_token(
    secret: str, *, customer_id: int, store_id: int, now: datetime, lifetime_seconds: int
) -> IssuedToken:
    issued = int(epoch_seconds(now))
    expires = issued + lifetime_seconds
    token = jwt.encode(
        {"sub": str(customer_id), "store": store_id, "iat": issued, "exp": expires},
        secret,
        algorithm=ALGORITHM,
    )
    return IssuedToken(token, now.replace(microsecond=0) + timedelta(seconds=lifetime_seconds))


def read_token(token: str, secret: str, *, store_id: int, now: datetime) -> int:
    """The customer id the token was issued to, if it is genuine, current and for this store."""
    try:
        claims = jwt.decode(
            token,
            secret,
            algorithms=[ALGORITHM],
            options={
                "require": ["sub", "store", "iat", "exp"],
                "verify_exp": False,  # checked below against the injected clock
                "verify_iat": False,
            },
        )
    except jwt.InvalidTokenError:
        raise TokenRejected("invalid_token", "the customer token is not valid") from None
    exp, store, sub = claims["exp"], claims["store"], claims["sub"]
    if not isinstance(exp, int | float) or isinstance(exp, bool):
        raise TokenRejected("invalid_token", "the customer token is not valid")
    if epoch_seconds(now) >= exp:
        raise TokenRejected("token_expired", "the customer token has expired; log in again")
    if store != store_id or not isinstance(sub, str) or not sub.isdigit() or len(sub) > 18:
        raise TokenRejected("invalid_token", "the customer token is not valid for this store")
    return int(sub)
