"""Threads hitting database rate limiters that stand in for two worker processes."""

from __future__ import annotations

import threading
from collections.abc import Sequence

from companion.ratelimit.database import DatabaseRateLimiter


def hammer(
    workers: Sequence[DatabaseRateLimiter], bucket: str, *, threads: int, hits: int
) -> list[bool]:
    """Whether each hit was allowed: ``threads`` shoppers, each on worker ``index % 2``, each
    hitting ``bucket`` ``hits`` times, all at once."""
    results: list[bool] = []
    lock = threading.Lock()

    def shopper(index: int) -> None:
        limiter = workers[index % len(workers)]
        for _ in range(hits):
            allowed = limiter.hit_now(bucket).allowed
            with lock:
                results.append(allowed)

    started = [threading.Thread(target=shopper, args=(i,)) for i in range(threads)]
    for thread in started:
        thread.start()
    for thread in started:
        thread.join()
    return results
