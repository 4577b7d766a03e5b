"""The versions of what a crawl derives from its lists: which answers a change can reach.

A cached answer is replayed without a request while its version holds (see ``fetch``).
These functions give the derived answers - category and collection product pages, the newest
products, route resolutions - versions built from exactly what can change them, so that a
one-product change asks only the list walk and what that product reaches:

- **a category's products** (``?category=X`` includes X's subcategories) can move only when
  X's record or subtree moved, when a product it listed last time changed or vanished, or when
  a product that now claims X or a category below it (its card's ``category_id`` or its
  detail's ``category_ids``) changed, appeared or stopped claiming it. The version digests
  those claimants with their cards, so a claimant leaving changes it as well; a product
  without a detail (no url) may belong to more categories than its card says, so every
  category's version includes them all.
- **a collection's products**: which products a collection holds is not visible in product
  data. Its version moves with the collection's record (``updated_at``), with any product it
  listed last time changing or vanishing, and with the set of products the store lists (a
  product added or removed anywhere). A merchant adding an existing, unchanged product to a
  collection is seen once the collection's ``updated_at`` moves (or by a ``--full`` build).
- **the newest products** move with the products they listed last time and with the set of
  listed products.
- **route resolutions** move with what can change a path's meaning: the sitemap's paths,
  the links of menus, banners and promotions, and every url, slug and id the lists name -
  never with a price.

Pure functions; digests are SHA-1 of ``repr`` of frozen dataclasses (stable within a
generator version, and the crawl cache is keyed by that version).
"""

from __future__ import annotations

import hashlib
import marshal
from array import array
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import fields
from operator import attrgetter

from generator.client import ListBound
from generator.crawl.routes import path_key
from generator.model import (
    ArticleSummary,
    Category,
    Collection,
    PackedProduct,
    ProductCard,
)


def digest(*parts: object) -> str:
    text = "\0".join(part if isinstance(part, str) else repr(part) for part in parts)
    return hashlib.sha1(text.encode("utf-8"), usedforsecurity=False).hexdigest()


def entity_version(entry: object) -> str:
    """The version of a detail: a digest of the list entry that describes it (a frozen
    dataclass: its card or summary, with ``updated_at`` and prices), so a detail is asked again
    exactly when its entry moved."""
    return hashlib.sha1(repr(entry).encode("utf-8"), usedforsecurity=False).hexdigest()


#: A card's fields but its moment, which marshal cannot write (it is written as ISO text).
_card_values = attrgetter(*(f.name for f in fields(ProductCard) if f.name != "updated_at"))


def card_version(card: ProductCard) -> str:
    """The version of a listed product: a digest of its card (``updated_at``, prices...).
    Every card of the store is versioned on every rebuild: marshal writes its values in a
    third of the time ``repr`` takes."""
    moment = card.updated_at
    values = (*_card_values(card), None if moment is None else moment.isoformat())
    return hashlib.sha1(marshal.dumps(values), usedforsecurity=False).hexdigest()


def listed_version(
    base: str, previous: Sequence[ProductCard] | None, cards: Mapping[int, str]
) -> str:
    """``base``, moved as well by any product the last answer listed that changed since
    (its card's version now, or gone)."""
    if previous is None:
        return digest(base, "new")
    # ``digest(base, *entries)`` written out: the entries are strings already, and a rebuild
    # versions every page of every listing (a hundred cards each) twice.
    get = cards.get
    text = "\0".join([base, *[f"{card.id}:{get(card.id, '-')}" for card in previous]])
    return hashlib.sha1(text.encode("utf-8"), usedforsecurity=False).hexdigest()


def listed_set_version(cards: Mapping[int, str]) -> str:
    """A digest of which products the store lists (not of their cards): their ids, sorted, as
    64-bit integers (ids beyond that range as text)."""
    ids = sorted(cards)
    try:
        packed = array("q", ids).tobytes()
    except OverflowError:
        return digest("ids", *ids)
    return hashlib.sha1(packed, usedforsecurity=False).hexdigest()


