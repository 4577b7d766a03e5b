"""The same-origin session endpoints of `storefront serve`, mounted under ``/session/``.

    POST /session/login      {email, password}: logs in upstream, keeps the JWT in the httpOnly
                             ``service_customer`` cookie, merges the guest cart; answers
                             {customer} (never the token)
    POST /session/register   {email, password, full_name, phone?}: registers, then logs in
    POST /session/logout     clears both cookies
    GET  /session/me         {customer} or {customer: null}; never a 401 for a guest
    GET  /session/health     {"status": "ok"}: the service answers (it never asks the API)
    *    /session/api/<path> forwards to <API base>/<path> with X-Service-Key and, when the
                             visitor is logged in, Authorization: Bearer <JWT from the cookie>

Every request builds its own ``VisitorClient`` from its cookies (``visitor``). Every write
passes ``visitor.write_refusal`` (an allowed origin, JSON body); a body larger than the limit
(``MAX_BODY`` by default) is refused as it is read, before it passes it, and one that stops
arriving is answered 408 (``session_service.body_limit``). The forwarder decides on the path as
the API will read it and forwards only the paths the islands use (``_FORWARDED``): never
``/customer/login``, whose answer carries the JWT, which must never reach a script.
"""

from __future__ import annotations

import json
import re
from collections.abc import Awaitable, Callable
from urllib.parse import quote, unquote

import httpx
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from starlette.types import ASGIApp

from session_service.body_limit import BodyLimit
from session_service.refusals import note_refusal
from session_service.visitor import (
    CART_COOKIE,
    CUSTOMER_COOKIE,
    SessionUpstream,
    VisitorClient,
    VisitorCookies,
    cart_cookie,
    cleared_cookie,
    customer_cookie,
    site_is_https,
    write_refusal,
)

SESSION_PREFIX = "/session"
API_PREFIX = "/session/api"
PROBLEM_TYPE = "application/problem+json"
#: Largest body, in bytes, and the seconds a body may go without sending more (defaults).
MAX_BODY = 256 * 1024
BODY_TIMEOUT = 30.0
# Answer headers worth passing back to the islands (rate limits above all).
_PASSED_BACK = ("content-type", "retry-after", "ratelimit-limit", "ratelimit-remaining",
                "ratelimit-reset", "etag", "location")  # fmt: skip
# Request headers the islands may send on to the API.
_PASSED_ON = ("content-type", "idempotency-key", "if-none-match")
# Only what a raw API path can hold: no backslash, no control characters.
_SAFE_PATH = re.compile(r"^(?:/[A-Za-z0-9._~%!$&'()*+,;=:@-]+)+/?$")
#: What the islands reach through the forwarder, as decoded path segments ("*": any one
#: segment). Nothing else is forwarded: above all not /customer/login, whose answer carries
#: the JWT that only the httpOnly cookie may hold.
_FORWARDED = frozenset(
    {
        "cart", "cart/items", "cart/quote",
        "shipping-methods", "shipping/provinces", "shipping/wards",
        "checkout", "checkout/payment-methods", "checkout/payment-return", "checkout/pay",
        "checkout/place-order", "checkout/*/shipping",
        "customer/me", "customer/addresses", "customer/addresses/*",
        "customer/orders", "customer/orders/*",
        "customer/saved-products", "customer/saved-products/*",
        "products", "products/*", "products/*/variants", "search", "store",
        "recommendations/product/*", "recommendations/recently-viewed", "recommendations/view",
        "storefront-errors", "analytics/entity-view", "banners/*/click",
    }
)  # fmt: skip
_FORWARDED_PARTS = tuple(tuple(path.split("/")) for path in sorted(_FORWARDED))
#: Paths the session endpoints own: the forwarder points there instead.
_SESSION_OWNED = frozenset({"customer/login", "customer/register"})

_Handler = Callable[[Request, VisitorClient], Awaitable[Response]]


