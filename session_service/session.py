"""The same-origin session endpoints of `storefront serve`, mounted under ``/session/``.

    POST /session/login      {email, password}: logs in upstream, keeps the JWT in the httpOnly
                             ``service_customer`` cookie, merges the guest cart; answers
                             {customer} (never the token)
    POST /session/register   {email, password, full_name, phone?}: registers, then logs in
    POST /session/logout     clears both cookies
    GET  /session/me         {customer} or {customer: null}; never a 401 for a guest
    GET  /session/health     {"status": "ok", "budget": ...}: the service answers, with the
                             key's budget left (``traffic``); it never asks the API
    *    /session/api/<path> forwards to <API base>/<path> with X-Service-Key and, when the
                             visitor is logged in, Authorization: Bearer <JWT from the cookie>

Every request builds its own ``VisitorClient`` from its cookies (``visitor``). Every write
passes ``visitor.write_refusal`` (an allowed origin, JSON body); a body larger than the limit
(``MAX_BODY`` by default) is refused as it is read, before it passes it, and one that stops
arriving is answered 408 (``session_service.body_limit``). The forwarder decides on the path as
the API will read it and forwards only the paths the islands use (``_FORWARDED``): never
``/customer/login``, whose answer carries the JWT, which must never reach a script.

Every call spends the key's budget in its lane (``lanes``, ``budget``), after the visitor's own
share (``visitor_share``); one that cannot be sent is answered 429 here, with ``Retry-After``,
spending nothing of the key. Reads without visitor state are shared (``shared_reads``);
activity is answered 202 at once and forwarded from a queue (``activity``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import quote, unquote

import httpx
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from starlette.types import ASGIApp

from session_service.activity import Activity
from session_service.body_limit import BodyLimit
from session_service.budget import Refusal
from session_service.lanes import Lane, lane_of
from session_service.refusals import note_refusal
from session_service.shared_reads import SharedAnswer, share_key
from session_service.traffic import Traffic
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
from session_service.visitor_share import SPENT

SESSION_PREFIX = "/session"
API_PREFIX = "/session/api"
PROBLEM_TYPE = "application/problem+json"
#: Largest body, in bytes, and the seconds a body may go without sending more (defaults).
MAX_BODY = 256 * 1024
BODY_TIMEOUT = 30.0
# Answer headers worth passing back to the islands (rate limits above all).
_PASSED_BACK = ("content-type", "retry-after", "ratelimit-limit", "ratelimit-remaining",
                "ratelimit-reset", "etag", "location")  # fmt: skip
_SHARED_BACK = tuple(h for h in _PASSED_BACK if not h.startswith("ratelimit-"))
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
        "customer/product-views",
    }
)  # fmt: skip
_FORWARDED_PARTS = tuple(tuple(path.split("/")) for path in sorted(_FORWARDED))
#: Paths the session endpoints own: the forwarder points there instead.
_SESSION_OWNED = frozenset({"customer/login", "customer/register"})
#: Paths the islands only ever send to (a logged-in customer's views, kept by the account).
_POST_ONLY = frozenset({"customer/product-views"})
#: API paths whose POST hashes a password (the API limits those per client as well).
_HASHING = frozenset({"/customer/login", "/customer/register"})

_Handler = Callable[[Request, VisitorClient, Traffic], Awaitable[Response]]


def session_app(
    upstream: SessionUpstream,
    *,
    allowed_origins: frozenset[str] = frozenset(),
    max_body: int = MAX_BODY,
    body_timeout: float = BODY_TIMEOUT,
    traffic: Traffic | None = None,
) -> ASGIApp:
    """The endpoints over ``upstream``; writes only from ``allowed_origins`` (normalised,
    ``visitor.normal_origin``), or from this server's own origin when it is empty; bodies of
    at most ``max_body`` bytes, each piece within ``body_timeout`` seconds; the key's budget,
    visitors' shares, shared reads and activity queue in ``traffic`` (default: the spec's
    limits, this process alone on the key)."""
    kept = traffic or Traffic()

    async def login(request: Request) -> Response:
        return await _guarded(request, upstream, allowed_origins, kept, _login)

    async def register(request: Request) -> Response:
        return await _guarded(request, upstream, allowed_origins, kept, _register)

    async def logout(request: Request) -> Response:
        return await _guarded(request, upstream, allowed_origins, kept, _logout)

    async def me(request: Request) -> Response:
        return await _guarded(request, upstream, allowed_origins, kept, _me)

    async def forward(request: Request) -> Response:
        return await _guarded(request, upstream, allowed_origins, kept, _forward)

    async def health(request: Request) -> Response:
        return _no_store(JSONResponse({"status": "ok", "budget": kept.figures()}))

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
    request: Request,
    upstream: SessionUpstream,
    allowed: frozenset[str],
    traffic: Traffic,
    handler: _Handler,
) -> Response:
    refused = write_refusal(request, allowed)
    if refused is not None:
        note_refusal(request.scope, refused[1])  # a forged page's write is an attack to see
        return problem(*refused)
    request.state.secure = site_is_https(request, allowed)
    request_id = getattr(request.state, "request_id", None)  # set by the request log, if any
    shopper = request.client.host if request.client else None  # a trusted proxy's, if any
    wait = traffic.visitors.take(shopper)
    if wait is not None:  # one client must not spend the store's key
        note_refusal(request.scope, SPENT + _not_believed(request, shopper))
        detail = f"too many requests from this visitor; retry after {wait} s"
        return refusal_answer(Refusal(SPENT, wait, detail))
    client = VisitorClient(upstream, VisitorCookies.read(request.cookies), request_id, shopper)
    try:
        return await handler(request, client, traffic)
    except httpx.HTTPError:
        return problem(502, "api_unreachable", "the store's API cannot be reached; try again")


def _not_believed(request: Request, shopper: str | None) -> str:
    """Why every shopper may be one visitor: an X-Forwarded-For that was not believed (a proxy
    in front not given as trusted, or a client forging it), said on the refusal's log line."""
    forwarded = request.headers.get("x-forwarded-for")
    if not forwarded or shopper in [a.strip() for a in forwarded.split(",")]:
        return ""
    return " (X-Forwarded-For not believed: the peer is no --trusted-proxy)"


