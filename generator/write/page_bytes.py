"""The bytes a page's fingerprint is taken over: ``model_bytes(obj) -> bytes``.

    model_bytes(obj)           -> bytes   # one object graph
    memo = ModelBytes(); memo(page)        # many pages: each product card digested once

Pickle, with shortcuts: the frozen dataclasses of the model and the plan are reduced to their
class and field values in one C-level ``attrgetter`` call, instead of pickle's default route
through each object's ``__getstate__`` (which looks the fields up again for every object). That
halves the cost of fingerprinting a build's pages. A packed product is reduced to its blob's
digest and related cards: its head is worked out from the product its blob holds
(``crawl.pack``), so the blob stands for both, and the digest was taken when it was packed
(``crawl.pack.facts``).
A product page, most pages of a store, is its plain field values ``marshal`` writes, no
pickle at all. ``ModelBytes`` stands each product card and each category by the digest of
its own bytes, worked out once per object (a product's own card: taken as its pack's facts
have it):
the same cards recur on many pages (a
category's first products are the related products of all the others, every listing page of a
category shows it with its subtree), and writes a listing's cards as one string of their
digests, a page's breadcrumb as plain pairs and its lastmod as text, each a call back into
Python less per object. The bytes are only ever digested, never
loaded; they are the same whichever way they were made, and however the graph's parts are
shared (no memo: see ``_dumped``).
"""

from __future__ import annotations

import copyreg
import dataclasses
import functools
import hashlib
import io
import marshal
import operator
import pickle
from collections.abc import Iterable
from datetime import timezone

from generator import model
from generator.crawl.pack import facts
from generator.crawl.pickled import card_digest
from generator.model import (
    Category,
    CategoryPage,
    CollectionPage,
    PackedProduct,
    ProductCard,
)
from generator.plan import site_plan
from generator.records import Reducer, reducers


def model_bytes(obj: object) -> bytes:
    """Pickled ``obj``, model dataclasses by their field values."""
    return _dumped(obj, _dispatch_table())


class CardDigest:
    """Stands for a product card in ``ModelBytes``' bytes: the SHA-1 of the card's own."""


class CategoryDigest:
    """Stands for a category in ``ModelBytes``' bytes: the SHA-1 of the category's own."""


class ModelBytes:
    """``model_bytes`` for many objects of one build: each product card object and each
    category object is pickled and digested once, then stands as its digest. Keeps the objects
    it saw (so no other object can take an address it remembers); one per build's pages, not
    longer."""

    __slots__ = ("_cards", "_categories", "_choices", "_kept", "_table")

    def __init__(self) -> None:
        self._cards: dict[int, bytes] = {}  # by the card object's id
        self._kept: list[ProductCard] = []  # the cards of ``_cards``, so no id is taken again
        self._categories: dict[int, tuple[Category, bytes]] = {}
        self._choices: dict[int, tuple[tuple[ProductCard, ...], bytes]] = {}
        self._table = dict(_dispatch_table())
        self._table[ProductCard] = self._card
        self._table[PackedProduct] = self._packed
        self._table[Category] = self._category
        self._table[site_plan.Page] = _page_reduced
        for listing in _LISTINGS:
            self._table[listing] = self._listing

    def __call__(self, obj: object) -> bytes:
        if type(obj) is site_plan.Page and type(obj.subject) is PackedProduct:
            return self._product_page(obj, obj.subject)
        return _dumped(obj, self._table)

    def card_digest(self, card: ProductCard) -> bytes:
        """The SHA-1 (20 bytes) of the card's field values, worked out once per card object."""
        known = self._cards.get(id(card))
        if known is None:
            known = self._cards[id(card)] = card_digest(card)
            self._kept.append(card)
        return known

    def _product_page(self, page: site_plan.Page, packed: PackedProduct) -> bytes:
        # Most pages of a store: its fields are plain values once the pack stands as the
        # digests it was packed with, which ``marshal`` writes in C at a fraction of a
        # pickle's cost. Its card, met again in the listings, takes the digest kept beside the
        # pack (the same ``card_digest``, taken when it was packed).
        self._know(packed)
        values = list(_page_reduced(page)[1])
        values[_SUBJECT] = (facts(packed).digest, self._related(packed.related))
        return marshal.dumps(values, _MARSHAL_VERSION)

    def know_cards(self, pages: Iterable[site_plan.Page]) -> None:
        """The card of each product page among ``pages``, by the digest kept beside its pack. Render
        workers forked after this find the cards of their listings known, as one process does
        once it has fingerprinted the product pages (which come first)."""
        for page in pages:
            if type(page.subject) is PackedProduct:
                self._know(page.subject)

    def _know(self, packed: PackedProduct) -> None:
        card = packed.head.card
        if id(card) not in self._cards:
            self._cards[id(card)] = facts(packed).card_digest
            self._kept.append(card)

    def _related(self, related: tuple[ProductCard, ...]) -> bytes:
        # Most products share their related products' tuple with the others of their
        # categories (``crawl.related``): its cards are digested together, once per tuple.
        known = self._choices.get(id(related))
        if known is None:
            joined = b"".join(self.card_digest(card) for card in related)
            known = self._choices[id(related)] = (related, joined)
        return known[1]

    def _card(self, card: ProductCard) -> tuple[type, tuple[object, ...]]:
        return CardDigest, (self.card_digest(card),)

    def _listing(self, listing: Listing) -> tuple[type, tuple[object, ...]]:
        # A listing page's cards, as one string of their digests: a card met as an object
        # costs a call back into Python, and a page lists dozens.
        fields, at = _LISTINGS[type(listing)]
        values = fields(listing)
        try:  # every card met before (its product's page comes first): one pass in C
            cards = b"".join(map(self._cards.__getitem__, map(id, listing.products)))
        except KeyError:
            cards = b"".join(map(self.card_digest, listing.products))
        return type(listing), (*values[:at], CardDigest, cards, *values[at + 1 :])

    def _category(self, category: Category) -> tuple[type, tuple[object, ...]]:
        # Every page of a category's listing shows the category with its subtree (its
        # children's records, descriptions included) and its subcategories: digested once.
        known = self._categories.get(id(category))
        if known is None:
            fields = _dumped(_category_reduced(category), self._table)
            digest = hashlib.sha1(fields, usedforsecurity=False).digest()
            known = self._categories[id(category)] = (category, digest)
        return CategoryDigest, (known[1],)

    def _packed(self, packed: PackedProduct) -> tuple[type, tuple[object, ...]]:
        # A pack met inside another object than its page.
        return PackedProduct, (facts(packed).digest, CardDigest, self._related(packed.related))


