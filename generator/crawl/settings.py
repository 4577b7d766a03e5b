"""Settings of one crawl, each declared once with its default."""

from __future__ import annotations

from dataclasses import dataclass, field

from generator.errors import ConfigError
from generator.shells import SHELL_PATHS


def _builtin_paths() -> frozenset[str]:
    return frozenset({"/"}) | SHELL_PATHS


@dataclass(frozen=True, slots=True)
class CrawlSettings:
    #: Page size asked of cursor-paginated lists; a server clamps it to its own maximum.
    page_size: int = 100
    #: Page size of GET /collections, which has one page and no cursor (the spec's 200 scan).
    collections_limit: int = 200
    #: Newest products shown on the home page (first page of /products?sort=newest).
    featured_limit: int = 12
    #: Related products rendered into each product page, chosen locally from the same category
    #: (--related-products); the page asks the API for none.
    related_products: int = 4
    #: Related articles per article page, chosen locally from the same article category.
    related_articles: int = 3
    #: How many 429 answers one request may wait out before the build gives up.
    rate_limit_waits: int = 5
    #: Longest Retry-After, in seconds, the build agrees to wait; a longer one fails the build.
    max_retry_after: float = 900.0
    #: Paths the site renders by itself (home page, island shells): never sent to /routes/resolve.
    builtin_paths: frozenset[str] = field(default_factory=_builtin_paths)
    #: Detail fetches in flight at once (the client bounds requests on its own as well).
    concurrency: int = 8
    #: Items a list may hold beyond twice the rows the sitemap counts for them (products,
    #: articles, a sitemap section) before its walk is stopped as endless.
    list_margin: int = 1_000

    def __post_init__(self) -> None:
        for name in ("page_size", "collections_limit", "featured_limit", "concurrency"):
            if getattr(self, name) < 1:
                raise ConfigError(f"crawl setting {name}: need at least 1")
        if self.related_products < 0:
            raise ConfigError("crawl setting related_products: need >= 0")
        if self.list_margin < 0:
            raise ConfigError("crawl setting list_margin: need >= 0")
        if self.rate_limit_waits < 0 or self.max_retry_after < 0:
            raise ConfigError("crawl settings rate_limit_waits and max_retry_after: need >= 0")
