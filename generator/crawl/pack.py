"""Products packed between the crawl and the render: ``pack`` and ``unpack``.

    pack(product) -> PackedProduct      (head + the product with its variants, pickled and
                                         compressed)
    unpack(packed) -> Product           (with ``related``)
    facts(packed) -> PackFacts          (its digests, its page's loads and its traits:
                                         ``pack_facts``)
    traits(packed) -> Traits            (brand, options, published, SKUs)

A large store's catalog is mostly its products' page content: descriptions, galleries,
variants. As live objects that is some hundred objects and tens of KB a product, held by the
build from the crawl to the end and copied, page by touched page, into every render worker. A
packed product is its head (what the plan, the category versions and the related products
read) and one ``bytes`` of the rest, pickled then compressed, which the crawl cache keeps as it
is (a rebuild replays it without unpickling) and the render of the product's own page alone
unpacks. Their SHA-1, the card's and the loads of its page are worked out here once and kept
beside the pack (``pack_facts``; the crawl cache keeps them with it): a page's fingerprint, the
listings showing the card and the content security policy take them as they are, so an
unchanged product costs a rebuild no digesting and no unpacking.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import zlib
from typing import NamedTuple

from generator.crawl import pack_facts
from generator.crawl.pack_facts import PackFacts
from generator.crawl.pickled import card_digest, dump_records, load_records
from generator.loads import html_loads, image_loads
from generator.model import PackedProduct, Product, ProductHead
from generator.plain_text import META_DESCRIPTION_LENGTH, html_to_text, shorten

#: zlib's fastest level: a pack is about half its pickled size (descriptions and variant
#: names repeat a lot), unpacked in microseconds by the one page render that needs it.
BLOB_LEVEL = 1


def pack(product: Product) -> PackedProduct:
    """``product`` (with its variants) packed; its related products go with the pack, not in
    it (they are worked out from the lists at every build)."""
    blob = zlib.compress(dump_records(dataclasses.replace(product, related=())), BLOB_LEVEL)
    pack_facts.remember(blob, _facts(product, blob))
    return PackedProduct(head=_head(product), blob=blob, related=product.related)


def facts(packed: PackedProduct) -> PackFacts:
    """The digests of ``packed``'s blob and card and the loads of its page: as kept when it was
    packed or read back, else worked out from its blob (and kept)."""
    found = pack_facts.known(packed.blob)
    if found is None:
        found = _facts(unpack(packed), packed.blob)
        pack_facts.remember(packed.blob, found)
    return found


class Traits(NamedTuple):
    """What a product sells, as the listings' filters and the search index read it."""

    brand: str | None
    options: tuple[tuple[str, tuple[str, ...]], ...]  # of its variants, each value once
    published: str | None  # ISO
    skus: tuple[str, ...]  # the product's, then its variants', each once


def traits(packed: PackedProduct) -> Traits:
    """``packed``'s traits, as kept beside it (no unpacking)."""
    brand, options, published, skus = json.loads(facts(packed).traits)
    return Traits(brand, tuple((n, tuple(v)) for n, v in options), published, tuple(skus))


def unpack(packed: PackedProduct) -> Product:
    product = load_records(zlib.decompress(packed.blob))
    assert isinstance(product, Product), "a packed product holds a Product"
    if not packed.related:  # packed without them: nothing to add (the build's default)
        return product
    return dataclasses.replace(product, related=packed.related)


def _facts(product: Product, blob: bytes) -> PackFacts:
    digest = hashlib.sha1(blob, usedforsecurity=False).digest()
    return PackFacts(
        digest=digest,
        card_digest=card_digest(product.card),
        loads=_loads(product),
        traits=_traits(product),
    )


def _traits(product: Product) -> str:
    skus = [product.sku] if product.sku else []
    options: dict[str, list[str]] = {}
    for variant in product.variants:
        if variant.sku:
            skus.append(variant.sku)
        for name, value in variant.options:
            values = options.setdefault(name, [])
            if value not in values:
                values.append(value)
    published = product.published_at.isoformat() if product.published_at else None
    brand = product.brand.name if product.brand else None
    held = [brand, list(options.items()), published, list(dict.fromkeys(skus))]
    return json.dumps(held, ensure_ascii=False, separators=(",", ":"))


def _head(product: Product) -> ProductHead:
    return ProductHead(
        card=product.card,
        category_ids=product.category_ids,
        meta_title=product.meta_title,
        meta_description=product.meta_description,
        summary=shorten(product_text(product), META_DESCRIPTION_LENGTH),
        image_url=next(iter(product_image_urls(product)), None),
    )


def _loads(product: Product) -> tuple[tuple[str, str], ...]:
    """Every image its page may show (gallery, card, variants) and its description's loads."""
    urls = [image.url for image in product.images] + [product.card.image_url]
    urls += [variant.image_url for variant in product.variants]
    return tuple(sorted(image_loads(urls) | html_loads(product.description_html)))


def product_text(product: Product) -> str:
    """The visible text of the product's description (worked out when its answer was read)."""
    if product.description_text is not None:
        return product.description_text
    return html_to_text(product.description_html)


def product_image_urls(product: Product) -> list[str]:
    """The gallery, else the card's image, else the variants' (some stores only have those)."""
    gallery = [image.url for image in product.images]
    if gallery:
        return gallery
    if product.card.image_url:
        return [product.card.image_url]
    return list(dict.fromkeys(v.image_url for v in product.variants if v.image_url))
