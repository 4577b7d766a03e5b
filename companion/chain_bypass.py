"""The chain bypass: a kept catalogue read answered past the middleware chain, by the chain's
own layers.

A storefront's shoppers mostly read catalogue pages the answer cache already holds. Down the
chain such a read passes ten layers to be answered from memory, and at a shopper's pace each
layer runs cold (none of its code or data in the processor's caches), so what a read costs
grows with the code it passes through. `make loadtest` runs with and without this module
(``--no-chain-bypass``); docs/benchmarks.md gives both.

What it skips, for such a read only: the body limit and the hashing lane (a GET with no body,
not a login), the admission gate (its slots bound the requests that may hold a database
connection; a kept read holds none), the crash barrier (an error in its own steps sends the
request down the chain, logged) and the input guard's refusal (a request line with NUL
goes down the chain). It takes the same steps as the chain, through the chain's own
instances, found below it: the key check (``TenancyMiddleware.held_key``), the kept answer
and its 304 (``AnswerCache.kept_for``, ``reply``), the rate limit's unit and headers, the
request id and log line. It reads the headers those steps need in one pass, and keeps what a
read's key decides (a well-formed publishable key, its digest, the tenant, the bucket) as the
key's ticket, and what its path and query decide (a cached route's, no NUL) as the page's
pass, each worked out once: the key's lookup, the catalogue's version, the answer's checks and
the unit run for every read, so a revoked key or a changed catalogue is never answered from a
ticket. A ticket is per key, not per key and page: a storefront's few keys read many pages,
and a ticket for each key and page would mostly be made anew. Anything else goes down the
chain untouched, before any of these took effect: a request that declares a body, one without
a key this worker holds, a miss, a rate limit that must wait for a lease or refuses.

It is the outermost layer of the served app (``companion.server.served_app``), before the
session endpoints' mount and the framework's own layers, which a kept read need not pass either.
It finds the chain's layers once the app has built its chain: as the app starts (lifespan), or
after the first request went down it (``httpx.ASGITransport`` runs no lifespan).

Off with ``CompanionSettings.chain_bypass`` (the load test measures both).
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from companion.answer_cache.middleware import AnswerCache, answer_key, reply
from companion.errors_http import LOG
from companion.input_guard import nul_in
from companion.logging_http import (
    REQUEST_ID_HEADER,
    RequestLogMiddleware,
    new_request_id,
    request_id_of,
)
from companion.ratelimit.middleware import RateLimitMiddleware, bucket_of
from companion.tenancy import SERVICE_KEY_HEADER, TenancyMiddleware, sends_secret_key
from companion.tenant import Tenant

_REQUEST_ID = REQUEST_ID_HEADER.lower().encode()


class ChainBypass:
    """Outermost layer of the served app, in front of the app whose chain it bypasses."""

    def __init__(self, app: ASGIApp, *, enabled: bool = True) -> None:
        self.app = app
        self.enabled = enabled
        #: None: the chain's layers are not found (yet), so every request goes down the chain.
        self.parts: _Steps | None = None
        self.served = 0  # requests answered here (tests, reports)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        parts = self.parts
        if parts is None or scope["type"] != "http":
            await self._down(scope, receive, send)
            return
        started = time.perf_counter()
        try:
            found = parts.kept_answer(scope)
        except Exception:  # the chain answers it, through its crash barrier if need be
            logging.getLogger(LOG).exception("chain bypass failed on %s", scope.get("path"))
            found = None
        if found is None:
            await self.app(scope, receive, send)
            return
        status, headers, body, request_id = found
        self.served += 1
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": body, "more_body": False})
        parts.log.log(scope, request_id, status, started)

    async def _down(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Down the chain while its layers are not found: they are looked for as the app
        starts, or after the request."""
        if scope["type"] == "lifespan":
            await self.app(scope, receive, self._on_start(send))
            return
        await self.app(scope, receive, send)
        if self.parts is None and self.enabled:
            self.parts = _found(self.app)

    def _on_start(self, send: Send) -> Send:
        """``send`` of the lifespan, finding the layers as the app says it started."""

        async def sending(message: Message) -> None:
            if message["type"] == "lifespan.startup.complete" and self.enabled:
                self.parts = _found(self.app)
            await send(message)

        return sending


_Parts = tuple[RequestLogMiddleware, TenancyMiddleware, RateLimitMiddleware, AnswerCache]


@dataclass(frozen=True, slots=True)
class _Ticket:
    """What a key decides, worked out on its first kept read: its digest, the tenant its lookup
    gave and its rate-limit bucket. Nothing that can change: the key is looked up, the
    catalogue's version and the answer checked and the unit spent for each request, through the
    chain's own layers."""

    digest: str
    tenant: Tenant
    bucket: str


#: Tickets kept per worker (each a valid publishable key's); past this, all go.
MAX_TICKETS = 10_000
#: Pages whose pass is kept per worker; past this, all go.
MAX_PAGES = 10_000


