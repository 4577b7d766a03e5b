"""Rate limits: fixed windows aligned to the epoch, counted per bucket.

A bucket is one publishable key, or one store for unkeyed traffic (all unkeyed requests to a
store share it). Every window of the policy must have room for a request to pass; a refused
request is not counted, so a client that waits ``retry_after`` seconds gets through.

The arithmetic is pure (``decide``); where the counts live is behind ``RateLimiter``: in this
process (``ratelimit.memory``) or in the database, shared by several worker processes
(``ratelimit.database``), without the middleware (``ratelimit.middleware``) knowing which.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True, slots=True)
class Window:
    """At most ``limit`` requests in each ``seconds``-long window (windows start at the epoch)."""

    seconds: int
    limit: int


@dataclass(frozen=True, slots=True)
class WindowState:
    window: Window
    remaining: int  # requests left in the current window, after this one
    reset_seconds: int  # whole seconds until the current window ends (at least 1)


@dataclass(frozen=True, slots=True)
class RateDecision:
    allowed: bool
    #: The window that constrains the client most: fewest requests left, then the latest reset.
    tightest: WindowState
    #: Seconds to wait before retrying; 0 when the request was allowed.
    retry_after: int
    windows: tuple[WindowState, ...]


class RateLimiter(Protocol):
    """Counts one request against a bucket and says whether it may pass."""

    async def hit(self, bucket: str) -> RateDecision: ...

    def hit_at_once(self, bucket: str) -> RateDecision | None:
        """``hit`` when it needs no wait (no database, no lock); None: call ``hit``."""


def window_index(window: Window, now_seconds: float) -> int:
    return math.floor(now_seconds / window.seconds)


def seconds_to_reset(window: Window, now_seconds: float) -> int:
    end = (window_index(window, now_seconds) + 1) * window.seconds
    return max(1, math.ceil(end - now_seconds))


def decide(windows: Sequence[Window], used: Sequence[int], now_seconds: float) -> RateDecision:
    """The decision for one more request, given the requests already counted in each window."""
    exhausted = [u >= w.limit for w, u in zip(windows, used, strict=True)]
    allowed = not any(exhausted)
    counted = [u + 1 if allowed else u for u in used]
    states = tuple(
        WindowState(w, max(0, w.limit - c), seconds_to_reset(w, now_seconds))
        for w, c in zip(windows, counted, strict=True)
    )
    tightest = min(states, key=lambda s: (s.remaining, -s.reset_seconds))
    full = [s.reset_seconds for s, is_full in zip(states, exhausted, strict=True) if is_full]
    retry_after = max(full, default=0)
    return RateDecision(allowed, tightest, retry_after, states)
