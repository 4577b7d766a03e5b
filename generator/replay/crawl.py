"""A build's crawl: the crawl's phases (``crawl.catalog.gather``) through the replay layer.

    crawl(client, cache=...) -> Catalog

After a stop, a first pass replays every kept answer and asks only what the cache lacks
(``resume``); the crawl then runs as always, asking what moved and replaying the rest
(``fetch``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from generator.crawl.catalog import gather
from generator.crawl.observer import CrawlObserver, NullCrawlObserver
from generator.crawl.settings import CrawlSettings
from generator.model import Catalog
from generator.replay.cache import CrawlCache
from generator.replay.events import EventScope
from generator.replay.fetch import Fetcher
from generator.replay.resume import continue_first

if TYPE_CHECKING:  # the client brings httpx, which a crawl from the cache alone never needs
    from generator.client.api import ApiClient


async def crawl(
    client: ApiClient | None,
    *,
    observer: CrawlObserver | None = None,
    settings: CrawlSettings | None = None,
    cache: CrawlCache | None = None,
    on_walk_started: Callable[[], None] | None = None,
    scope: EventScope | None = None,
) -> Catalog:
    """The catalog. With ``cache`` unchanged details come from the last crawl (see
    ``replay.cache``); ``client`` None replays the last crawl from ``cache`` alone.
    ``on_walk_started``: see ``gather``. ``scope``: the content-change events that started
    this rebuild (``events``)."""
    settings = settings or CrawlSettings()
    observer = observer or NullCrawlObserver()
    fresh: frozenset[str] = frozenset()
    asks_everything = client is not None and (cache is None or cache.blank)
    if client is not None and cache is not None and cache.resumed:
        fresh = await continue_first(
            lambda fetcher, quiet: gather(
                fetcher,
                quiet,
                on_walk_started=on_walk_started,
                asks_everything=asks_everything,
            ),
            Fetcher(client, settings, cache=cache, replay_kept=True),
            observer,
        )
    fetcher = Fetcher(client, settings, cache=cache, scope=scope, fresh=fresh)
    return await gather(
        fetcher, observer, on_walk_started=on_walk_started, asks_everything=asks_everything
    )
