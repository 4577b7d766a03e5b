"""The publishable key's budget, as this process spends it.

The API counts requests per key (the spec: 600 a minute, 20,000 an hour), not per visitor, so
what this process may send is the key's limits times its share (one worker of several, one
instance of several: each is given its part). ``KeyBudget`` counts what this process sent in
the last minute and the last hour (sliding: never more than the limit in any span of the
window, however the API's own windows fall) and keeps a reserve of each window for buying:
browsing stops short of it, activity stops short of twice it (what buying and browsing spare).
An API answer of 429 (unless it says the key has requests left: a visitor's throttled login),
or one saying no request is left, marks the key spent until its reset.
A request the budget refuses is never sent: the caller answers 429 itself, spending nothing.
"""

from __future__ import annotations

import math
import time
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from session_service.lanes import Lane

#: A monotonic clock in seconds (tests pass a fake one).
Clock = Callable[[], float]
#: The spec's limits of one key.
PER_MINUTE = 600
PER_HOUR = 20_000
#: Share of each window kept for buying by default.
RESERVE = 0.25
#: Codes of the refusals: buying (or a shared read a checkout needs), and browsing.
KEY_SPENT = "key_budget_spent"
BUSY = "busy"
#: Longest wait an API's header may impose (a wrong header must not stop the store for long).
_MAX_WAIT = 3600


@dataclass(frozen=True, slots=True)
class BudgetLimits:
    #: The key's requests a minute and an hour (None: not limited here).
    per_minute: int | None = PER_MINUTE
    per_hour: int | None = PER_HOUR
    #: This process's part of the key (1 / workers; less when several instances share it).
    share: float = 1.0
    #: Fraction of each window that only buying may spend.
    reserve: float = RESERVE


@dataclass(frozen=True, slots=True)
class Refusal:
    code: str
    #: Whole seconds until the window has room (at least 1).
    retry_after: int
    detail: str


class _Window:
    """Requests sent in the last ``seconds``, and how many of them the lanes may reach."""

    __slots__ = ("limit", "reserve", "seconds", "sent")

    def __init__(self, seconds: int, limit: int, reserve: float) -> None:
        self.seconds = seconds
        self.limit = limit
        self.reserve = math.floor(limit * reserve)
        self.sent: deque[float] = deque()

    def used(self, now: float) -> int:
        start = now - self.seconds
        while self.sent and self.sent[0] <= start:
            self.sent.popleft()
        return len(self.sent)

    def ceiling(self, lane: Lane) -> int:
        if lane is Lane.BROWSING:
            return self.limit - self.reserve
        if lane is Lane.ACTIVITY:
            return self.limit - 2 * self.reserve
        return self.limit

    def wait(self, lane: Lane, now: float) -> float:
        """Seconds until ``lane`` may send one more (0: now)."""
        used, ceiling = self.used(now), self.ceiling(lane)
        if used < ceiling:
            return 0.0
        if ceiling <= 0:
            return float(self.seconds)
        # The oldest sends that must leave the window before one more fits under the ceiling.
        return self.sent[used - ceiling] + self.seconds - now


class KeyBudget:
    def __init__(self, limits: BudgetLimits, *, clock: Clock = time.monotonic) -> None:
        self.limits = limits
        self.clock = clock
        self.windows = tuple(
            _Window(seconds, max(1, math.floor(limit * limits.share)), limits.reserve)
            for seconds, limit in ((60, limits.per_minute), (3600, limits.per_hour))
            if limit is not None
        )
        self.spent_until = 0.0  # the API said the key is spent until then

    def take(self, lane: Lane) -> Refusal | None:
        """Spend one request of ``lane`` if the budget has room; else why not, and how long."""
        wait = self.wait(lane)
        if wait > 0:
            seconds = max(1, math.ceil(wait))
            if lane is Lane.BROWSING:
                return Refusal(BUSY, seconds, f"the store is busy; retry after {seconds} s")
            detail = f"the store's API key is spent for now; retry after {seconds} s"
            return Refusal(KEY_SPENT, seconds, detail)
        now = self.clock()
        for window in self.windows:
            window.sent.append(now)
        return None

    def wait(self, lane: Lane) -> float:
        """Seconds until ``lane`` may send (0: now)."""
        now = self.clock()
        waits = [window.wait(lane, now) for window in self.windows]
        return max([self.spent_until - now, 0.0, *waits])

    def buying_needs(self) -> bool:
        """Whether buying is spending its reserve (or the API said the key is spent): then
        activity waiting for the key is dropped."""
        return self.wait(Lane.BROWSING) > 0

    def note_answer(
        self, status: int, headers: Mapping[str, str], *, per_client: bool = False
    ) -> None:
        """An API answer: a 429, or no request left, marks the key spent until it resets. A 429
        saying the key has requests left is about the visitor (a throttled login), not the key;
        so is one without the key's figures to a request the API also limits per client
        (``per_client``: a login's password hash, refused in front of the key's count)."""
        remaining = _seconds(headers.get("ratelimit-remaining"))
        about_visitor = remaining is not None or per_client
        if remaining != 0 and (status != 429 or about_visitor):
            return
        wait = _seconds(headers.get("retry-after")) or _seconds(headers.get("ratelimit-reset"))
        if status == 429 and not wait:
            wait = 60
        if wait:
            until = self.clock() + min(wait, _MAX_WAIT)
            self.spent_until = max(self.spent_until, until)

    def figures(self) -> dict[str, object]:
        """What is left, for /session/health."""
        now = self.clock()
        figures: dict[str, object] = {"share": self.limits.share}
        for window in self.windows:
            name = "minute" if window.seconds == 60 else "hour"
            figures[name] = {
                "limit": window.limit,
                "left": max(0, window.limit - window.used(now)),
                "reserve": window.reserve,
            }
        figures["spent_for"] = max(0, math.ceil(self.spent_until - now))
        return figures


def _seconds(value: str | None) -> int | None:
    if value is None:
        return None
    try:
        return max(0, int(value.strip()))
    except ValueError:
        return None
