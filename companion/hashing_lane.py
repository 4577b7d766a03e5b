"""The hashing lane: password hashing (register, login, password change) a few at a time.

Why a lane: an argon2 hash takes tens of milliseconds of a core and 64 MiB. Let every login in
and a burst of them (300 at 45 at a time) fills every admission slot of the worker, and a
shopper's cart write waits behind them until it is answered 503. So at most ``size`` requests
that hash are served at once per worker; each holds one admission slot while it is served, and
the others of the gate stay free for carts and checkouts (``create_app`` keeps the lane
smaller than the gate).

Why outside the gate: a request waits for the lane before it reaches the admission gate
(``create_app`` puts the lane in front of it), so a waiting login holds neither a slot nor a
database connection; only an asyncio event. The hash itself runs in the route's worker thread,
never on the event loop.

Why a bound: a request that finds the lane full waits at most ``wait`` seconds, then is
answered at once with 503 and ``Retry-After`` (problem JSON, code ``overloaded``, as the gate
answers); nothing of it has run.

Why per client: one client (the address ``companion.clients`` gives) may have at most
``per_client`` such requests in the lane or waiting for it in this worker; one more is answered
429 at once. A single address cannot fill the lane and keep everyone else's logins out.
"""

from __future__ import annotations

from collections import Counter, deque
from dataclasses import dataclass, field

import anyio
from starlette.types import ASGIApp, Receive, Scope, Send

from companion.admission import RETRY_AFTER, overloaded
from companion.clients import client_address
from companion.errors_http import problem_response
from companion.logging_http import note_refusal
from companion.problems import too_many_requests

#: Paths (under each API prefix) whose POST hashes a password.
HASHING_PATHS = ("/customer/register", "/customer/login", "/customer/me/password")
#: The back office's (companion.routes.admin): staff login, a new password, a new account.
ADMIN_HASHING_PATHS = ("/admin/login", "/admin/password/new", "/admin/staff")


def hashing_paths(*prefixes: str) -> frozenset[str]:
    under = (prefix + path for prefix in prefixes for path in HASHING_PATHS)
    return frozenset((*under, *ADMIN_HASHING_PATHS))


@dataclass(eq=False, slots=True)
class _Waiter:
    admitted: anyio.Event = field(default_factory=anyio.Event)


class Lane:
    """The turns of one worker's lane, its waiting requests and each client's share; kept on
    ``app.state.hashing_lane``. Used on the event loop only."""

    def __init__(self, *, size: int, wait: float, per_client: int) -> None:
        self.wait = wait
        self.per_client = per_client
        self._free = size
        self._waiting: deque[_Waiter] = deque()
        self._clients: Counter[str] = Counter()

    @property
    def waiting(self) -> int:
        return len(self._waiting)

    def join(self, client: str) -> bool:
        """Count a request of ``client`` in its share; False when the share is in use (an
        unknown address, from no socket, has no share to count against)."""
        if client and self._clients[client] >= self.per_client:
            return False
        self._clients[client] += 1
        return True

    def part(self, client: str) -> None:
        self._clients[client] -= 1
        if not self._clients[client]:
            del self._clients[client]

    async def enter(self) -> str | None:
        """Take a turn, after waiting for one if need be; or say why the request is refused."""
        if self._free > 0:  # a free turn means nobody waits: a leaving request hands its on
            self._free -= 1
            return None
        waiter = _Waiter()
        self._waiting.append(waiter)
        try:
            with anyio.move_on_after(self.wait):
                await waiter.admitted.wait()
        except BaseException:  # cancelled while waiting: give back a turn handed over meanwhile
            if waiter.admitted.is_set():
                self.leave()
            else:
                self._waiting.remove(waiter)
            raise
        if waiter.admitted.is_set():
            return None
        self._waiting.remove(waiter)
        return f"no turn within {self.wait:g} s"

    def leave(self) -> None:
        """Hand the turn to the first waiting request."""
        if self._waiting:
            self._waiting.popleft().admitted.set()
        else:
            self._free += 1


class HashingLane:
    """The middleware: POSTs to ``paths`` go through ``lane``; everything else passes."""

    def __init__(self, app: ASGIApp, *, lane: Lane, paths: frozenset[str]) -> None:
        self.app = app
        self.lane = lane
        self.paths = paths

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if (
            scope["type"] != "http"
            or scope["method"] != "POST"
            or scope.get("path", "") not in self.paths
        ):
            await self.app(scope, receive, send)
            return
        lane, client = self.lane, client_address(scope)
        if not lane.join(client):
            note_refusal(scope, "hashing: this client's share is in use")
            detail = "this client's logins are still being served; retry after 1 s"
            await problem_response(too_many_requests(RETRY_AFTER, detail))(scope, receive, send)
            return
        try:
            why = await lane.enter()
            if why is not None:
                note_refusal(scope, f"hashing lane full ({why})")
                problem = overloaded(scope["method"], scope["path"], RETRY_AFTER, why)
                await problem_response(problem)(scope, receive, send)
                return
            try:
                await self.app(scope, receive, send)
            finally:
                lane.leave()
        finally:
            lane.part(client)
