"""Admission: a cap on the requests one worker serves at once, reads first, a bounded queue.

Why a cap: a request takes a database connection in a worker thread (the tenancy lookup, the
rate limiter, the route's transaction), then may wait for another thread while keeping it. Let
more requests in than the pool has connections and every thread can end up blocked on the pool
while every connection belongs to a request waiting for a thread: nothing moves until the pool's
timeout fails them all. Admitting at most ``limit`` requests (at most the pool's steady size;
its overflow covers a request that briefly needs a second connection) rules that out.

Why reads first: when the worker is saturated, the requests beyond the cap wait, and the ones
that read (GET, HEAD: the catalogue a shopper browses, a quote) are let in before those that
write (a cart update, an order), each kind in arrival order. A page view stays fast; a write
waits a little longer, and never holds a page view up.

Why a bound: a request that would wait behind ``queue`` others, or has waited ``max_wait``
seconds, is answered at once with 503 and ``Retry-After`` (problem JSON, code ``overloaded``)
rather than after a wait the shopper would not sit through; nothing of it has run, so it can be
sent again as it was. Waiting requests cost an asyncio event each.

Never refused (``patient_prefixes``): the payment gateway's notifications (IPN). They wait for
a slot like any read, however long the queue: a refused one would leave a paid order unpaid
until the gateway tries again.

Password hashing (register, login, password change) waits for its own lane in front of this
gate (``companion.hashing_lane``): a login waiting to hash holds no slot, and those hashing hold
fewer slots than there are.

Not counted (``exempt_prefixes``, set by ``create_app``): the sandbox gateway's pages, since
completing a payment waits on the IPN, which must be admitted itself, possibly by this same
worker; and ``/health/live``, so a busy worker is not mistaken for a dead one.
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass, field

import anyio
from starlette.types import ASGIApp, Receive, Scope, Send

from companion.errors_http import problem_response
from companion.problems import Problem, service_unavailable

READ_METHODS = frozenset({"GET", "HEAD"})
#: Seconds a refused client is asked to wait: a saturated worker clears its queue within one.
RETRY_AFTER = 1


def overloaded(method: str, path: str, retry_after: int, why: str) -> Problem:
    return service_unavailable(
        "overloaded",
        retry_after,
        f"{method} {path[:200]}: the server is busy ({why}); retry after {retry_after} s",
    )


@dataclass(eq=False, slots=True)
class _Waiter:
    admitted: anyio.Event = field(default_factory=anyio.Event)


class AdmissionGate:
    def __init__(
        self,
        app: ASGIApp,
        *,
        limit: int,
        queue: int,
        max_wait: float,
        exempt_prefixes: tuple[str, ...] = (),
        patient_prefixes: tuple[str, ...] = (),
    ) -> None:
        self.app = app
        self.exempt_prefixes = exempt_prefixes
        self.patient_prefixes = patient_prefixes
        self.queue = queue
        self.max_wait = max_wait
        self._free = limit
        self._reads: deque[_Waiter] = deque()
        self._writes: deque[_Waiter] = deque()

    @property
    def waiting(self) -> int:
        return len(self._reads) + len(self._writes)

    def counts(self, path: str) -> bool:
        """Whether a request for ``path`` needs a slot."""
        return not path.startswith(self.exempt_prefixes)

    def enter_now(self) -> bool:
        """Take a free slot if there is one (nobody waits then); False: the request must wait
        or be refused (``__call__``)."""
        if self._free > 0:
            self._free -= 1
            return True
        return False

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not self.counts(scope.get("path", "")):
            await self.app(scope, receive, send)
            return
        patient = scope["path"].startswith(self.patient_prefixes)
        why = await self._enter(scope["method"] in READ_METHODS, patient=patient)
        if why is not None:
            problem = overloaded(scope["method"], scope["path"], RETRY_AFTER, why)
            await problem_response(problem)(scope, receive, send)
            return
        try:
            await self.app(scope, receive, send)
        finally:
            self.leave()

    async def _enter(self, read: bool, *, patient: bool = False) -> str | None:
        """Take a slot, after waiting for one if need be; or say why the request is refused."""
        if self.enter_now():  # a free slot means nobody waits: a leaving request hands its on
            return None
        if self.waiting >= self.queue and not patient:
            return f"{self.waiting} requests already waiting"
        waiter = _Waiter()
        line = self._reads if read else self._writes
        line.append(waiter)
        try:
            with anyio.move_on_after(math.inf if patient else self.max_wait):
                await waiter.admitted.wait()
        except BaseException:  # cancelled while waiting: give back a slot handed over meanwhile
            if waiter.admitted.is_set():
                self.leave()
            else:
                line.remove(waiter)
            raise
        if waiter.admitted.is_set():
            return None
        line.remove(waiter)
        return f"no slot within {self.max_wait:g} s"

    def leave(self) -> None:
        """Hand the slot to the first waiting read, else the first waiting write."""
        line = self._reads or self._writes
        if line:
            line.popleft().admitted.set()
        else:
            self._free += 1
