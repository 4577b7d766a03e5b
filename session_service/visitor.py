"""One visitor of the session endpoints: its two cookies, its API client, its write guard.

The platform's rule: a server holding a customer JWT, cart token or coupon code beyond one
request leaks sessions between visitors. So a visitor is read from its two cookies on every
request (``VisitorCookies``), its API client is built anew each time (``VisitorClient``; the
only shared piece is the connection pool, ``SessionUpstream``), and nothing about it is kept
anywhere else. The cookies are ``SameSite=Lax`` and ``Path=/``, ``Secure`` when the site is
served over https.

CSRF: a write (any method but GET and HEAD) is accepted only when the browser says it comes from
an allowed origin (scheme, host and port) and its body is JSON (``write_refusal``). The allowed
origins are the configured list (``--allowed-origin``), or else this server's own origin as the
request names it (``proxies.TrustedProxies`` puts a trusted proxy's X-Forwarded-* there). A
cross-site form can neither fake ``Origin`` nor send ``application/json`` without a CORS
preflight, which this server never grants; ``SameSite=Lax`` cookies add a third wall.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from http.cookies import SimpleCookie
from urllib.parse import urlsplit

import httpx
from starlette.requests import Request

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


SERVICE_KEY_HEADER = "X-Service-Key"


@dataclass(frozen=True, slots=True)
class SessionUpstream:
    """Where the session endpoints send API calls: a pooled client and the publishable key."""

    http: httpx.AsyncClient  # base_url: the API base, ending in /public/v1
    key: str | None  # None: unkeyed calls (the API finds the store by its host)


@dataclass(frozen=True, slots=True)
class VisitorClient:
    upstream: SessionUpstream
    cookies: VisitorCookies
    #: The shopper's request's id, sent on with each API call so both logs name it.
    request_id: str | None = None
    #: The shopper's address, sent on as ``X-Forwarded-For``: the API keeps its per-client
    #: limits (login attempts, password hashing) by it, not by this service's own address.
    shopper_address: str | None = None

    def headers(self, extra: dict[str, str] | None = None) -> dict[str, str]:
        headers = {"Accept": "application/json", **(extra or {})}
        if self.request_id:
            headers["X-Request-Id"] = self.request_id
        if self.shopper_address:
            headers["X-Forwarded-For"] = self.shopper_address
        if self.upstream.key:
            headers[SERVICE_KEY_HEADER] = self.upstream.key
        if self.cookies.customer_jwt:
            headers["Authorization"] = f"Bearer {self.cookies.customer_jwt}"
        return headers

    async def send(
        self,
        method: str,
        path: str,
        *,
        query: str = "",
        content: bytes | None = None,
        json: object = None,
        headers: dict[str, str] | None = None,
    ) -> httpx.Response:
        """``path`` is relative to the API base (``/cart/items``); ``query`` is sent as is."""
        url = path + (f"?{query}" if query else "")
        return await self.upstream.http.request(
            method, url, content=content, json=json, headers=self.headers(headers)
        )


SAFE_METHODS = frozenset({"GET", "HEAD"})


def write_refusal(
    request: Request, allowed: frozenset[str] = frozenset()
) -> tuple[int, str, str] | None:
    """(status, code, detail) when the write must be refused; None when it may go on.
    ``allowed``: origins (``normal_origin``) writes may come from; empty: this server's own."""
    if request.method in SAFE_METHODS:
        return None
    if sent_origin(request, allowed) is None:
        return 403, "cross_origin", "writes to the session must come from this site's own pages"
    media_type = request.headers.get("content-type", "").split(";", 1)[0].strip().lower()
    if media_type != "application/json":
        return 415, "json_required", "send the body as application/json"
    return None


def sent_origin(request: Request, allowed: frozenset[str]) -> str | None:
    """The request's ``Origin`` (normalised) when it is one writes may come from, else None."""
    origin = request.headers.get("origin")
    if not origin or origin == "null":
        return None
    given = normal_origin(origin)
    own = _origin(request.url.scheme, request.headers.get("host", ""))
    return given if given in (allowed or {own}) else None


def site_is_https(request: Request, allowed: frozenset[str]) -> bool:
    """Whether the shopper's page is https, so cookies are ``Secure``: the accepted Origin's
    scheme, else (a read, no Origin) the request's own scheme, or every allowed origin's."""
    origin = sent_origin(request, allowed)
    if origin is not None:
        return origin.startswith("https://")
    if allowed and all(o.startswith("https://") for o in allowed):
        return True
    return request.url.scheme == "https"


_DEFAULT_PORTS = {"http": ":80", "https": ":443"}


def _origin(scheme: str, host: str) -> str:
    """``scheme://host[:port]`` in lower case, the scheme's default port left out."""
    scheme, host = scheme.lower(), host.lower()
    default = _DEFAULT_PORTS.get(scheme)
    if default and host.endswith(default):
        host = host[: -len(default)]
    return f"{scheme}://{host}"


def normal_origin(text: str) -> str:
    """An origin (``https://shop.example.vn:8443``) as compared: lower case, no default port,
    no path."""
    parts = urlsplit(text.strip())
    return _origin(parts.scheme, parts.netloc)
