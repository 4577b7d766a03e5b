"""The hook a progress display implements to follow a crawl, and the crawl's skip log.

The crawl calls the observer synchronously from its tasks; methods must be quick and must not
raise. ``NullCrawlObserver`` (the default) does nothing. Request-level events (each request,
each wait, each retry) come from the client's own ``ClientObserver``; this one sees phases.
"""

from __future__ import annotations

from typing import Protocol

from generator.model import Skip


class CrawlObserver(Protocol):
    def phase_started(self, phase: str, total: int | None) -> None:
        """A phase begins; ``total`` items to go when known (None: not known yet)."""
        ...

    def item_done(self, phase: str) -> None:
        """One item of ``phase`` is fetched (or skipped)."""
        ...

    def skipped(self, skip: Skip) -> None:
        """Something will not be rendered, and why (also listed in ``Catalog.skipped``)."""
        ...

    def requests_expected(self, total: int) -> None:
        """About how many requests the whole crawl asks (told when it can be estimated)."""
        ...


class NullCrawlObserver:
    def phase_started(self, phase: str, total: int | None) -> None:
        return None

    def item_done(self, phase: str) -> None:
        return None

    def skipped(self, skip: Skip) -> None:
        return None

    def requests_expected(self, total: int) -> None:
        return None


class SkipLog:
    """Collects the skips of one crawl in the order they happen, telling the observer."""

    def __init__(self, observer: CrawlObserver) -> None:
        self._observer = observer
        self._skips: list[Skip] = []

    def add(self, what: str, reason: str) -> None:
        skip = Skip(what=what, reason=reason)
        self._skips.append(skip)
        self._observer.skipped(skip)

    def all(self) -> tuple[Skip, ...]:
        return tuple(self._skips)
