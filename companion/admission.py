"""A cap on the requests one worker serves at once; the rest wait their turn, holding nothing.

Why: a request takes a database connection in a worker thread (the tenancy lookup, the rate
limiter, the route's transaction), then may wait for another thread while keeping it. Let more
requests in than the pool has connections and every thread can end up blocked on the pool while
every connection belongs to a request waiting for a thread: nothing moves until the pool's
timeout fails them all. Admitting at most ``limit`` requests (the pool's steady size; its
overflow covers a request that briefly needs a second connection) rules that out. Waiting
requests cost an asyncio waiter each and are served in arrival order.

Not counted (``exempt_prefixes``, set by ``create_app``): the sandbox gateway's pages, since
completing a payment waits on the IPN, which must be admitted itself, possibly by this same
worker; and ``/health/live``, so a busy worker is not mistaken for a dead one.
"""

from __future__ import annotations

import anyio
from starlette.types import ASGIApp, Receive, Scope, Send


class AdmissionGate:
    def __init__(self, app: ASGIApp, *, limit: int, exempt_prefixes: tuple[str, ...] = ()) -> None:
        self.app = app
        self.exempt_prefixes = exempt_prefixes
        self._slots = anyio.Semaphore(limit)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("path", "").startswith(self.exempt_prefixes):
            await self.app(scope, receive, send)
            return
        async with self._slots:
            await self.app(scope, receive, send)
