"""The served-from-memory path: a catalogue read the answer cache can answer, served in one
coroutine in front of the application.

Such a read (a GET of a cached route, with a key this worker knows and a free admission slot)
would pass the whole middleware chain only to be answered from memory. The front door does the
same steps with the same objects, the chain's own middleware instances: the request id and log
line (``logging_http``), the admission slot (``admission``), the key check (``tenancy``), the
rate limit and its headers (``ratelimit.middleware``), the kept answer with its 304
(``answer_cache.middleware``), then sends the answer directly, without entering Starlette and
FastAPI.

Anything else is declined before any of it takes effect and goes down the chain as before: a
request with no key or one not known yet, a miss, a worker with no free slot (it may queue or
refuse with 503), NUL in the request line, a body past the limit or of no declared length
(the chain's body limit decides on it). The one wait taken here is a new rate-limit lease (a
database write, once per lease): the kept answer is checked again after it, and if it changed
meanwhile the request is read as the chain reads it after its rate limit.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from fastapi import FastAPI
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from companion.admission import AdmissionGate
from companion.answer_cache.middleware import Answer, AnswerCache, reply
from companion.errors_http import CrashBarrier
from companion.input_guard import nul_in
from companion.keys.material import SECRET_PREFIX
from companion.logging_http import RequestLogMiddleware, new_request_id, request_id_of
from companion.ratelimit.middleware import (
    RateLimitMiddleware,
    bucket_of,
    rate_limit_header_pairs,
    refusal,
    with_limits,
)
from companion.ratelimit.windows import RateDecision
from companion.tenancy import SERVICE_KEY_HEADER, TenancyMiddleware
from companion.tenant import Tenant
from session_service.body_limit import BodyLimit

_KEY = SERVICE_KEY_HEADER.encode()
_AUTHORIZATION = b"authorization"
_SECRET = SECRET_PREFIX.encode()
_REQUEST_ID = b"x-request-id"
_IF_NONE_MATCH = b"if-none-match"
_CONTENT_LENGTH = b"content-length"
_TRANSFER_ENCODING = b"transfer-encoding"
#: Paths whose ``_learn`` answer is kept (all are forgotten past it).
MAX_PATHS = 20_000


@dataclass(slots=True)
class _Admitted:
    """A request the front door may answer from memory, holding an admission slot."""

    started: float  # time.perf_counter() when it came in
    tenant: Tenant
    where: tuple[int, str, bytes]  # the answer cache's key
    answer: Answer
    condition: str | None  # its If-None-Match
    request_id: str


class FrontDoor:
    def __init__(
        self,
        log: RequestLogMiddleware,
        gate: AdmissionGate,
        tenancy: TenancyMiddleware,
        limit: RateLimitMiddleware,
        cache: AnswerCache,
        app: ASGIApp,
        max_body: int = 0,
    ) -> None:
        self.log = log
        self.gate = gate
        self.tenancy = tenancy
        self.limiter = limit.limiter
        self.below_limit = limit.app
        self.cache = cache
        self.app = app  # the application (``scope["app"]``, as Starlette sets it)
        self.max_body = max_body  # the chain's body limit (bytes): a larger one goes there
        self.served = 0  # requests answered here (tests, reports)
        self.served_at_once = 0  # of them, answered by ``answer_now``
        self._paths: dict[str, bool] = {}  # path -> whether it may be served here (``_learn``)

    @classmethod
    def of(cls, stack: ASGIApp, app: ASGIApp) -> FrontDoor | None:
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
        body = found.get(BodyLimit)
        max_body = body.max_bytes if isinstance(body, BodyLimit) else 0
        return cls(log, gate, tenancy, limit, cache, app, max_body)

    def _admit(self, scope: Scope) -> _Admitted | None:
        """The checks before anything takes effect, then an admission slot: None when the
        request is not one to serve here (it was left untouched)."""
        started = time.perf_counter()
        path: str = scope["path"]
        served = self._paths.get(path)
        if served is None:
            served = self._learn(path)
        if not served or scope["method"] != "GET" or nul_in(scope) is not None:
            return None  # not a cached route's, or the input guard's 422
        cache = self.cache
        key = given = asked = None
        for name, value in scope["headers"]:
            if name == _KEY:
                key = value if key is None else key
            elif name == _REQUEST_ID:
                given = value if given is None else given
            elif name == _IF_NONE_MATCH:
                asked = value if asked is None else asked
            elif name == _AUTHORIZATION and _SECRET in value:
                return None  # a secret key: the chain's key check refuses it
            elif name == _TRANSFER_ENCODING:
                return None  # a body of no declared length: the chain's body limit reads it
            elif name == _CONTENT_LENGTH and (not value.isdigit() or int(value) > self.max_body):
                return None  # a body past the limit: the chain's body limit refuses it
        if key is None or cache.version() is None:  # polls the feed (SQLite: revocations too)
            return None
        tenant = self.tenancy.known_sent(key)
        if tenant is None or not self.gate.enter_now():
            return None
        where = (tenant.store_id, path, scope.get("query_string", b""))
        answer = cache.kept(where)
        if answer is None:
            self.gate.leave()
            return None
        request_id = new_request_id() if given is None else request_id_of(given.decode("latin-1"))
        condition = None if asked is None else asked.decode("latin-1")
        return _Admitted(started, tenant, where, answer, condition, request_id)

    def _learn(self, path: str) -> bool:
        """Whether a GET of ``path`` may be served here: a cached route's, behind the key check,
        taking an admission slot. Kept per path: a store's catalogue has a few per product."""
        if len(self._paths) >= MAX_PATHS:
            self._paths.clear()
        served = self._paths[path] = (
            self.cache.caches(path) and self.tenancy.applies(path) and self.gate.counts(path)
        )
        return served

    def answer_now(self, scope: Scope) -> tuple[int, list[tuple[bytes, bytes]], bytes] | None:
        """The whole answer (status, headers, body) when it needs no wait: a kept answer and a
        unit of this worker's rate-limit lease; logged, its slot given back. None: nothing
        was done, the request goes to the application (``__call__`` serves it there)."""
        admitted = self._admit(scope)
        if admitted is None:
            return None
        decision = self.limiter.hit_at_once(bucket_of(admitted.tenant))
        if decision is None or not decision.allowed:  # a lease to take, or a refusal to send
            self.gate.leave()
            return None
        self.served += 1
        self.served_at_once += 1
        try:
            status, headers, body = self._kept(admitted, decision)
        finally:
            self.gate.leave()
        self.log.log(scope, admitted.request_id, status, admitted.started)
        return status, [*headers, (_REQUEST_ID, admitted.request_id.encode("latin-1"))], body

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> bool:
        """Answer the request if it is served from memory; False: it was left untouched."""
        admitted = self._admit(scope)
        if admitted is None:
            return False
        self.served += 1
        id_header = (_REQUEST_ID, admitted.request_id.encode("latin-1"))
        status = 500

        async def with_id(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = int(message["status"])
                message["headers"] = [*message["headers"], id_header]
            await send(message)

        async def serve(scope: Scope, receive: Receive, send: Send) -> None:
            cache, where = self.cache, admitted.where
            bucket = bucket_of(admitted.tenant)
            decision = self.limiter.hit_at_once(bucket)
            if decision is None:  # a new lease: a database write
                decision = await self.limiter.hit(bucket)
                if decision.allowed and (
                    cache.version() is None or cache.kept(where) is None
                ):  # it changed meanwhile: read, as below the chain's rate limit
                    request_id, tenant = admitted.request_id, admitted.tenant
                    await self._read(scope, receive, send, tenant, request_id, decision)
                    return
            if decision.allowed:
                code, headers, body = self._kept(admitted, decision)
                await send({"type": "http.response.start", "status": code, "headers": headers})
                await send({"type": "http.response.body", "body": body, "more_body": False})
            else:
                await refusal(decision)(scope, receive, send)

        try:
            # The chain's crash barrier around it all: a lease's write may meet a database
            # that cannot answer (503), as the chain's rate limit would.
            await CrashBarrier(serve)(scope, receive, with_id)
        finally:
            self.gate.leave()
            self.log.log(scope, admitted.request_id, status, admitted.started)
        return True

    def _kept(
        self, admitted: _Admitted, decision: RateDecision
    ) -> tuple[int, list[tuple[bytes, bytes]], bytes]:
        """The kept answer, the rate limit's headers on it."""
        self.cache.hits += 1
        status, headers, body = reply(admitted.answer, admitted.condition)
        return status, [*headers, *rate_limit_header_pairs(decision)], body

    async def _read(
        self,
        scope: Scope,
        receive: Receive,
        send: Send,
        tenant: Tenant,
        request_id: str,
        decision: RateDecision,
    ) -> None:
        """What the chain does after the rate limit let the request through (the request line
        and key were checked here)."""
        scope["app"] = self.app
        state = scope.setdefault("state", {})
        state["request_id"], state["tenant"] = request_id, tenant
        below = self.below_limit

        await below(scope, receive, with_limits(send, decision))


class CompanionApp(FastAPI):
    """The companion's application: the front door first, then FastAPI and its middleware."""

    #: Off: every request goes down the middleware chain (tests compare the two paths).
    serve_from_memory = True
    #: Seconds a connection may take to send a request's head (``companion.header_deadline``).
    header_timeout: float | None = None
    _door: FrontDoor | None = None
    _door_looked = False

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["method"] == "GET" and self.serve_from_memory:
            door = self.front_door
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
        self._door = FrontDoor.of(self.middleware_stack, self)
        self._door_looked = True
        return self._door
