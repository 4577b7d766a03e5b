"""A rate limiter whose counts live in this process."""

from __future__ import annotations

from collections.abc import Sequence

from companion.clock import Clock, seconds_reader
from companion.ratelimit.windows import RateDecision, Window, decide, policy_text, window_index


class InMemoryRateLimiter:
    """Counts in this process only: right for one worker (SQLite) and for tests.

    Runs on the event loop without awaiting between read and write, so no lock is needed.
    Memory holds one counter per bucket and window; a counter is reused when its window rolls.
    """

    def __init__(self, clock: Clock, windows: Sequence[Window]) -> None:
        self._seconds = seconds_reader(clock)  # epoch seconds now
        self._windows = tuple(windows)
        self._policy = policy_text(self._windows)
        self._counts: dict[tuple[str, int], tuple[int, int]] = {}  # -> (window index, count)

    async def hit(self, bucket: str) -> RateDecision:
        return self.hit_at_once(bucket)

    def hit_at_once(self, bucket: str) -> RateDecision:
        now_seconds = self._seconds()
        indexes = [window_index(w, now_seconds) for w in self._windows]
        used = [
            self._used(bucket, w, index) for w, index in zip(self._windows, indexes, strict=True)
        ]
        decision = decide(self._windows, used, now_seconds, self._policy)
        if decision.allowed:
            for w, index, count in zip(self._windows, indexes, used, strict=True):
                self._counts[(bucket, w.seconds)] = (index, count + 1)
        return decision

    def _used(self, bucket: str, window: Window, index: int) -> int:
        stored_index, count = self._counts.get((bucket, window.seconds), (index, 0))
        return count if stored_index == index else 0
