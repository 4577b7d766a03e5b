"""A rate limiter whose counts live in this process."""

from __future__ import annotations

from collections.abc import Sequence

from companion.clock import Clock, seconds_reader
from companion.ratelimit.windows import (
    RateDecision,
    RateHeaders,
    Window,
    allowed,
    decide,
    decision_headers,
    policy_text,
    window_index,
)


class InMemoryRateLimiter:
    """Counts in this process only: right for one worker (SQLite) and for tests.

    Runs on the event loop without awaiting between read and write, so no lock is needed.
    Memory holds one entry per bucket: each window's index and count, reset when it rolls.
    """

    def __init__(self, clock: Clock, windows: Sequence[Window]) -> None:
        self._seconds = seconds_reader(clock)  # epoch seconds now
        self._windows = tuple(windows)
        self._policy = policy_text(self._windows)
        #: bucket -> (window index, count) for each window of the policy, in its order
        self._counts: dict[str, list[tuple[int, int]]] = {}

    async def hit(self, bucket: str) -> RateDecision:
        return self.hit_at_once(bucket)

    def passed_at_once(self, bucket: str) -> RateHeaders | None:
        decision = self.hit_at_once(bucket)  # a refusal is not counted: ``hit`` refuses again
        return decision_headers(decision) if decision.allowed else None

    def hit_at_once(self, bucket: str) -> RateDecision:
        now_seconds = self._seconds()
        windows = self._windows
        indexes = [window_index(w, now_seconds) for w in windows]
        stored = self._counts.get(bucket)
        if stored is None:
            used = [0] * len(windows)
        else:  # a window that rolled starts again at 0
            pairs = zip(stored, indexes, strict=True)
            used = [count if at == index else 0 for (at, count), index in pairs]
        for window, count in zip(windows, used, strict=True):
            if count >= window.limit:  # refused, not counted
                return decide(windows, used, now_seconds, self._policy)
        counted = [count + 1 for count in used]
        self._counts[bucket] = list(zip(indexes, counted, strict=True))
        ends = [(index + 1) * w.seconds for index, w in zip(indexes, windows, strict=True)]
        return allowed(windows, counted, now_seconds, self._policy, ends)
