"""A first crawl continued after a stop: what is still missing is asked first.

A crawl that stopped (``--max-requests``, ``--deadline``, an interrupt, a kill) kept every
answer it had received (``cache.recover_partial``). Continuing as any crawl does, it would walk
every list again before asking what is missing, and a second stop meanwhile would lose that
walk: each stop would cost a walk of the lists. So a continued crawl makes a first pass that
replays every kept answer as it is, whatever its version, and asks only what the cache lacks
(the details the kept lists name, the list pages never reached), each kept as it arrives. Then
the crawl runs as always, its lists walked once, at its end, and they decide: what moved since
is asked again, what the lists no longer show is not rendered. The lists the first pass had to
ask are not asked twice: that pass is as recent as any walk.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from generator.crawl.observer import CrawlObserver
from generator.errors import ApiStatusError, RateLimited
from generator.model import Catalog, Skip
from generator.replay.fetch import Fetcher

#: How the progress display names a phase of the first pass.
SUFFIX = " (continued)"


class _FirstPass:
    """The progress of the first pass, its phases named apart; its skips are not reported (the
    pass that follows reports what it skips)."""

    def __init__(self, observer: CrawlObserver) -> None:
        self._observer = observer

    def phase_started(self, phase: str, total: int | None) -> None:
        self._observer.phase_started(phase + SUFFIX, total)

    def item_done(self, phase: str) -> None:
        self._observer.item_done(phase + SUFFIX)

    def skipped(self, skip: Skip) -> None:
        return None

    def requests_expected(self, total: int) -> None:
        return None


async def continue_first(
    gather: Callable[[Fetcher, CrawlObserver], Awaitable[Catalog]],
    fetcher: Fetcher,
    observer: CrawlObserver,
) -> frozenset[str]:
    """Run the crawl's pass ``gather`` through ``fetcher`` (which replays what is kept) and
    forget its catalog; the keys it asked."""
    try:
        await gather(fetcher, _FirstPass(observer))
    except ApiStatusError as exc:
        # An answer kept before the stop that no longer holds (a cursor expired since): the
        # pass that follows asks afresh and reports what still fails.
        if isinstance(exc, RateLimited):
            raise
    return frozenset(fetcher.asked)
