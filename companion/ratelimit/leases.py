"""Units of a shared rate limit that one worker has leased, spent from memory.

A worker serving a bucket takes a lease of a few units in every window of the policy from the
shared counters (``ratelimit.database``), then lets that many requests of the bucket through
without touching the database. The shared counter holds every unit any worker leased, and a lease
is granted only while it fits under the limit, so all workers together never let more than the
limit through. Units still unspent when their window ends expire with it.

The price of leasing is on the other side: near the limit, a worker may still hold units of its
last full lease while another worker, with none left, already refuses. If no more requests come
to the first worker in that window, its units go unused, so a key can get up to one lease per
worker fewer requests than its limit in a window (24 of 1,200 a minute per worker), never more.

What a worker reports (``RateLimit-Remaining``) is its own view: the shared count it saw when it
last leased (which includes the other workers' leases, spent or not), less its own unspent units.
With one worker that is exact.

``LeaseBook`` is the bookkeeping only, called on the worker's event loop alone (a lease's
statement may run in a thread, but its result is kept on the loop), so it takes no lock.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from companion.ratelimit.windows import (
    LIMIT,
    POLICY,
    REMAINING,
    RESET,
    RateDecision,
    RateHeaders,
    Window,
    WindowState,
    policy_text,
    tightest,
    window_index,
)

#: A lease is at most this share of the tightest limit (1/50: 12 units of 600 per minute) ...
LEASE_SHARE = 50
#: ... and at most this many units.
MAX_LEASE = 32
#: Buckets remembered per worker; past this, leases of ended windows are dropped.
MAX_BUCKETS = 10_000
#: ``RateLimit-Reset`` values made once (a day's seconds); a longer window's are formatted.
MAX_RESET_TABLE = 86_400


def lease_size(windows: Sequence[Window]) -> int:
    """Units a worker leases at once: a small share of the tightest limit, at least one.

    Small limits (tests, strict policies) lease one unit at a time: every request is counted in
    the database as it comes, exactly as without leases."""
    tightest = min((w.limit for w in windows), default=1)
    return max(1, min(MAX_LEASE, tightest // LEASE_SHARE))


@dataclass(slots=True)
class Lease:
    #: Epoch seconds from the latest start of the windows its units belong to, to the earliest
    #: end: while those windows are current, so is the lease.
    start: int
    end: int
    ends: tuple[int, ...]  # when each window's span ends (``end`` is the earliest)
    left: int  # units not spent yet
    shared: tuple[int, ...]  # the shared counts when last leased, every worker's units included
    #: Whether spending its last unit asks for the next lease (``LeaseBook.emptied``).
    ahead: bool = False
    spent: bool = False  # whether a unit of it was spent
    #: The window that stays tightest while the lease lasts (``tighten``): the units left are
    #: the same in every window's remaining.
    tight: int = 0
    #: The tightest window's end and ``RateLimit-Limit``, and ``RateLimit-Remaining`` by units
    #: left, made as the lease is granted (a few dozen at once) rather than at each request.
    tight_end: int = 0
    limit_header: bytes = b""
    remaining_headers: tuple[bytes, ...] = ()

    def tighten(self, windows: Sequence[Window]) -> None:
        """Work out the tightest window and its headers once, for every unit of the lease."""
        rooms = [w.limit - s for w, s in zip(windows, self.shared, strict=True)]
        self.tight = tight = tightest(rooms, self.ends)
        room = rooms[tight]  # its limit less its shared count
        self.tight_end = self.ends[tight]
        self.limit_header = b"%d" % windows[tight].limit
        # Counted with the request spending a unit: the shared count, less the units this
        # worker still holds after it.
        self.remaining_headers = tuple(b"%d" % max(0, room + left) for left in range(self.left))


class LeaseBook:
    def __init__(self, windows: Sequence[Window], *, low: int = 0) -> None:
        """``low``: a lease that asks for the next one is running low with this many units
        left (0: never said)."""
        self.windows = tuple(windows)
        self.policy = policy_text(self.windows)
        # The headers that stay as units are spent, made once
        self._policy_header = self.policy.encode()
        #: ``RateLimit-Reset`` by seconds, made once: a kept read runs with the processor's
        #: caches cold, where formatting a number costs more than finding it.
        longest = min(MAX_RESET_TABLE, max((w.seconds for w in self.windows), default=0))
        self._reset_headers = tuple(b"%d" % s for s in range(longest + 1))
        self.low = low
        self._leases: dict[str, Lease] = {}
        #: Buckets whose lease asked for the next one as its last unit was spent; the limiter
        #: takes them (``take_emptied``) and leases again before their next request.
        self.emptied: list[str] = []
        #: Buckets whose lease came down to ``low`` units (``take_running_low``).
        self._running_low: set[str] = set()

    def indexes(self, now_seconds: float) -> tuple[int, ...]:
        return tuple(window_index(w, now_seconds) for w in self.windows)

    def _span(self, indexes: Sequence[int]) -> tuple[int, tuple[int, ...]]:
        """``Lease.start`` and ``Lease.ends`` of the windows ``indexes``."""
        pairs = list(zip(indexes, self.windows, strict=True))
        return max(i * w.seconds for i, w in pairs), tuple((i + 1) * w.seconds for i, w in pairs)

    def spend(self, bucket: str, now_seconds: float) -> RateDecision | None:
        """Let one request through on a unit leased earlier; None when there is none left."""
        headers = self.spend_headers(bucket, now_seconds)
        if headers is None:
            return None
        _, (_, remaining), (_, reset), _ = headers  # the decision its headers tell
        window = self.windows[self._leases[bucket].tight]
        return RateDecision(True, WindowState(window, int(remaining), int(reset)), 0, self.policy)

    def spend_headers(self, bucket: str, now_seconds: float) -> RateHeaders | None:
        """``spend``, saying only the answer's rate-limit headers (``decision_headers`` of its
        decision): what a kept read needs, made without the decision's objects or another
        call, as it runs with the caches cold, where each of those costs."""
        lease = self._leases.get(bucket)
        if lease is None or lease.left <= 0 or not lease.start <= now_seconds < lease.end:
            return None
        left = lease.left = lease.left - 1
        lease.spent = True
        if left == 0 and lease.ahead:
            lease.ahead = False
            self.emptied.append(bucket)
        elif left == self.low and lease.ahead:
            self._running_low.add(bucket)
        # ceil(end - now) for a whole-second end; at least 1, as now is before the lease's end
        reset = lease.tight_end - int(now_seconds)
        resets = self._reset_headers
        return [
            (LIMIT, lease.limit_header),
            (REMAINING, lease.remaining_headers[left]),
            (RESET, resets[reset] if reset < len(resets) else b"%d" % reset),
            (POLICY, self._policy_header),
        ]

    def grant(
        self,
        bucket: str,
        indexes: tuple[int, ...],
        units: int,
        shared: Sequence[int],
        *,
        ahead: bool = False,
    ) -> None:
        """Add ``units`` leased in the windows ``indexes``; ``shared``: the counts after it;
        ``ahead``: spending the last unit asks for the next lease."""
        lease = self._leases.get(bucket)
        start, ends = self._span(indexes)
        end = min(ends)
        if lease is not None and (lease.start, lease.end) == (start, end):
            lease.left += units
            lease.shared = tuple(max(a, b) for a, b in zip(lease.shared, shared, strict=True))
            lease.ahead = ahead
            lease.tighten(self.windows)
            return
        if len(self._leases) >= MAX_BUCKETS:
            self._forget_ended((start, end))
        lease = Lease(start, end, ends, units, tuple(shared), ahead)
        lease.tighten(self.windows)
        self._leases[bucket] = lease

    def spent_until(self, end: int) -> list[str]:
        """The buckets whose lease ended at ``end`` (epoch seconds), a unit of it spent."""
        return [b for b, lease in self._leases.items() if lease.end == end and lease.spent]

    def take_emptied(self) -> list[str]:
        emptied, self.emptied = self.emptied, []
        return emptied

    def take_running_low(self) -> set[str]:
        """The buckets whose lease came down to ``low`` units since the last call."""
        low, self._running_low = self._running_low, set()
        return low

    def unspent(self, bucket: str, now_seconds: float) -> int:
        """Units of the current windows this worker holds for ``bucket`` (for tests, reports)."""
        lease = self._leases.get(bucket)
        current = lease is not None and lease.start <= now_seconds < lease.end
        return lease.left if lease is not None and current else 0

    def _forget_ended(self, current: tuple[int, int]) -> None:
        ended = [b for b, lease in self._leases.items() if (lease.start, lease.end) != current]
        for bucket in ended or list(self._leases)[: MAX_BUCKETS // 10]:
            del self._leases[bucket]