def session_app(
    upstream: SessionUpstream,
    *,
    allowed_origins: frozenset[str] = frozenset(),
    max_body: int = MAX_BODY,
    body_timeout: float = BODY_TIMEOUT,
) -> ASGIApp:
    """The endpoints over ``upstream``; writes only from ``allowed_origins`` (normalised,
    ``visitor.normal_origin``), or from this server's own origin when it is empty; bodies of
    at most ``max_body`` bytes, each piece within ``body_timeout`` seconds."""

    async def login(request: Request) -> Response:
        return await _guarded(request, upstream, allowed_origins, _login)

    async def register(request: Request) -> Response:
        return await _guarded(request, upstream, allowed_origins, _register)

    async def logout(request: Request) -> Response:
        return await _guarded(request, upstream, allowed_origins, _logout)

    async def me(request: Request) -> Response:
        return await _guarded(request, upstream, allowed_origins, _me)

    async def forward(request: Request) -> Response:
        return await _guarded(request, upstream, allowed_origins, _forward)

    async def health(request: Request) -> Response:
        return _no_store(JSONResponse({"status": "ok"}))

    methods = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"]
    endpoints = Starlette(
        routes=[
            Route(f"{SESSION_PREFIX}/login", login, methods=["POST"]),
            Route(f"{SESSION_PREFIX}/register", register, methods=["POST"]),
            Route(f"{SESSION_PREFIX}/logout", logout, methods=["POST"]),
            Route(f"{SESSION_PREFIX}/me", me, methods=["GET"]),
            Route(f"{SESSION_PREFIX}/health", health, methods=["GET", "HEAD"]),
            Route(f"{API_PREFIX}/{{path:path}}", forward, methods=methods),
        ]
    )
    return BodyLimit(endpoints, max_bytes=max_body, read_timeout=body_timeout, answer=problem)


async def _guarded(
    request: Request, upstream: SessionUpstream, allowed: frozenset[str], handler: _Handler
) -> Response:
    refused = write_refusal(request, allowed)
    if refused is not None:
        note_refusal(request.scope, refused[1])  # a forged page's write is an attack to see
        return problem(*refused)
    request.state.secure = site_is_https(request, allowed)
    request_id = getattr(request.state, "request_id", None)  # set by the request log, if any
    shopper = request.client.host if request.client else None  # a trusted proxy's, if any
    client = VisitorClient(upstream, VisitorCookies.read(request.cookies), request_id, shopper)
    try:
        return await handler(request, client)
    except httpx.HTTPError:
        return problem(502, "api_unreachable", "the store's API cannot be reached; try again")


async def _login(request: Request, client: VisitorClient) -> Response:
    body = await _json_body(request)
    if isinstance(body, Response):
        return body
    answer = await client.send("POST", "/customer/login", json=body)
    if answer.status_code != 200:
        return _passed_back(answer)
    return await _logged_in(request, client, answer, status=200)


async def _register(request: Request, client: VisitorClient) -> Response:
    body = await _json_body(request)
    if isinstance(body, Response):
        return body
    answer = await client.send("POST", "/customer/register", json=body)
    if answer.status_code != 201:
        return _passed_back(answer)
    credentials = {"email": body.get("email"), "password": body.get("password")}
    login = await client.send("POST", "/customer/login", json=credentials)
    if login.status_code != 200:
        return _passed_back(login)
    return await _logged_in(request, client, login, status=201)


async def _logged_in(
    request: Request, client: VisitorClient, login: httpx.Response, *, status: int
) -> Response:
    """The JWT into the httpOnly cookie, the guest cart merged into the customer's."""
    data = login.json()
    token, customer = data.get("token"), data.get("customer")
    if not isinstance(token, str) or not token:
        return problem(502, "bad_login_answer", "the API's login answer carries no token")
    secure = _secure(request)
    expires_in = data.get("expires_in")
    max_age = expires_in if isinstance(expires_in, int) else 7 * 24 * 3600
    response = JSONResponse({"customer": customer}, status_code=status)
    response.headers.append("cache-control", "no-store")
    response.headers.append("set-cookie", customer_cookie(token, max_age=max_age, secure=secure))
    guest_cart = client.cookies.cart_token
    if guest_cart:
        customer_client = VisitorClient(
            client.upstream,
            VisitorCookies(guest_cart, token),
            client.request_id,
            client.shopper_address,
        )
        merged = await customer_client.send("POST", "/cart/merge", query=_query(token=guest_cart))
        kept = merged.json().get("token") if merged.status_code == 200 else None
        if isinstance(kept, str) and kept:
            response.headers.append("set-cookie", cart_cookie(kept, secure=secure))
    return response


async def _logout(request: Request, client: VisitorClient) -> Response:
    secure = _secure(request)
    response = Response(status_code=204)
    response.headers.append("set-cookie", cleared_cookie(CUSTOMER_COOKIE, secure=secure))
    # The cart was merged into the customer's at login: it leaves with the customer.
    response.headers.append("set-cookie", cleared_cookie(CART_COOKIE, secure=secure))
    return response


