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


# This and ``RateDecision`` are not frozen, as no code changes them: a frozen dataclass's
# ``__init__`` sets each field through ``object.__setattr__``, and every request let through
# makes one of each.
@dataclass(slots=True)
class WindowState:
    window: Window
    remaining: int  # requests left in the current window, after this one
    reset_seconds: int  # whole seconds until the current window ends (at least 1)


@dataclass(slots=True)
class RateDecision:
    allowed: bool
    #: The window that constrains the client most: fewest requests left, then the latest reset.
    tightest: WindowState
    #: Seconds to wait before retrying; 0 when the request was allowed.
    retry_after: int
    #: Every window of the policy, as the ``RateLimit-Policy`` header says it (``policy_text``).
    policy: str


#: An answer's rate-limit headers, raw (names in lower case, as ``MutableHeaders`` adds them):
#: the tightest window's limit, the requests left in it and the seconds until it resets, and
#: every window (``policy_text``).
RateHeaders = list[tuple[bytes, bytes]]
LIMIT, REMAINING, RESET, POLICY = (
    b"ratelimit-limit",
    b"ratelimit-remaining",
    b"ratelimit-reset",
    b"ratelimit-policy",
)


class RateLimiter(Protocol):
    """Counts one request against a bucket and says whether it may pass."""

    async def hit(self, bucket: str) -> RateDecision: ...

    def passed_at_once(self, bucket: str) -> RateHeaders | None:
        """Let one request through when that needs no wait (no database, no lock): its
        answer's rate-limit headers; None: ``hit`` decides (it may wait, or refuse)."""


def decision_headers(decision: RateDecision) -> RateHeaders:
    """The rate-limit headers of an answer to a request ``decision`` was made for."""
    tight = decision.tightest
    return [
        (LIMIT, b"%d" % tight.window.limit),
        (REMAINING, b"%d" % tight.remaining),
        (RESET, b"%d" % tight.reset_seconds),
        (POLICY, decision.policy.encode()),
    ]


def policy_text(windows: Sequence[Window]) -> str:
    """``600;w=60, 20000;w=3600``: every window (a limiter makes it once)."""
    return ", ".join(f"{w.limit};w={w.seconds}" for w in windows)


def window_index(window: Window, now_seconds: float) -> int:
    return math.floor(now_seconds / window.seconds)


def seconds_to_reset(window: Window, now_seconds: float) -> int:
    end = (window_index(window, now_seconds) + 1) * window.seconds
    return max(1, math.ceil(end - now_seconds))


def decide(
    windows: Sequence[Window], used: Sequence[int], now_seconds: float, policy: str
) -> RateDecision:
    """The decision for one more request, given the requests already counted in each window
    (``policy``: ``policy_text(windows)``)."""
    exhausted = [u >= w.limit for w, u in zip(windows, used, strict=True)]
    if not any(exhausted):
        return allowed(windows, [u + 1 for u in used], now_seconds, policy)
    states = tuple(
        WindowState(w, max(0, w.limit - u), seconds_to_reset(w, now_seconds))
        for w, u in zip(windows, used, strict=True)
    )
    tight = min(states, key=lambda s: (s.remaining, -s.reset_seconds))
    full = [s.reset_seconds for s, is_full in zip(states, exhausted, strict=True) if is_full]
    return RateDecision(False, tight, max(full), policy)


def allowed(
    windows: Sequence[Window],
    counted: Sequence[int],
    now_seconds: float,
    policy: str,
    ends: Sequence[int] | None = None,
) -> RateDecision:
    """The decision letting a request through, ``counted`` requests in each window with it
    (``ends``: when each window's current span ends, if the caller knows)."""
    if ends is None:
        ends = [(window_index(w, now_seconds) + 1) * w.seconds for w in windows]
    rooms = [w.limit - count for w, count in zip(windows, counted, strict=True)]
    at = tightest(rooms, ends)
    state = WindowState(windows[at], max(0, rooms[at]), max(1, math.ceil(ends[at] - now_seconds)))
    return RateDecision(True, state, 0, policy)


def tightest(rooms: Sequence[int], ends: Sequence[int]) -> int:
    """Which window constrains a request most, given each one's requests left and the end of
    its current span: the fewest left, then the latest reset (the latest end, as every end is
    after now); the first of equals."""
    return min(range(len(rooms)), key=lambda at: (rooms[at], -ends[at]))
