"""The filters phase: GET /filters?category=<id> for every category page (display only).

One request a category, kept in the crawl cache while the category's products are unchanged.
The answer only says which facets a category offers: an implementation without the endpoint,
or one that fails or answers something unreadable, leaves the category without a
configuration (a Skip), and the facets then come from its products. Nothing here stops a build.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence

from generator.crawl.ask import Api, absent_as_none, gather_limited
from generator.crawl.observer import CrawlObserver, SkipLog
from generator.crawl.versions import digest
from generator.crawl.wire_values import money
from generator.errors import ApiPayloadError, ApiStatusError, RateLimited
from generator.model import CategoryPage, FilterConfig


def filter_config(data: object) -> FilterConfig:
    """The answer of /filters, leniently: entries of an unexpected shape are left out."""
    record = data if isinstance(data, Mapping) else {}
    brands = [
        str(brand["name"]).strip()
        for brand in _list(record.get("brands"))
        if isinstance(brand, Mapping) and isinstance(brand.get("name"), str | int)
    ]
    attributes: dict[str, list[str]] = {}
    for attribute in _list(record.get("attributes")):
        if not isinstance(attribute, Mapping) or not isinstance(attribute.get("name"), str):
            continue
        values = [str(v) for v in _list(attribute.get("values")) if isinstance(v, str | int)]
        attributes.setdefault(attribute["name"], []).extend(values)
    ranges: list[tuple[int | None, int | None]] = []
    for price_range in _list(record.get("price_ranges")):
        if not isinstance(price_range, Mapping):
            continue
        try:
            low = money(price_range.get("min"), "min")
            high = money(price_range.get("max"), "max")
        except ValueError:  # an amount it cannot read: that range is left out
            continue
        if (low, high) != (None, None) and (low is None or high is None or low < high):
            ranges.append((low, high))
    return FilterConfig(
        brands=tuple(dict.fromkeys(b for b in brands if b)),
        attributes=tuple(
            (name, tuple(dict.fromkeys(values))) for name, values in attributes.items()
        ),
        price_ranges=tuple(dict.fromkeys(ranges)),
    )


def _list(value: object) -> Sequence[object]:
    return value if isinstance(value, list) else ()


async def category_filters(
    api: Api,
    pages: Sequence[CategoryPage],
    *,
    cards: Mapping[int, str],
    skips: SkipLog,
    observer: CrawlObserver,
) -> list[CategoryPage]:
    """``pages``, each with the filters its category is configured with (or None).
    ``cards``: every card's version, which the answer is kept with."""
    observer.phase_started("filters", len(pages))
    absent = False

    async def with_filters(page: CategoryPage) -> CategoryPage:
        nonlocal absent
        config: FilterConfig | None = None
        if not absent:
            version = digest(
                "filters", page.category.id, *[f"{c.id}:{cards.get(c.id)}" for c in page.products]
            )
            try:
                config = await absent_as_none(
                    api.one(
                        "/filters", filter_config, {"category": page.category.id}, version=version
                    )
                )
            except RateLimited:
                raise
            except (ApiStatusError, ApiPayloadError) as exc:
                skips.add(f"filters of category {page.category.id}", str(exc))
            else:
                if config is None:  # not offered: no need to ask for the others
                    absent = True
                    skips.add("filters (/filters)", "the API does not offer it (404)")
        observer.item_done("filters")
        return dataclasses.replace(page, filters=config)

    if not pages:
        return []
    # The first alone: an implementation without the endpoint is asked once.
    first = await with_filters(pages[0])
    rest = await gather_limited(list(pages[1:]), with_filters, limit=api.settings.concurrency)
    return [first, *rest]