Listing = CategoryPage | CollectionPage | site_plan.ProductListing


def _fields_with_cards(kind: type) -> tuple[operator.attrgetter[tuple[object, ...]], int]:
    """The getter of a listing's field values, and where its cards are among them."""
    names = [field.name for field in dataclasses.fields(kind)]
    return operator.attrgetter(*names), names.index("products")


_LISTINGS = {
    kind: _fields_with_cards(kind)
    for kind in (CategoryPage, CollectionPage, site_plan.ProductListing)
}
_page_fields = [field.name for field in dataclasses.fields(site_plan.Page)]
_page_values = operator.attrgetter(*_page_fields)
_BREADCRUMB = _page_fields.index("breadcrumb")
_SUBJECT = _page_fields.index("subject")
#: marshal's format 2 writes every string as its UTF-8 and shares nothing (3 and later write
#: an object met again as a reference, as pickle's memo does): equal values, equal bytes.
_MARSHAL_VERSION = 2
_LASTMOD = _page_fields.index("lastmod")
_crumb_values = operator.attrgetter(
    *(field.name for field in dataclasses.fields(site_plan.BreadcrumbItem))
)


def _page_reduced(page: site_plan.Page) -> tuple[type, tuple[object, ...]]:
    """A page by its field values, its breadcrumb as the crumbs' (name, url) pairs and its
    lastmod as its ISO text (offset included): a crumb or a moment met as an object costs a
    call back into Python each, and every page has a few. (A crumb has two fields, so its
    getter gives a tuple.)"""
    values = list(_page_values(page))
    values[_BREADCRUMB] = tuple(map(_crumb_values, page.breadcrumb))
    lastmod = page.lastmod
    values[_LASTMOD] = None if lastmod is None else lastmod.isoformat()
    return site_plan.Page, tuple(values)


_category_fields = operator.attrgetter(*(field.name for field in dataclasses.fields(Category)))


def _category_reduced(category: Category) -> tuple[type, tuple[object, ...]]:
    return (Category, _category_fields(category))


def _dumped(obj: object, table: dict[type, Reducer]) -> bytes:
    buffer = io.BytesIO()
    _pickler(buffer, table).dump(obj)
    return buffer.getvalue()


def _pickler(buffer: io.BytesIO, table: dict[type, Reducer]) -> pickle.Pickler:
    pickler = pickle.Pickler(buffer, protocol=pickle.HIGHEST_PROTOCOL)
    pickler.dispatch_table = table
    # No memo: pickle writes an object (a string too) met again as a reference to the first,
    # so equal graphs whose parts are shared differently - an answer decoded fresh, the same
    # read back from the crawl cache - would give other bytes, and every page would render
    # again for nothing. The model's graphs have no cycles, which is what this mode needs; and
    # without a memo, one pickler's dumps do not depend on what it dumped before.
    pickler.fast = True
    return pickler


@functools.cache
def _dispatch_table() -> dict[type, Reducer]:
    table: dict[type, Reducer] = dict(copyreg.dispatch_table)  # type: ignore[arg-type]
    table.update(reducers(model, site_plan))
    # A time zone by its offset: pickle's default route for it costs twice the datetime's.
    table[timezone] = lambda zone: (timezone, (zone.utcoffset(None),))
    # The head is worked out from the blob's product: the blob stands for both.
    table[PackedProduct] = lambda packed: (PackedProduct, (packed.blob, packed.related))
    return table
