"""The two cookies of a storefront visitor, exactly as the platform names them.

- ``service_cart``: the cart token. Not httpOnly: the islands read it, and the platform's template
  engine uses the same name and meaning, so one cart persists across both engines.
- ``service_customer``: the customer JWT. httpOnly, so no script (and no injected script) ever
  reads it; only the same-origin session endpoints set, send and clear it.

Both are ``SameSite=Lax`` and ``Path=/``, and ``Secure`` when the site is served over https.
Reading them builds a ``VisitorCookies`` value per request: nothing about a visitor is kept
anywhere else.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from http.cookies import SimpleCookie

CART_COOKIE = "service_cart"
CUSTOMER_COOKIE = "service_customer"
#: A cart outlives a browser session; the platform keeps anonymous carts for weeks.
CART_MAX_AGE = 30 * 24 * 3600
# Tokens are opaque ASCII; anything longer or stranger is not ours and is ignored.
_MAX_VALUE = 4000


@dataclass(frozen=True, slots=True)
class VisitorCookies:
    cart_token: str | None
    customer_jwt: str | None

    @classmethod
    def read(cls, cookies: Mapping[str, str]) -> VisitorCookies:
        return cls(_usable(cookies.get(CART_COOKIE)), _usable(cookies.get(CUSTOMER_COOKIE)))


def customer_cookie(jwt: str, *, max_age: int, secure: bool) -> str:
    """Set-Cookie for the customer JWT: httpOnly, never visible to a script."""
    return _set_cookie(CUSTOMER_COOKIE, jwt, max_age=max_age, secure=secure, http_only=True)


def cart_cookie(token: str, *, secure: bool) -> str:
    """Set-Cookie for the cart token: readable by the islands (and the template engine)."""
    return _set_cookie(CART_COOKIE, token, max_age=CART_MAX_AGE, secure=secure, http_only=False)


def cleared_cookie(name: str, *, secure: bool) -> str:
    return _set_cookie(name, "", max_age=0, secure=secure, http_only=name == CUSTOMER_COOKIE)


def _set_cookie(name: str, value: str, *, max_age: int, secure: bool, http_only: bool) -> str:
    cookie: SimpleCookie = SimpleCookie()
    cookie[name] = value
    morsel = cookie[name]
    morsel["path"] = "/"
    morsel["max-age"] = str(max(0, max_age))
    morsel["samesite"] = "Lax"
    if http_only:
        morsel["httponly"] = True
    if secure:
        morsel["secure"] = True
    return morsel.OutputString()


def _usable(value: str | None) -> str | None:
    if not value or len(value) > _MAX_VALUE or not value.isascii() or not value.isprintable():
        return None
    return value
