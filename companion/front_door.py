"""The served-from-memory path: a catalogue read the answer cache can answer, served in one
coroutine in front of the application.

Such a read (a GET of a cached route, with a key this worker knows, a free admission slot and a
rate-limit unit already leased) would pass the whole middleware chain only to be answered from
memory. The front door does the same steps with the same objects, the chain's own middleware
instances: the request id and log line (``logging_http``), the admission slot
(``admission``), the key check (``tenancy``), the rate limit and its headers
(``ratelimit.middleware``), the kept answer with its 304 (``answer_cache.middleware``), then
sends the answer directly, without entering Starlette and FastAPI and without a thread.

Anything else is declined before any of it takes effect and goes down the chain as before: a
request with no key or one not known yet, a miss, a worker with no free slot (it may queue or
refuse with 503), a lease to renew (a database write), NUL in the request line. Nothing is
awaited between the decision and the send, so what was checked still holds when it is sent.
"""

from __future__ import annotations

import time

from fastapi import FastAPI
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from companion.admission import AdmissionGate
from companion.answer_cache.middleware import AnswerCache, reply
from companion.logging_http import RequestLogMiddleware, request_id_of
from companion.ratelimit.middleware import (
    RateLimitMiddleware,
    bucket_of,
    rate_limit_headers,
    refusal,
)
from companion.ratelimit.windows import RateDecision
from companion.tenancy import SERVICE_KEY_HEADER, TenancyMiddleware

_KEY = SERVICE_KEY_HEADER.encode()
_REQUEST_ID = b"x-request-id"
_IF_NONE_MATCH = b"if-none-match"


def header_pairs(headers: dict[str, str]) -> list[tuple[bytes, bytes]]:
    """Headers as the chain's middlewares append them (``MutableHeaders``): names lower case."""
    return [(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in headers.items()]


class FrontDoor:
    def __init__(
        self,
        log: RequestLogMiddleware,
        gate: AdmissionGate,
        tenancy: TenancyMiddleware,
        limit: RateLimitMiddleware,
        cache: AnswerCache,
    ) -> None:
        self.log = log
        self.gate = gate
        self.tenancy = tenancy
        self.limiter = limit.limiter
        self.cache = cache
        self.served = 0  # requests answered here (tests, reports)

    @classmethod
    def of(cls, stack: ASGIApp) -> FrontDoor | None:
        """The front door of a middleware chain (its instances, found by walking it); None
        when one of them is missing."""
        found: dict[type, object] = {}
        node: object = stack
        while node is not None:
            found.setdefault(type(node), node)
            node = getattr(node, "app", None)
        parts = (RequestLogMiddleware, AdmissionGate, TenancyMiddleware, RateLimitMiddleware)
        if not all(part in found for part in (*parts, AnswerCache)):
            return None
        log, gate, tenancy, limit = (found[part] for part in parts)
        cache = found[AnswerCache]
        assert isinstance(log, RequestLogMiddleware) and isinstance(gate, AdmissionGate)
        assert isinstance(tenancy, TenancyMiddleware) and isinstance(cache, AnswerCache)
        assert isinstance(limit, RateLimitMiddleware)
        return cls(log, gate, tenancy, limit, cache)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> bool:
        """Answer the request if it is served from memory; False: it was left untouched."""
        started = time.perf_counter()
        cache = self.cache
        if not cache.cacheable(scope):
            return False
        path: str = scope["path"]
        query: bytes = scope.get("query_string", b"")
        if "\x00" in path or b"%00" in query or b"\x00" in query:
            return False  # the input guard's 422
        if not self.tenancy.applies(path) or not self.gate.counts(path):
            return False
        key = given = asked = None
        for name, value in scope["headers"]:
            if name == _KEY:
                key = value if key is None else key
            elif name == _REQUEST_ID:
                given = value if given is None else given
            elif name == _IF_NONE_MATCH:
                asked = value if asked is None else asked
        if key is None:
            return False
        tenant = self.tenancy.known_key(key.decode("latin-1").strip())
        if tenant is None or not self.gate.enter_now():
            return False
        decision: RateDecision | None = None
        answer = None
        if cache.version() is not None:
            answer = cache.kept((tenant.store_id, path, query), cache.clock.now())
            if answer is not None:
                decision = self.limiter.hit_at_once(bucket_of(tenant))
        if answer is None or decision is None:
            self.gate.leave()
            return False
        self.served += 1
        request_id = request_id_of("" if given is None else given.decode("latin-1"))
        id_header = (_REQUEST_ID, request_id.encode("latin-1"))
        condition = None if asked is None else asked.decode("latin-1")
        status = 500
        try:
            limits = rate_limit_headers(decision)
            if decision.allowed:
                cache.hits += 1
                status, headers, body = reply(answer, condition)
                start = [*headers, *header_pairs(limits), id_header]
                await send({"type": "http.response.start", "status": status, "headers": start})
                await send({"type": "http.response.body", "body": body, "more_body": False})
            else:
                status = 429

                async def with_id(message: Message) -> None:
                    if message["type"] == "http.response.start":
                        message["headers"] = [*message["headers"], id_header]
                    await send(message)

                await refusal(decision, limits)(scope, receive, with_id)
        finally:
            self.gate.leave()
            self.log.log(scope, request_id, status, started)
        return True


class CompanionApp(FastAPI):
    """The companion's application: the front door first, then FastAPI and its middleware."""

    #: Off: every request goes down the middleware chain (tests compare the two paths).
    serve_from_memory = True
    _door: FrontDoor | None = None
    _door_looked = False

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["method"] == "GET" and self.serve_from_memory:
            door = self._door if self._door_looked else self.front_door
            if door is not None and await door(scope, receive, send):
                return
        await super().__call__(scope, receive, send)

    @property
    def front_door(self) -> FrontDoor | None:
        """The front door, made with the middleware chain the first time it is asked for."""
        if self._door_looked:
            return self._door
        if self.middleware_stack is None:
            self.middleware_stack = self.build_middleware_stack()
        self._door = FrontDoor.of(self.middleware_stack)
        self._door_looked = True
        return self._door
