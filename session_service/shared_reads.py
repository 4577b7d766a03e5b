"""Reads many visitors make alike, sent to the API once.

Provinces, wards (per query) and payment methods carry no visitor state: their 200 answers are
kept ``seconds`` for everyone. Browsing reads without visitor state (no customer cookie, no
cart token, session token or coupon in the query) are not kept, but identical ones asked at the
same time wait for the first (coalesced): one request of the key answers them all.

Never shared: anything keyed by a cart, a login or a coupon (the caller decides, ``share_key``),
an answer that was not 200, or one that sets a cookie. A read is shared only with reads of the
very query it sends (an API may read a repeated parameter's first value, or an escaped "&",
as its own parser does). Kept answers are bounded in count and in bytes (``max_bytes``: every
ward under many spellings of its query must not fill the memory); one past the bytes is not
kept. A waiting read whose first did not
get such an answer goes on alone.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from typing import Generic, TypeVar

import anyio

from session_service.budget import Clock

#: Seconds a shared read's answer is kept by default; answers kept at most, and their bytes.
SECONDS = 300.0
MAX_KEPT = 2048
MAX_BYTES = 8 * 1024 * 1024
#: Query parameters that tie a read to one visitor: such a read is never shared.
_VISITOR_PARAMS = frozenset({"token", "cart_token", "session_token", "coupon", "coupon_code"})

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class SharedAnswer:
    status: int
    content: bytes
    headers: tuple[tuple[str, str], ...]


def share_key(
    method: str,
    path: str,
    query: str,
    names: Iterable[str],
    *,
    logged_in: bool,
    validator: str | None,
) -> str | None:
    """The key identical reads share, or None when this read must not be shared. ``query``:
    exactly as it is sent; ``names``: its parameters' names, decoded as the API reads them."""
    if method not in ("GET", "HEAD") or logged_in or any(n in _VISITOR_PARAMS for n in names):
        return None
    return f"{method} {path}?{query}\n{validator or ''}"


class _Flight(Generic[T]):
    __slots__ = ("answer", "done", "waiting")

    def __init__(self) -> None:
        self.done = anyio.Event()
        self.answer: T | None = None  # set when it may be shared
        self.waiting = 0


class SharedReads:
    def __init__(
        self,
        seconds: float = SECONDS,
        *,
        max_bytes: int = MAX_BYTES,
        clock: Clock = time.monotonic,
    ) -> None:
        self.seconds = seconds
        self.max_bytes = max_bytes
        self.clock = clock
        self._kept: OrderedDict[str, tuple[float, SharedAnswer]] = OrderedDict()
        self._bytes = 0  # of the answers kept
        self._flying: dict[str, _Flight[SharedAnswer]] = {}
        self.coalesced = 0  # reads answered by another's request
        self.kept_hits = 0  # reads answered from what was kept

    def waiting(self, key: str) -> int:
        """Reads waiting for the one in flight for ``key``."""
        flight = self._flying.get(key)
        return flight.waiting if flight else 0

    def kept(self, key: str) -> SharedAnswer | None:
        found = self._kept.get(key)
        if found is None:
            return None
        expires, answer = found
        if expires <= self.clock():
            self._forget(key)
            return None
        self.kept_hits += 1
        return answer

    async def read(
        self,
        key: str,
        fetch: Callable[[], Awaitable[SharedAnswer | T]],
        *,
        keep: bool,
    ) -> SharedAnswer | T:
        """``fetch``'s answer for ``key``, asked once for all who ask meanwhile; kept for
        ``seconds`` when ``keep`` and shareable. ``fetch`` returns anything else (a refusal,
        say) for what must not be shared."""
        if keep and (kept := self.kept(key)) is not None:
            return kept
        flight = self._flying.get(key)
        if flight is not None:
            flight.waiting += 1
            await flight.done.wait()
            if flight.answer is not None:
                self.coalesced += 1
                return flight.answer
            return await fetch()  # the first got no answer to share: this one goes alone
        flight = _Flight[SharedAnswer]()
        self._flying[key] = flight
        try:
            answer = await fetch()
            if isinstance(answer, SharedAnswer) and _shareable(answer):
                flight.answer = answer
                if keep and self.seconds > 0:
                    self._keep(key, answer)
            return answer
        finally:
            del self._flying[key]
            flight.done.set()

    def kept_bytes(self) -> int:
        return self._bytes

    def _keep(self, key: str, answer: SharedAnswer) -> None:
        size = _size(answer)
        if size > self.max_bytes:  # sent on, not kept: it would push everything else out
            return
        self._forget(key)
        self._kept[key] = (self.clock() + self.seconds, answer)
        self._bytes += size
        while len(self._kept) > MAX_KEPT or self._bytes > self.max_bytes:
            self._forget(next(iter(self._kept)))

    def _forget(self, key: str) -> None:
        found = self._kept.pop(key, None)
        if found is not None:
            self._bytes -= _size(found[1])


def _size(answer: SharedAnswer) -> int:
    return len(answer.content) + sum(len(k) + len(v) for k, v in answer.headers)


def _shareable(answer: SharedAnswer) -> bool:
    return answer.status == 200 and not any(k.lower() == "set-cookie" for k, _ in answer.headers)