async def _me(request: Request, client: VisitorClient) -> Response:
    if not client.cookies.customer_jwt:
        return _no_store(JSONResponse({"customer": None}))
    answer = await client.send("GET", "/customer/me")
    if answer.status_code == 401:
        response = _no_store(JSONResponse({"customer": None}))
        secure = _secure(request)
        response.headers.append("set-cookie", cleared_cookie(CUSTOMER_COOKIE, secure=secure))
        return response
    if answer.status_code != 200:
        return _passed_back(answer)
    return _no_store(JSONResponse({"customer": answer.json()}))


async def _forward(request: Request, client: VisitorClient) -> Response:
    raw = request.scope.get("raw_path") or request.url.path.encode()
    segments = forwarded_segments(raw.decode("ascii", "replace").split("?", 1)[0])
    if segments is None:
        return problem(404, "not_found", "no such API path")
    if "/".join(segments) in _SESSION_OWNED:
        return problem(404, "use_session_login", "log in through /session/login")
    if not forwarded(segments):
        return problem(404, "not_found", "no such API path")
    # The path sent is the one decided on: each decoded segment quoted again.
    path = "/" + "/".join(quote(segment, safe="") for segment in segments)
    content = await request.body()  # within the limit: BodyLimit ends the request past it
    headers = {k: v for k in _PASSED_ON if (v := request.headers.get(k))}
    answer = await client.send(
        request.method,
        path,
        query=request.url.query,
        content=content or None,
        headers=headers,
    )
    response = _passed_back(answer)
    if answer.status_code == 401 and client.cookies.customer_jwt:
        secure = _secure(request)
        response.headers.append("set-cookie", cleared_cookie(CUSTOMER_COOKIE, secure=secure))
    return response


def forwarded_segments(raw_path: str) -> tuple[str, ...] | None:
    """The API path the forwarder was asked for (the raw path after ``/session/api``), as the
    API will read it: percent-decoded (``%2F`` included), split into segments. None when it is
    not a plain path: dot segments, empty segments, a backslash, control characters or bytes
    that are not UTF-8, in any spelling."""
    path = raw_path[len(API_PREFIX) :] if raw_path.startswith(API_PREFIX) else raw_path
    if not _SAFE_PATH.match(path):
        return None
    try:
        decoded = unquote(path, errors="strict")
    except UnicodeDecodeError:
        return None
    segments = tuple(decoded.strip("/").split("/")) if decoded.strip("/") else ()
    if (
        not segments
        or any(s in ("", ".", "..") for s in segments)
        or not decoded.isprintable()
        or "\\" in decoded
    ):
        return None
    return segments


def forwarded(segments: tuple[str, ...]) -> bool:
    """Whether ``segments`` match one of the paths the islands use."""
    return any(
        len(parts) == len(segments)
        and all(part in ("*", segment) for part, segment in zip(parts, segments, strict=True))
        for parts in _FORWARDED_PARTS
    )


def problem(status: int, code: str, detail: str) -> JSONResponse:
    body = {"type": "about:blank", "title": detail, "status": status, "detail": detail}
    body["code"] = code
    return JSONResponse(body, status_code=status, media_type=PROBLEM_TYPE)


def _passed_back(answer: httpx.Response) -> Response:
    headers = {k: v for k in _PASSED_BACK if (v := answer.headers.get(k))}
    headers["cache-control"] = "no-store"
    return Response(answer.content, status_code=answer.status_code, headers=headers)


def _no_store(response: Response) -> Response:
    response.headers["cache-control"] = "no-store"
    return response


async def _json_body(request: Request) -> dict[str, object] | Response:
    content = await request.body()  # within the limit: BodyLimit ends the request past it
    try:
        body = json.loads(content)
    except (ValueError, UnicodeDecodeError, RecursionError):  # nested past the parser's depth
        return problem(400, "invalid_json", "the body is not valid JSON")
    if not isinstance(body, dict):
        return problem(422, "invalid_body", "the body must be a JSON object")
    return body


def _secure(request: Request) -> bool:
    """Whether cookies set on this answer are ``Secure`` (decided once, in ``_guarded``)."""
    return bool(getattr(request.state, "secure", False))


def _query(**params: str) -> str:
    return str(httpx.QueryParams(params))
