"""Database rate limiters standing in for two worker processes, hit all at once."""

from __future__ import annotations

import threading
from collections.abc import Sequence

import anyio

from companion.ratelimit.database import DatabaseRateLimiter


def hammer(
    workers: Sequence[DatabaseRateLimiter], bucket: str, *, threads: int, hits: int
) -> list[bool]:
    """Whether each hit was allowed: ``threads`` shoppers, each on worker ``index % 2``, each
    hitting ``bucket`` ``hits`` times, all at once. Each worker runs its own event loop on a
    thread of its own, as a worker process does; its leases are written in threads of the
    loop's, so the workers' statements meet in the database."""
    results: list[bool] = []
    lock = threading.Lock()
    start = threading.Barrier(len(workers))

    def worker(index: int) -> None:
        limiter = workers[index]
        shoppers = range(index, threads, len(workers))

        async def shopper() -> None:
            for _ in range(hits):
                allowed = (await limiter.hit(bucket)).allowed
                with lock:
                    results.append(allowed)

        async def all_shoppers() -> None:
            async with anyio.create_task_group() as group:
                for _ in shoppers:
                    group.start_soon(shopper)

        start.wait()
        anyio.run(all_shoppers)

    started = [threading.Thread(target=worker, args=(i,)) for i in range(len(workers))]
    for thread in started:
        thread.start()
    for thread in started:
        thread.join()
    return results
