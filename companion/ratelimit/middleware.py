"""The rate limit on the wire: a 429 problem when a bucket is full, and headers on every answer.

Headers (on every answer of a request that has a tenant, including errors and the 429):
- ``RateLimit-Limit``: the request quota of the tightest window;
- ``RateLimit-Remaining``: requests left in that window;
- ``RateLimit-Reset``: seconds until that window resets;
- ``RateLimit-Policy``: every window, e.g. ``600;w=60, 20000;w=3600``.
A refused request gets 429 with ``Retry-After`` (seconds) and ``retry_after`` in the body.

Runs after the tenancy middleware: the bucket is the key, or the store for unkeyed traffic.
"""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from companion.errors_http import problem_response
from companion.problems import Problem, too_many_requests
from companion.ratelimit.windows import RateDecision, RateHeaders, RateLimiter, decision_headers
from companion.tenant import Tenant


def bucket_of(tenant: Tenant) -> str:
    """One bucket per key; all unkeyed traffic to a store shares the store's bucket."""
    if tenant.key_id is not None:
        return key_bucket(tenant.key_id)
    return f"store:{tenant.store_id}"


def key_bucket(key_id: int) -> str:
    """A key's bucket, publishable or secret (keys of both kinds are rows of one table)."""
    return f"key:{key_id}"


def rate_limit_headers(decision: RateDecision) -> dict[str, str]:
    tight = decision.tightest
    return {
        "RateLimit-Limit": str(tight.window.limit),
        "RateLimit-Remaining": str(tight.remaining),
        "RateLimit-Reset": str(tight.reset_seconds),
        "RateLimit-Policy": decision.policy,
    }


def refused_problem(decision: RateDecision) -> Problem:
    """The 429 problem of a refused request, its rate-limit headers on it."""
    tight = decision.tightest
    problem = too_many_requests(
        decision.retry_after,
        f"rate limit of {tight.window.limit} requests per {tight.window.seconds} s reached; "
        f"retry after {decision.retry_after} s",
    )
    problem.headers.update(rate_limit_headers(decision))
    return problem


def refusal(decision: RateDecision) -> ASGIApp:
    """The 429 answer of a refused request."""
    return problem_response(refused_problem(decision))


def with_limits(send: Send, pairs: RateHeaders) -> Send:
    """``send`` putting an allowed request's rate-limit headers on its answer."""

    async def send_with_headers(message: Message) -> None:
        if message["type"] == "http.response.start":
            # Appended: the answers inside never carry these headers themselves.
            message["headers"] = [*message.get("headers", ()), *pairs]
        await send(message)

    return send_with_headers


class RateLimitMiddleware:
    def __init__(self, app: ASGIApp, *, limiter: RateLimiter) -> None:
        self.app = app
        self.limiter = limiter

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        tenant = scope.get("state", {}).get("tenant") if scope["type"] == "http" else None
        if not isinstance(tenant, Tenant):
            await self.app(scope, receive, send)
            return
        bucket = bucket_of(tenant)
        pairs = self.limiter.passed_at_once(bucket)
        if pairs is None:  # awaited only when the limiter must wait, or refuses
            decision = await self.limiter.hit(bucket)
            if not decision.allowed:
                await refusal(decision)(scope, receive, send)
                return
            pairs = decision_headers(decision)
        await self.app(scope, receive, with_limits(send, pairs))
