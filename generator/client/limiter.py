"""The client-side rate limiter: keeps one key inside every rate window, and out of 429 windows.

Does: hold each request back until sending it keeps every window (``limit`` requests per
``seconds``, a sliding log per window) under its limit, and until a shared "blocked until"
instant set after a 429 has passed. Waiters queue in arrival order behind one lock, so the
limiter paces traffic at the allowed rate instead of bursting and stalling.

Does NOT: send anything, retry, or decide to wait after a 429 (it only honours the instant it
is given). It counts attempts, whatever their outcome.

Why completion times: the server counts a request when it receives it, somewhere between our
send and our receipt of the answer. Logging the *completion* instant (and counting requests
still in flight as inside every window) means our log never shows fewer requests in a window
than the server sees, so pacing at exactly the limit still yields no 429 - while costing only
one round trip of slack per window.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass

import anyio

from generator.client.observer import ClientObserver
from generator.client.stats import ClientStats
from generator.client.timing import Timer
from generator.errors import ConfigError

#: Added to every computed wait so a request lands strictly after the instant that frees it.
_MARGIN = 0.001


@dataclass(frozen=True, slots=True)
class RateWindow:
    """At most ``limit`` requests in any ``seconds``-long interval."""

    limit: int
    seconds: float

    def __post_init__(self) -> None:
        if self.limit < 1 or not self.seconds > 0:
            raise ConfigError(
                f"rate window {self.limit}/{self.seconds:g} s: need at least 1 request "
                "in a window longer than 0 s"
            )


class RateLimiter:
    def __init__(
        self,
        windows: Sequence[RateWindow],
        timer: Timer,
        *,
        observer: ClientObserver,
        stats: ClientStats,
    ) -> None:
        self._windows = tuple(windows)
        self._logs: tuple[deque[float], ...] = tuple(deque() for _ in self._windows)
        self._timer = timer
        self._observer = observer
        self._stats = stats
        self._in_flight = 0
        self._blocked_until = -math.inf
        self._lock = anyio.Lock()
        #: When each request this limiter let through ended (timer instants), in order.
        self.sent: list[float] = []

    @property
    def windows(self) -> tuple[RateWindow, ...]:
        return self._windows

    def now(self) -> float:
        """The limiter's timer now."""
        return self._timer.now()

    def seed(self, ended: Sequence[float]) -> None:
        """Count requests sent before this limiter existed (by earlier builds of the same key,
        ``request_log``), given as the timer instants they ended at, oldest first."""
        for log in self._logs:
            merged = sorted([*ended, *log])
            log.clear()
            log.extend(merged)

    def used(self, window: RateWindow) -> int:
        """Requests counted in ``window`` now: logged inside it (seeded ones too) and in flight."""
        log = self._logs[self._windows.index(window)]
        _forget_before(log, self._timer.now() - window.seconds)
        return len(log) + self._in_flight

    @property
    def blocked_until(self) -> float:
        """The timer instant before which nothing is sent (after a 429); -inf when none."""
        return self._blocked_until

    def block_until(self, instant: float) -> None:
        """Send nothing before ``instant``; an earlier instant than the current one is ignored."""
        self._blocked_until = max(self._blocked_until, instant)

    def block_for(self, seconds: float) -> None:
        self.block_until(self._timer.now() + seconds)

    def time_for(self, count: int) -> float:
        """About the least time ``count`` more requests take under the windows from now: what
        each window has room for goes at once, the rest at the window's rate."""
        longest = 0.0
        for window in self._windows:
            beyond = count - max(0, window.limit - self.used(window))
            if beyond > 0:
                longest = max(longest, beyond / window.limit * window.seconds)
        return longest

    @asynccontextmanager
    async def slot(self) -> AsyncIterator[None]:
        """Wait for a free slot, hold it for one request, and log the request when it ends."""
        await self._acquire()
        try:
            yield
        finally:
            self._release()

    async def _acquire(self) -> None:
        async with self._lock:
            while True:
                now = self._timer.now()
                if now < self._blocked_until:
                    wait = self._blocked_until - now + _MARGIN
                    self._stats.retry_after_wait_seconds += wait
                    self._observer.waiting(wait, "retry-after")
                else:
                    wait = self._window_wait(now)
                    if wait <= 0:
                        break
                    wait += _MARGIN
                    self._stats.limiter_wait_seconds += wait
                    self._observer.waiting(wait, "rate limit")
                await self._timer.sleep(wait)
            self._in_flight += 1

    def _window_wait(self, now: float) -> float:
        """Seconds until every window has room for one more request (0: send now)."""
        longest = 0.0
        for window, log in zip(self._windows, self._logs, strict=True):
            _forget_before(log, now - window.seconds)
            used = len(log) + self._in_flight
            if used < window.limit:
                continue
            expiring = used - window.limit  # this many logged requests must leave, plus one
            if expiring < len(log):
                wait = log[expiring] + window.seconds - now
            else:
                # Requests in flight alone fill the window: look again after one slot's time.
                wait = window.seconds / window.limit
            longest = max(longest, wait)
        return longest

    def _release(self) -> None:
        self._in_flight -= 1
        finished = self._timer.now()
        self.sent.append(finished)
        for log in self._logs:
            log.append(finished)


def _forget_before(log: deque[float], cutoff: float) -> None:
    """Drop the requests that ended at or before ``cutoff`` (the log is in order)."""
    while log and log[0] <= cutoff:
        log.popleft()