class _Steps:
    """The chain's layers the bypass takes its steps through, and its tickets."""

    def __init__(self, parts: _Parts) -> None:
        self.log, self.tenancy, self.limit, self.cache = parts
        self.limiter = self.limit.limiter
        self.tickets: dict[bytes, _Ticket] = {}
        #: Whether a page (path and query) passes ``_passes``, by page.
        self.pages: dict[tuple[str, bytes], bool] = {}

    def kept_answer(self, scope: Scope) -> tuple[int, list[tuple[bytes, bytes]], bytes, str] | None:
        """Status, headers, body and request id of the kept answer to ``scope``, its rate-limit
        unit spent; None: the request goes down the chain, nothing of it having taken effect."""
        if scope["method"] != "GET":
            return None
        head = _head(scope)
        if head is None:
            return None  # a body is for the chain's body limit to read
        raw_key, authorization, given_id, asked = head
        if raw_key is None:
            return None  # unkeyed: the store is the Host's, for the chain to look up
        if authorization is not None and sends_secret_key("", authorization.decode("latin-1")):
            return None
        page = (scope["path"], scope.get("query_string", b""))
        passes = self.pages.get(page)
        if passes is None:
            passes = self._passes(scope)
            if len(self.pages) >= MAX_PAGES:
                self.pages.clear()
            self.pages[page] = passes
        if not passes:
            return None
        tenancy, cache = self.tenancy, self.cache
        kept_ticket = self.tickets.get(raw_key)
        # The key's tenant as this worker holds it now (revocations taken in first): another
        # than the ticket's (the key looked up again), or none, and the ticket is worked out anew.
        if (
            kept_ticket is not None
            and tenancy.known(kept_ticket.digest, scope) is kept_ticket.tenant
        ):
            ticket: _Ticket | None = kept_ticket
        else:
            ticket = self._ticket(scope, raw_key)
        if ticket is None:
            return None
        answer = cache.kept_for(answer_key(ticket.tenant, scope), scope)
        if answer is None:
            return None
        # Counted last, and only when it needs no wait.
        limits = self.limiter.passed_at_once(ticket.bucket)
        if limits is None:
            return None
        cache.hits += 1
        if ticket is not kept_ticket:
            if len(self.tickets) >= MAX_TICKETS:
                self.tickets.clear()
            self.tickets[raw_key] = ticket
        request_id = (
            new_request_id() if given_id is None else request_id_of(given_id.decode("latin-1"))
        )
        status, kept, body = reply(answer, None if asked is None else asked.decode("latin-1"))
        headers = [*kept, *limits, (_REQUEST_ID, request_id.encode())]
        return status, headers, body, request_id

    def _passes(self, scope: Scope) -> bool:
        """Whether the page may be answered here: a cached route's, under the key check, with
        no NUL in its request line (the chain's input guard refuses those)."""
        path = scope["path"]
        return self.cache.caches(path) and self.tenancy.applies(path) and nul_in(scope) is None

    def _ticket(self, scope: Scope, raw_key: bytes) -> _Ticket | None:
        """The ticket of a key with none yet: a well-formed publishable key this worker holds;
        None: the chain answers the request."""
        key = raw_key.decode("latin-1").strip()
        tenant = self.tenancy.held_key(scope, key, "")
        digest = self.tenancy.digest(key)
        if tenant is None or digest is None:
            return None
        return _Ticket(digest, tenant, bucket_of(tenant))


#: A request's X-Service-Key, Authorization, X-Request-Id and If-None-Match as sent, the first
#: of each (None when absent).
_Head = tuple[bytes | None, bytes | None, bytes | None, bytes | None]
_KEY, _AUTHORIZATION, _IF_NONE_MATCH = (
    SERVICE_KEY_HEADER.encode(),
    b"authorization",
    b"if-none-match",
)
_BODY = frozenset((b"content-length", b"transfer-encoding"))


def _head(scope: Scope) -> _Head | None:
    """The headers the steps read, in one pass (each layer's own reading would pass over the
    headers once each); None: the request declares a body."""
    key = authorization = given_id = asked = None
    for name, value in scope["headers"]:
        if name in _BODY:
            return None
        if name == _KEY:
            key = value if key is None else key
        elif name == _AUTHORIZATION:
            authorization = value if authorization is None else authorization
        elif name == _REQUEST_ID:
            given_id = value if given_id is None else given_id
        elif name == _IF_NONE_MATCH:
            asked = value if asked is None else asked
    return key, authorization, given_id, asked


def _found(app: ASGIApp) -> _Steps | None:
    """The layers the bypass takes its steps through, under ``app``; None: one is missing."""
    parts = _layers_below(app)
    log, tenancy, limit, cache = (
        parts.get(RequestLogMiddleware),
        parts.get(TenancyMiddleware),
        parts.get(RateLimitMiddleware),
        parts.get(AnswerCache),
    )
    if (
        isinstance(log, RequestLogMiddleware)
        and isinstance(tenancy, TenancyMiddleware)
        and isinstance(limit, RateLimitMiddleware)
        and isinstance(cache, AnswerCache)
    ):
        return _Steps((log, tenancy, limit, cache))
    return None


#: Where a layer keeps the next: a middleware's ``app``, the session mount's ``api`` (the
#: session endpoints have their own log), a Starlette app's built chain.
_NEXT = ("app", "api", "middleware_stack")


def _layers_below(app: ASGIApp) -> dict[type, object]:
    """The chain's layers under ``app``, by type, down to the answer cache."""
    found: dict[type, object] = {}
    node: object = app
    while node is not None and type(node) not in found:
        found[type(node)] = node
        if isinstance(node, AnswerCache):
            break
        node = next((n for n in (getattr(node, a, None) for a in _NEXT) if n is not None), None)
    return found