async def _login(request: Request, client: VisitorClient, traffic: Traffic) -> Response:
    body = await _json_body(request)
    if isinstance(body, Response):
        return body
    answer = await _sent(
        request, traffic, Lane.BUYING, client, "POST", "/customer/login", json=body
    )
    if isinstance(answer, Response):
        return answer
    if answer.status_code != 200:
        return _passed_back(answer)
    return await _logged_in(request, client, traffic, answer, status=200)


async def _register(request: Request, client: VisitorClient, traffic: Traffic) -> Response:
    body = await _json_body(request)
    if isinstance(body, Response):
        return body
    answer = await _sent(
        request, traffic, Lane.BUYING, client, "POST", "/customer/register", json=body
    )
    if isinstance(answer, Response):
        return answer
    if answer.status_code != 201:
        return _passed_back(answer)
    credentials = {"email": body.get("email"), "password": body.get("password")}
    login = await _sent(
        request, traffic, Lane.BUYING, client, "POST", "/customer/login", json=credentials
    )
    if isinstance(login, Response):
        return login
    if login.status_code != 200:
        return _passed_back(login)
    return await _logged_in(request, client, traffic, login, status=201)


async def _logged_in(
    request: Request,
    client: VisitorClient,
    traffic: Traffic,
    login: httpx.Response,
    *,
    status: int,
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
        merged = await _sent(
            request,
            traffic,
            Lane.BUYING,
            customer_client,
            "POST",
            "/cart/merge",
            query=_query(token=guest_cart),
        )
        if isinstance(merged, Response):  # no budget left: the guest cart stays as it is
            return response
        kept = merged.json().get("token") if merged.status_code == 200 else None
        if isinstance(kept, str) and kept:
            response.headers.append("set-cookie", cart_cookie(kept, secure=secure))
    return response


async def _logout(request: Request, client: VisitorClient, traffic: Traffic) -> Response:
    secure = _secure(request)
    response = Response(status_code=204)
    response.headers.append("set-cookie", cleared_cookie(CUSTOMER_COOKIE, secure=secure))
    # The cart was merged into the customer's at login: it leaves with the customer.
    response.headers.append("set-cookie", cleared_cookie(CART_COOKIE, secure=secure))
    return response


async def _me(request: Request, client: VisitorClient, traffic: Traffic) -> Response:
    if not client.cookies.customer_jwt:
        return _no_store(JSONResponse({"customer": None}))
    answer = await _sent(request, traffic, Lane.BUYING, client, "GET", "/customer/me")
    if isinstance(answer, Response):
        return answer
    if answer.status_code == 401:
        response = _no_store(JSONResponse({"customer": None}))
        secure = _secure(request)
        response.headers.append("set-cookie", cleared_cookie(CUSTOMER_COOKIE, secure=secure))
        return response
    if answer.status_code != 200:
        return _passed_back(answer)
    return _no_store(JSONResponse({"customer": answer.json()}))


async def _forward(request: Request, client: VisitorClient, traffic: Traffic) -> Response:
    raw = request.scope.get("raw_path") or request.url.path.encode()
    segments = forwarded_segments(raw.decode("ascii", "replace").split("?", 1)[0])
    if segments is None:
        return problem(404, "not_found", "no such API path")
    if "/".join(segments) in _SESSION_OWNED:
        return problem(404, "use_session_login", "log in through /session/login")
    joined = "/".join(segments)
    if not forwarded(segments) or (joined in _POST_ONLY and request.method != "POST"):
        return problem(404, "not_found", "no such API path")
    # The path sent is the one decided on: each decoded segment quoted again.
    path = "/" + "/".join(quote(segment, safe="") for segment in segments)
    content = await request.body()  # within the limit: BodyLimit ends the request past it
    headers = {k: v for k in _PASSED_ON if (v := request.headers.get(k))}
    method, query, lane = request.method, request.url.query, lane_of(request.method, segments)
    if lane is Lane.ACTIVITY:
        return _queued(traffic, client, path, query, content, headers)
    key = None
    if lane in (Lane.SHARED, Lane.BROWSING) and not content:
        # A shared read goes without the visitor's login: its answer is everyone's.
        logged_in = lane is Lane.BROWSING and client.cookies.customer_jwt is not None
        names = request.query_params.keys()
        validator = headers.get("if-none-match")
        key = share_key(method, path, query, names, logged_in=logged_in, validator=validator)
    if key is not None:
        return await _shared(request, traffic, lane, client, key, path, headers)
    answer = await _sent(
        request,
        traffic,
        lane,
        client,
        method,
        path,
        query=query,
        content=content or None,
        headers=headers,
    )
    if isinstance(answer, Response):
        return answer
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


async def _sent(
    request: Request,
    traffic: Traffic,
    lane: Lane,
    client: VisitorClient,
    method: str,
    path: str,
    **sent: Any,
) -> httpx.Response | Response:
    """``client.send`` when the key's budget has room for ``lane``; else the 429 answered
    here (nothing of the key spent), its reason noted for the request log."""
    refusal = traffic.budget.take(lane)
    if refusal is not None:
        note_refusal(request.scope, refusal.code)
        return refusal_answer(refusal)
    answer = await client.send(method, path, **sent)
    # A login or register hashes a password: the API also limits it per client, and such a
    # 429 must not let one client stop the key for every shopper.
    per_client = method == "POST" and path in _HASHING
    traffic.budget.note_answer(answer.status_code, answer.headers, per_client=per_client)
    return answer


async def _shared(
    request: Request,
    traffic: Traffic,
    lane: Lane,
    client: VisitorClient,
    key: str,
    path: str,
    headers: dict[str, str],
) -> Response:
    """A read without visitor state: sent once for all who ask alike, without any visitor's
    cookies, address or login; kept a while when it is a shared read."""
    anyone = VisitorClient(client.upstream, VisitorCookies(None, None), client.request_id)
    query = request.url.query

    async def fetch() -> SharedAnswer | Response:
        answer = await _sent(
            request, traffic, lane, anyone, request.method, path, query=query, headers=headers
        )
        if isinstance(answer, Response):
            return answer
        return SharedAnswer(answer.status_code, answer.content, tuple(answer.headers.multi_items()))

    result = await traffic.shared.read(key, fetch, keep=lane is Lane.SHARED)
    if isinstance(result, Response):
        return result
    # A 200 is everyone's: the rate-limit figures of the moment it was asked are not.
    passed = _PASSED_BACK if result.status != 200 else _SHARED_BACK
    kept = {k: v for k, v in result.headers if k.lower() in passed}
    kept["cache-control"] = "no-store"
    return Response(result.content, status_code=result.status, headers=kept)


def _queued(
    traffic: Traffic,
    client: VisitorClient,
    path: str,
    query: str,
    content: bytes,
    headers: dict[str, str],
) -> Response:
    """Activity, answered at once: sent later as this request would have been, with this
    request's own cookies and headers (``client``) and nobody else's."""

    async def send() -> tuple[int, dict[str, str]]:
        answer = await client.send(
            "POST", path, query=query, content=content or None, headers=headers
        )
        return answer.status_code, dict(answer.headers)

    traffic.activity.put(Activity(send, size=len(content)))
    return _no_store(JSONResponse({}, status_code=202))


def refusal_answer(refusal: Refusal) -> Response:
    """429 from the session service itself: the key was not asked."""
    response = problem(429, refusal.code, refusal.detail)
    response.headers["retry-after"] = str(refusal.retry_after)
    return _no_store(response)


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
