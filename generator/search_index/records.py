"""What the index holds of each published product, category, collection and article.

A product's record has the shape the islands read (the search suggestions, the search page and
the filters): ``{"id", "n" name, "u" url or null, "i" image or null, "p" effective price,
"c" compare-at price or null, "b" brand or null, "o" {option: [values]}, "s" in stock,
"t" created ISO, "k" [category ids with ancestors], "l" [collection ids]}``. Its searchable
words are kept apart: those of its name (the first one ranks highest) and the others (brand,
category path, SKUs, option values).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any, NamedTuple

from generator.crawl.pack import Traits, facts, traits
from generator.model import Catalog, Category, PackedProduct, ProductCard
from generator.plan.site_plan import SitePlan
from generator.search_index.fold import fold, words


class Entry(NamedTuple):
    """A tuple: a large store's build state pickles tens of thousands of them."""

    id: int
    record: dict[str, Any]
    name_words: tuple[str, ...]
    other_words: frozenset[str]


def detail_of(packed: PackedProduct) -> Traits:
    """What the index reads of a product beyond its card: its traits (kept beside its pack),
    dated when last changed if it was never published."""
    sells = traits(packed)
    stamp = packed.card.updated_at
    return sells._replace(published=sells.published or (stamp.isoformat() if stamp else None))


def _flat(tree: tuple[Category, ...]) -> Iterator[Category]:
    for category in tree:
        yield category
        yield from _flat(category.children)


#: What an entry is made from besides its pack: (pack digest, card digest, url, collections,
#: the category tree's digest); an entry whose key is unchanged is taken from the last build.
EntryKey = tuple[bytes, bytes, str | None, tuple[int, ...], bytes]


def _tree_digest(categories: Iterable[Category]) -> bytes:
    """The category tree's ids, parents and names, digested the same in every process (the
    key outlives the build; ``hash`` of a string differs from one process to the next)."""
    shape = [(c.id, c.parent_id, c.name) for c in categories]
    return hashlib.sha1(repr(shape).encode(), usedforsecurity=False).digest()


def product_entries(
    catalog: Catalog,
    plan: SitePlan,
    detail_of: Callable[[PackedProduct], Traits],
    known: Mapping[EntryKey, Entry],
) -> Iterator[tuple[EntryKey | None, Entry]]:
    """Each product's entry, with its key (None for a product known by its card alone): from
    ``known`` when its key is there, else made (``detail_of`` gives what its pack holds)."""
    urls = {
        page.subject.card.id: page.path
        for page in plan.pages
        if page.kind == "product" and isinstance(page.subject, PackedProduct)
    }
    categories = {c.id: c for c in _flat(plan.site.category_tree)}
    tree = _tree_digest(categories.values())
    collections: dict[int, list[int]] = {}
    for listing in catalog.collections:
        for card in listing.products:
            collections.setdefault(card.id, []).append(listing.collection.id)
    packed_ids = set()
    for packed in catalog.products:
        card = packed.card
        packed_ids.add(card.id)
        url = urls.get(card.id)
        kept = facts(packed)
        key = (
            kept.digest,
            kept.card_digest,
            url,
            tuple(collections.get(card.id, ())),
            tree,
        )
        entry = known.get(key)
        if entry is None:
            detail = detail_of(packed)
            entry = _entry(card, packed.category_ids, detail, url, categories, collections)
        yield key, entry
    # A product without a url has no page for the crawl to read: its card, from the lists that
    # show it, is what the index holds of it (shown as plain text).
    for card in _listed_cards(catalog):
        if card.id in packed_ids:
            continue
        packed_ids.add(card.id)
        stamp = card.updated_at.isoformat() if card.updated_at else None
        ids = (card.category_id,) if card.category_id is not None else ()
        yield None, _entry(card, ids, Traits(None, (), stamp, ()), None, categories, collections)


def _listed_cards(catalog: Catalog) -> Iterator[ProductCard]:
    for category in catalog.categories:
        yield from category.products
    for listing in catalog.collections:
        yield from listing.products


def _entry(
    card: ProductCard,
    category_ids: tuple[int, ...],
    detail: Traits,
    url: str | None,
    categories: Mapping[int, Category],
    collections: Mapping[int, list[int]],
) -> Entry:
    path: list[int] = []
    for start in category_ids:
        seen = start
        while seen in categories and seen not in path:
            path.append(seen)
            parent = categories[seen].parent_id
            if parent is None:
                break
            seen = parent
    price = card.effective_price if card.effective_price is not None else card.price
    record = {
        "id": card.id,
        "n": card.name,
        "u": url,
        "i": card.image_url,
        "p": price,
        "c": card.compare_at_price,
        "b": detail.brand,
        "o": {name: list(values) for name, values in detail.options},
        "s": card.in_stock,
        "t": detail.published,
        "k": path,
        "l": sorted(set(collections.get(card.id, ()))),
    }
    other = set(words(detail.brand))
    for category_id in path:
        other.update(words(categories[category_id].name))
    for sku in detail.skus:
        other.update(words(sku))
        other.add("".join(words(sku)))
    for _, values in detail.options:
        for value in values:
            other.update(words(value))
    other.discard("")
    return Entry(card.id, record, tuple(words(card.name)), frozenset(other))


def other_pages(plan: SitePlan) -> list[list[Any]]:
    """The categories, collections and articles a query suggests: [kind, name, url, folded
    name, top level] (kind "k" a category, "l" a collection, "a" an article)."""
    found: list[list[Any]] = []
    for page in plan.pages:
        subject: Any = page.subject
        pager = getattr(subject, "pager", None)
        if pager is not None and pager.number != 1:
            continue
        if page.kind == "category":
            category = subject.category
            name, top = category.name, category.parent_id is None
        elif page.kind == "collection":
            name, top = subject.collection.name, False
        elif page.kind == "article":
            name, top = subject.summary.title, False
        else:
            continue
        kind = {"category": "k", "collection": "l", "article": "a"}[page.kind]
        found.append([kind, name, page.path, " ".join(words(fold(name))), top])
    return found
