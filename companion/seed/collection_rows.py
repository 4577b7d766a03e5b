"""Collections of the demo store: 230 from 230 products up, so the spec's 200-collection scan
matters; a smaller store has one a product (at least 24, so that each kind below is there). A
store with fewer collections has the first of them, the same ones in the same order.

A collection has no url column; its page lives only at a custom path. Most collections get one
("/bo-suu-tap/<slug>"), the featured "Khuyến mãi hè" gets SUMMER_SALE_PATH, and every eighth
has none (the sitemap counts it but serves no path). A few are hidden. The last collections, past
the first 200 of the listing order (position, id), keep their paths: a client that resolves a
path and then looks the collection up in the first 200 misses them.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from companion.seed.images import demo_image
from companion.seed.paths import SUMMER_SALE_PATH, collection_path
from companion.seed.product_rows import ProductFacts
from companion.seed.slugs import slugify
from companion.seed.timeline import edited_after, moment_in_history
from companion.seed.vocabulary import (
    COLLECTION_FEATURED,
    COLLECTION_SEASONS,
    COLLECTION_THEMES,
)

COLLECTION_COUNT = 230
#: The fewest a store may have: the summer sale, two featured in the menu, one more.
FEWEST_COLLECTIONS = 4
#: The fewest a small store gets: past a hidden one (17th) and three without a path.
SMALL_STORE_COLLECTIONS = 24
#: Positions (0-based, in listing order) of hidden collections, all before the 200th.
HIDDEN = frozenset({17, 60, 111, 190})
#: Every PATHLESS_EVERY-th collection (from the sixth) has no custom path.
PATHLESS_EVERY = 8
SUMMER_SALE_SIZE = 24


@dataclass(frozen=True, slots=True)
class CollectionDraft:
    row: dict[str, Any]
    path: str | None


def collections_for(products: int) -> int:
    """How many collections a demo store of ``products`` has."""
    return min(COLLECTION_COUNT, max(SMALL_STORE_COLLECTIONS, products))


def collection_names(count: int = COLLECTION_COUNT) -> list[str]:
    """``count`` distinct names: the featured ones, then theme x season."""
    combos = [f"{theme} – {season}" for season in COLLECTION_SEASONS for theme in COLLECTION_THEMES]
    return [*COLLECTION_FEATURED, *combos][:count]


def draft_collections(
    rng: random.Random, store_id: int, count: int = COLLECTION_COUNT
) -> list[CollectionDraft]:
    drafts = []
    for position, name in enumerate(collection_names(count)):
        slug = slugify(name)
        path: str | None = collection_path(slug)
        if name == COLLECTION_FEATURED[0]:
            path = SUMMER_SALE_PATH
        elif position % PATHLESS_EVERY == 5:
            path = None
        created = moment_in_history(rng)
        row = {
            "store_id": store_id,
            "name": name,
            "slug": slug,
            "description_html": (
                f"<p>{name}: tuyển chọn bởi stylist của chúng tôi.</p>"
                if rng.random() < 0.7
                else None
            ),
            "image_url": (demo_image("category", slug) if rng.random() < 0.8 else None),
            "visible": position not in HIDDEN,
            "position": position,
            "created_at": created,
            "updated_at": edited_after(rng, created),
        }
        drafts.append(CollectionDraft(row, path))
    return drafts


def collection_product_rows(
    rng: random.Random,
    *,
    store_id: int,
    collection_ids: Sequence[int],
    products: Sequence[ProductFacts],
) -> list[dict[str, Any]]:
    """Products of each collection; the summer sale holds discounted products first."""
    pool = [product.id for product in products if product.published]
    discounted = [product.id for product in products if product.published and product.discounted]
    largest = 12 + min(len(products) // 100, 48)
    rows: list[dict[str, Any]] = []
    for index, collection_id in enumerate(collection_ids):
        if index == 0:
            members = discounted[:SUMMER_SALE_SIZE] or pool[:SUMMER_SALE_SIZE]
        else:
            members = rng.sample(pool, min(rng.randint(4, largest), len(pool)))
        rows.extend(
            {
                "store_id": store_id,
                "collection_id": collection_id,
                "product_id": product_id,
                "position": position,
            }
            for position, product_id in enumerate(members)
        )
    return rows