class CategoryClaims:
    """Which products claim each category, counting the categories below it.

    Each category's claimants are digested order-independently - the sum of each claimant's
    SHA-1 (its id and its card's version), as ``ListedPaths`` sums paths - so no list of them
    is gathered and sorted per category."""

    def __init__(
        self,
        cards: Sequence[ProductCard],
        products: Iterable[PackedProduct],
        parent_of: Mapping[int, int | None],
        versions: Mapping[int, str],
    ) -> None:
        details = {product.card.id: product.category_ids for product in products}
        sums: dict[int, int] = {}
        unknown = 0
        trails: dict[int | None, tuple[int, ...]] = {}  # each category with those above it

        def trail(category_id: int | None) -> tuple[int, ...]:
            found = trails.get(category_id)
            if found is None:
                reached: list[int] = []
                current = category_id
                while current is not None and current not in reached:
                    reached.append(current)
                    current = parent_of.get(current)
                found = trails[category_id] = tuple(reached)
            return found

        for card in cards:
            entry = _entry_sum(f"{card.id}:{versions[card.id]}")
            categories = details.get(card.id)
            if categories is None:
                unknown += entry
                categories = ()
            if not categories or categories == (card.category_id,):
                reached: Iterable[int] = trail(card.category_id)
            else:
                union = set(trail(card.category_id))
                for category_id in categories:
                    union.update(trail(category_id))
                reached = union
            for category_id in reached:
                sums[category_id] = sums.get(category_id, 0) + entry
        self._claims = {cid: _sum_digest(total) for cid, total in sums.items()}
        self._unknown = _sum_digest(unknown)

    def version(self, category: Category) -> str:
        """What ``?category=<id>`` depends on: the category with its subtree, the products that
        claim it or a category below it, and the products whose categories are not known."""
        return digest(category, self._claims.get(category.id, "none"), self._unknown)


def _entry_sum(text: str) -> int:
    return int.from_bytes(hashlib.sha1(text.encode(), usedforsecurity=False).digest(), "big")


def _sum_digest(total: int) -> str:
    return f"{total % (1 << 160):040x}"


def collection_version(collection: Collection | None, listed_set: str) -> str:
    return digest(collection, listed_set)


class ListedPaths:
    """What the listed products give ``paths_version``: each card's id, slug and url, taken
    card by card while the list is walked (not all at once after it). Order-independent - the
    sum of each card's SHA-1 - as a sorted list would be: a price change may move a product
    within the list, and must not move the version of every path. Also the ``path_key`` of
    each listed url (``keys``): the paths the lists explain."""

    __slots__ = ("_sum", "keys")

    def __init__(self) -> None:
        self._sum = 0
        self.keys: set[str] = set()

    def add(self, card: ProductCard) -> None:
        text = repr((card.id, card.slug, card.url)).encode()
        self._sum += int.from_bytes(hashlib.sha1(text, usedforsecurity=False).digest(), "big")
        if card.url:
            self.keys.add(path_key(card.url))

    def digest(self) -> str:
        return f"{self._sum % (1 << 160):040x}"


def paths_version(
    *,
    sitemap: Sequence[str],
    links: Sequence[str],
    categories: Iterable[Category],
    collections: Sequence[Collection],
    cards: ListedPaths,
    summaries: Sequence[ArticleSummary],
) -> str:
    """What the meaning of a merchant-chosen path can depend on, as the lists show it."""
    return digest(
        _lines_digest(sorted(sitemap)),
        sorted(links),
        sorted((c.id, c.parent_id, c.slug, c.url) for c in categories),
        sorted((c.id, c.slug, c.updated_at) for c in collections),
        cards.digest(),
        sorted((s.id, s.slug) for s in summaries),
    )


def _lines_digest(lines: Sequence[str]) -> str:
    """A digest of many strings, one a line (cheaper than of their ``repr``); a line break in
    one of them is escaped so that no two sequences give the same text."""
    text = "\n".join(line.replace("\\", "\\\\").replace("\n", "\\n") for line in lines)
    return hashlib.sha1(text.encode("utf-8", "surrogatepass"), usedforsecurity=False).hexdigest()


def listing_bound(products: int, margin: int) -> ListBound:
    """How long a category's or collection's product list may walk: it cannot list more than
    the store does (twice that, plus the margin, as the other lists allow)."""
    return ListBound(
        2 * products + margin,
        f"more than twice the {products:,} products the store lists, plus {margin:,}",
    )
