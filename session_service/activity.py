"""Activity calls (views, banner clicks, error reports): answered at once, forwarded later.

The islands' activity never competes with buying: each such POST is answered 202 at once and
put in a bounded queue in memory, forwarded one at a time when the key's budget has room for
activity (what buying and browsing spare, ``KeyBudget``). An item is dropped when it is older
than ``max_age`` seconds, when the queue is over ``max_items`` or its bodies over
``max_bytes`` (the oldest go: many clients' bodies near the largest must not fill the memory),
or when buying needs the key (it spends its reserve). The counts go to the log (a JSON line at most
every ``log_every`` seconds, and when the service stops) and to /session/health.

The queue's task starts with the first item, on the loop that item came in on, and ends when
the queue is empty: the session app is mounted in apps whose lifespan it never sees.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from session_service.budget import Clock, KeyBudget
from session_service.lanes import Lane

#: Defaults: items queued at most, their bodies' bytes at most (64 full batches of error
#: reports), their longest wait in seconds, seconds between log lines.
MAX_ITEMS = 1000
MAX_BYTES = 16 * 1024 * 1024
MAX_AGE = 60.0
LOG_EVERY = 60.0
#: Longest sleep while the budget has no room: the queue looks again (ages, buying's need).
_NAP = 1.0


@dataclass(frozen=True, slots=True)
class ActivityLimits:
    max_items: int = MAX_ITEMS
    max_age: float = MAX_AGE
    log_every: float = LOG_EVERY
    max_bytes: int = MAX_BYTES


@dataclass(slots=True)
class Activity:
    """One activity request, to be sent as it came. It holds only its own request's cookies
    and headers (the platform's rule: no visitor's state reaches another's request), and only
    until it is sent or dropped."""

    send: Callable[[], Awaitable[tuple[int, dict[str, str]]]]  # status and headers of the answer
    #: The bytes it holds (its body), counted against the queue's ``max_bytes``.
    size: int = 0
    queued_at: float = 0.0


@dataclass(slots=True)
class ActivityCounts:
    forwarded: int = 0
    dropped_old: int = 0
    dropped_full: int = 0
    dropped_for_buying: int = 0
    failed: int = 0

    def dropped(self) -> int:
        return self.dropped_old + self.dropped_full + self.dropped_for_buying + self.failed


@dataclass(slots=True)
class ActivityQueue:
    budget: KeyBudget
    limits: ActivityLimits = field(default_factory=ActivityLimits)
    logger: logging.Logger | None = None
    clock: Clock = time.monotonic
    items: deque[Activity] = field(default_factory=deque)
    counts: ActivityCounts = field(default_factory=ActivityCounts)
    _task: asyncio.Task[None] | None = None
    _logged_at: float | None = None
    _logged: tuple[int, int] = (0, 0)
    _bytes: int = 0

    def put(self, item: Activity) -> None:
        item.queued_at = self.clock()
        self.items.append(item)
        self._bytes += item.size
        limits = self.limits
        while self.items and (len(self.items) > limits.max_items or self._bytes > limits.max_bytes):
            self._pop()
            self.counts.dropped_full += 1
        if self.items:
            self._draining()

    def queued_bytes(self) -> int:
        return self._bytes

    def _pop(self) -> Activity:
        item = self.items.popleft()
        self._bytes -= item.size
        return item

    def draining(self) -> bool:
        """Whether the queue's task is running (it ends when the queue is empty)."""
        return self._task is not None and not self._task.done()

    def _draining(self) -> None:
        loop = asyncio.get_running_loop()
        task = self._task
        if task is None or task.done() or task.get_loop() is not loop:
            self._task = loop.create_task(self._drain())

    async def _drain(self) -> None:
        try:
            while self.items:
                await self._step()
        finally:
            self.log_counts(final=False)

    async def _step(self) -> None:
        oldest = self.clock() - self.limits.max_age
        while self.items and self.items[0].queued_at < oldest:
            self._pop()
            self.counts.dropped_old += 1
        if not self.items:
            return
        if self.budget.buying_needs():
            self.counts.dropped_for_buying += len(self.items)
            self.items.clear()
            self._bytes = 0
            return
        if self.budget.take(Lane.ACTIVITY) is not None:
            await asyncio.sleep(min(_NAP, max(0.01, self.budget.wait(Lane.ACTIVITY))))
            return
        item = self._pop()
        try:
            status, headers = await item.send()
        except Exception:  # an API that cannot be reached: the item is lost, not the queue
            self.counts.failed += 1
            return
        self.budget.note_answer(status, headers)
        self.counts.forwarded += 1
        self.log_counts(final=False)

    def log_counts(self, *, final: bool) -> None:
        """A JSON line with the counts: at most every ``log_every`` seconds, only when they
        changed (``final``: when the service stops, always)."""
        if self.logger is None:
            return
        now = self.clock()
        moved = (self.counts.forwarded, self.counts.dropped())
        recent = self._logged_at is not None and now - self._logged_at < self.limits.log_every
        if not final and (recent or moved == self._logged):
            return
        self._logged_at, self._logged = now, moved
        self.logger.info(json.dumps({"event": "session_activity", **self.figures()}))

    def figures(self) -> dict[str, object]:
        counts = self.counts
        return {
            "queued": len(self.items),
            "queued_bytes": self._bytes,
            "forwarded": counts.forwarded,
            "dropped": counts.dropped(),
            "dropped_why": {
                "too_old": counts.dropped_old,
                "queue_full": counts.dropped_full,
                "buying": counts.dropped_for_buying,
                "api_unreachable": counts.failed,
            },
        }
