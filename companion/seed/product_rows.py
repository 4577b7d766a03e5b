"""Products of the demo store, with their images, variants and secondary categories.

Products are drafted lazily from one seeded stream and variants from another, so the caller may
insert them in chunks of any size and still get the same rows. The first ``EDGE_CASE_PRODUCTS``
numbers carry fixed edge cases (null url, '' url, no price, draft, sold out, no variants, no
images, no category, a name that needs escaping) so every catalogue size has them; later
products get the same quirks at random, at low rates.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import timedelta
from functools import cache
from typing import Any

from companion.seed.catalog_rows import Shelf
from companion.seed.paths import product_url
from companion.seed.pictures import product_picture
from companion.seed.slugs import slugify
from companion.seed.store_rows import STORE_NAME
from companion.seed.timeline import BASE, edited_after, moment_in_history
from companion.seed.vocabulary import (
    CARE_NOTES,
    COLOUR,
    COLOURS,
    LARGE_SIZES,
    PRODUCT_SELLING_POINTS,
    SIZE,
)
from companion.text import fold

#: Products numbered up to this carry the fixed edge cases: a smaller catalogue lacks some.
EDGE_CASE_PRODUCTS = 20

#: The product behind the custom path PRODUCT_ALIAS_PATH: published, priced, in stock.
ALIAS_PRODUCT = 1
#: A product whose name must be escaped wherever it is shown.
ESCAPED_PRODUCT = 14
#: Products with a fixed name, and the line (leaf category) each belongs to.
FIXED_NAMES = {
    ALIAS_PRODUCT: ("Áo dài", "Áo dài lụa tơ tằm thêu hoa mai"),
    ESCAPED_PRODUCT: ("Áo thun nữ", 'Áo thun in chữ "Sài Gòn <3" & hoa sen'),
}

#: Fixed quirks by product number; every other number draws one from RANDOM_QUIRKS.
FIXED_QUIRKS = {
    2: "null_url",
    3: "empty_url",
    4: "draft",
    5: "no_price",
    6: "null_url",
    8: "no_price",
    9: "sold_out",
    10: "no_variants",
    12: "no_images",
    13: "no_category",
}
RANDOM_QUIRKS = (
    ("null_url", 0.010),
    ("no_price", 0.015),
    ("draft", 0.020),
    ("sold_out", 0.020),
    ("no_variants", 0.010),
    ("no_images", 0.005),
)


@dataclass(frozen=True, slots=True)
class ProductDraft:
    """A products row (no id yet) and what its child rows are made from."""

    number: int
    row: dict[str, Any]
    image_count: int
    line: str  # the leaf category's name: what the pictures draw
    sizes: tuple[str, ...]
    with_variants: bool
    sold_out: bool
    extra_category_id: int | None


@dataclass(frozen=True, slots=True)
class ProductFacts:
    """What later sections (collections, flash sales, custom paths) choose products by."""

    id: int
    number: int
    published: bool
    priced: bool
    discounted: bool
    linked: bool
    in_stock: bool


def draft_products(
    rng: random.Random,
    *,
    store_id: int,
    count: int,
    shelves: Sequence[Shelf],
    brand_ids: Sequence[int],
) -> Iterator[ProductDraft]:
    by_line = {shelf.line.name: shelf for shelf in shelves}
    fixed = {number: (by_line[line], name) for number, (line, name) in FIXED_NAMES.items()}
    seen: set[str] = set()
    for number in range(1, count + 1):
        draft = _draft(rng, store_id, number, shelves, fixed.get(number), brand_ids)
        yield _distinct_name(draft, seen)


def _distinct_name(draft: ProductDraft, seen: set[str]) -> ProductDraft:
    """Shops tell same-named products apart by a model code; so does the demo (unique titles)."""
    name = draft.row["name"]
    if name in seen:
        name = f"{name} mã {draft.number}"
        draft.row["name"] = name
        draft.row["search_name"] = fold(name)
    seen.add(name)
    return draft


def _quirk(number: int, roll: float) -> str | None:
    if number <= EDGE_CASE_PRODUCTS:
        return FIXED_QUIRKS.get(number)
    for quirk, share in RANDOM_QUIRKS:
        if roll < share:
            return quirk
        roll -= share
    return None


def _draft(
    rng: random.Random,
    store_id: int,
    number: int,
    shelves: Sequence[Shelf],
    fixed: tuple[Shelf, str] | None,
    brand_ids: Sequence[int],
) -> ProductDraft:
    # Every value is drawn for every product, quirk or not, so the stream stays aligned.
    quirk = _quirk(number, rng.random())
    shelf = rng.choice(shelves)
    if fixed:
        shelf = fixed[0]
    line = shelf.line
    name = f"{rng.choice(line.kinds)} {rng.choice(line.features)}"
    if rng.random() < 0.6:
        name = f"{name} {rng.choice(line.materials)}"
    low, high = line.price_range
    price: int | None = rng.randrange(low, high + 1, 10) * 1000
    discount = rng.uniform(1.15, 1.6) if rng.random() < 0.35 else None
    brand_id = rng.choice(brand_ids) if rng.random() < 0.85 else None
    extra_shelf = rng.choice(shelves) if rng.random() < 0.2 else None
    image_count = rng.randint(1, 4)
    described = rng.random() < 0.9
    with_sku = rng.random() < 0.95
    meta_title = rng.random() < 0.3
    meta_description = rng.random() < 0.3
    created = moment_in_history(rng)
    updated = edited_after(rng, created)
    published_at = min(BASE, created + timedelta(seconds=rng.randrange(0, 2 * 86400)))

    if fixed:
        name = fixed[1]
    if number == ALIAS_PRODUCT:
        price, discount, image_count = 1_290_000, 1.25, 4
    compare_at = _compare_at(price, discount) if discount else None
    slug = f"{slugify(name)}-{number}"
    url: str | None = product_url(slug)
    if quirk == "null_url":
        url = None
    elif quirk == "empty_url":
        url = ""
    elif quirk == "no_price":
        price = compare_at = None
    elif quirk == "no_images":
        image_count = 0
    category_id = None if quirk == "no_category" else shelf.category_id
    draft = quirk == "draft"
    return ProductDraft(
        number=number,
        row={
            "store_id": store_id,
            "name": name,
            "search_name": fold(name),
            "slug": slug,
            "url": url,
            "price": price,
            "compare_at_price": compare_at,
            "category_id": category_id,
            "brand_id": brand_id,
            "image_url": product_picture(line.name, 1) if image_count else None,
            "description_html": _description(rng, name, line.materials) if described else None,
            "sku": f"TTSG-{number:06d}" if with_sku else None,
            "meta_title": f"{name} | {STORE_NAME}" if meta_title else None,
            "meta_description": f"{name} chính hãng, giao nhanh toàn quốc."
            if meta_description
            else None,
            "status": "draft" if draft else "published",
            "published_at": None if draft else published_at,
            "created_at": created,
            "updated_at": updated,
        },
        image_count=image_count,
        line=line.name,
        sizes=line.sizes,
        # A product with no price has nothing to sell yet, so it has no variants either.
        with_variants=price is not None and quirk != "no_variants",
        sold_out=quirk == "sold_out",
        extra_category_id=(
            extra_shelf.category_id
            if extra_shelf and category_id and extra_shelf.category_id != category_id
            else None
        ),
    )


def _compare_at(price: int | None, factor: float) -> int | None:
    """A believable list price above ``price``: rounded to tens of thousands, ending in 9,000."""
    if price is None:
        return None
    return max(int(price * factor) // 10_000 * 10_000 + 9_000, price + 10_000)


def _description(rng: random.Random, name: str, materials: Sequence[str]) -> str:
    return (
        f"<p>{name} {rng.choice(PRODUCT_SELLING_POINTS)}</p>"
        f"<ul><li>Chất liệu: {rng.choice(materials)}</li><li>Xuất xứ: Việt Nam</li>"
        f"<li>{rng.choice(CARE_NOTES)}</li></ul>"
    )


def image_rows(draft: ProductDraft, product_id: int) -> list[dict[str, Any]]:
    name = draft.row["name"]
    return [
        {
            "store_id": draft.row["store_id"],
            "product_id": product_id,
            "url": product_picture(draft.line, position),
            "alt": name if position == 1 else f"{name} – ảnh {position}",
            "position": position - 1,
        }
        for position in range(1, draft.image_count + 1)
    ]


def variant_rows(rng: random.Random, draft: ProductDraft, product_id: int) -> list[dict[str, Any]]:
    """Sizes x colours of a product; some sold out (stock 0), some untracked (stock NULL)."""
    if not draft.with_variants:
        return []
    sizes: Sequence[str | None] = draft.sizes or (None,)
    if len(sizes) > 2:
        width = rng.randint(2, min(4, len(sizes)))
        start = rng.randint(0, len(sizes) - width)
        sizes = sizes[start : start + width]
    colours = rng.sample(COLOURS, rng.choice((1, 1, 2, 2, 3)))
    row = draft.row
    rows: list[dict[str, Any]] = []
    for colour_index, colour in enumerate(colours):
        for size in sizes:
            options = {SIZE: size, COLOUR: colour} if size else {COLOUR: colour}
            surcharge = 20_000 if size in LARGE_SIZES else 0
            roll = rng.random()
            stock = 0 if draft.sold_out or roll < 0.12 else None if roll < 0.16 else int(roll * 80)
            rows.append(
                {
                    "store_id": row["store_id"],
                    "product_id": product_id,
                    "sku": f"{row['sku']}-{_sku_suffix(size, colour)}" if row["sku"] else None,
                    "name": " / ".join(options.values()),
                    "options": options,
                    "price": row["price"] + surcharge,
                    "compare_at_price": (
                        row["compare_at_price"] + surcharge if row["compare_at_price"] else None
                    ),
                    "stock": stock,
                    "image_url": (
                        product_picture(draft.line, colour_index + 1)
                        if colour_index < draft.image_count
                        else None
                    ),
                    "position": len(rows),
                    "on_sale": rng.random() > 0.03,
                    "updated_at": row["updated_at"],
                }
            )
    return rows


@cache
def _sku_suffix(size: str | None, colour: str) -> str:
    """The size-and-colour part of a variant SKU ("XL-XANH-NAVY"); few values, so cached."""
    return slugify(f"{size or ''} {colour}").upper()


def category_link_rows(draft: ProductDraft, product_id: int) -> list[dict[str, Any]]:
    """The secondary category of a product (products.category_id is the primary one)."""
    if draft.extra_category_id is None:
        return []
    return [
        {
            "store_id": draft.row["store_id"],
            "product_id": product_id,
            "category_id": draft.extra_category_id,
        }
    ]


def product_facts(
    draft: ProductDraft, product_id: int, variants: Sequence[dict[str, Any]]
) -> ProductFacts:
    row = draft.row
    return ProductFacts(
        id=product_id,
        number=draft.number,
        published=row["status"] == "published",
        priced=row["price"] is not None,
        discounted=row["compare_at_price"] is not None,
        linked=bool(row["url"]),
        in_stock=any(v["on_sale"] and v["stock"] != 0 for v in variants),
    )
