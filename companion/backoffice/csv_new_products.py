"""A product CSV's new products: the lines of a Handle the store does not have make one product.

Its first line gives the product's Title (required), Body (HTML), Vendor (a brand of the store,
by name: brands are not made by the catalogue's writes, so an unknown one is an error) and
Status (empty: active); every line is a variant, its options named by the first line's Option1
and Option2 Name (``Title`` alone: a variant told apart by its name, as the export writes one),
its price, compare-at price, stock and SKU its own; each Image Src is an image, the first the
product's. The product is created through the catalogue's writes, so its webhooks are queued.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, select

from companion.catalog_admin import create_entity, write_part
from companion.db import schema as t
from companion.webhooks.events import Entity

STATUS_IN = {"active": "published", "draft": "draft"}
MAX_AMOUNT = 10**12
#: A stock count the column holds (the back office's quick edit takes the same).
MAX_STOCK = 10**9
NAME_OPTION = "Title"
#: A Handle a new product may take: its slug and its path.
HANDLE = re.compile(r"[a-z0-9][a-z0-9-]{0,199}")


def read_amount(text: str, column: str) -> int | None:
    """Whole đồng; ``1590000.00`` as the format's other tools write it. Empty: None."""
    text = text.strip()
    if not text:
        return None
    whole, _, cents = text.partition(".")
    if not whole.isdigit() or (cents and set(cents) != {"0"}) or int(whole) >= MAX_AMOUNT:
        raise ValueError(f"{column}: {text[:30]!r} is not a whole amount of đồng")
    return int(whole)


def read_stock(text: str) -> int | None:
    """Units, or None (empty: not counted)."""
    stock = read_amount(text, "Variant Inventory Qty")
    if stock is not None and stock >= MAX_STOCK:
        raise ValueError(f"Variant Inventory Qty: {stock} is more than {MAX_STOCK - 1}")
    return stock


@dataclass(frozen=True, slots=True)
class NewVariant:
    line: int
    name: str
    options: dict[str, str]
    sku: str
    price: int | None
    compare_at_price: int | None
    stock: int | None


@dataclass(slots=True)
class NewProduct:
    line: int
    handle: str
    title: str
    body: str
    brand_id: int | None
    status: str
    names: list[str]  # the option names, from the first line
    variants: list[NewVariant] = field(default_factory=list)
    images: list[str] = field(default_factory=list)
    seen: set[tuple[str, tuple[tuple[str, str], ...]]] = field(default_factory=set)


def brand_ids(conn: Connection, *, store_id: int) -> dict[str, int]:
    """The store's brands by their folded name (a Vendor matches whatever its case)."""
    rows = conn.execute(
        select(t.brands.c.id, t.brands.c.name).where(t.brands.c.store_id == store_id)
    )
    return {row.name.strip().casefold(): row.id for row in rows}


def first_line(
    line: int, handle: str, row: dict[str, str], brands: dict[str, int]
) -> tuple[NewProduct, list[tuple[int, str]]]:
    """The product a new Handle's first line describes, and its errors (its later lines are
    still read, so that every error of the file is listed at once)."""
    errors: list[tuple[int, str]] = []
    if not HANDLE.fullmatch(handle):
        errors.append((line, f"Handle: {handle[:80]!r} is not a-z, 0-9 and '-'"))
    title = row.get("Title", "").strip()
    if not title:
        errors.append((line, "Title: a new product needs one"))
    vendor = row.get("Vendor", "").strip()
    brand_id = brands.get(vendor.casefold()) if vendor else None
    if vendor and brand_id is None:
        errors.append((line, f"Vendor: no brand {vendor[:80]!r} in the store"))
    status = row.get("Status", "").strip().lower() or "active"
    if status not in STATUS_IN:
        errors.append((line, f"Status: {status[:20]!r} is not active or draft"))
    names = [row.get(c, "").strip() for c in ("Option1 Name", "Option2 Name")]
    product = NewProduct(
        line,
        handle,
        title[:300],
        row.get("Body (HTML)", ""),
        brand_id,
        STATUS_IN.get(status, "draft"),
        [n for n in names if n],
    )
    return product, errors


def add_line(product: NewProduct, line: int, row: dict[str, str]) -> None:
    """One line of a new product: its variant and image (ValueError: what is wrong)."""
    values = [row.get(c, "").strip() for c in ("Option1 Value", "Option2 Value")]
    options = {
        name: value
        for name, value in zip(product.names, values, strict=False)
        if name != NAME_OPTION and value
    }
    named = [v for n, v in zip(product.names, values, strict=False) if v and n == NAME_OPTION]
    name = " / ".join(named or list(options.values())) or product.title
    key = (name, tuple(sorted(options.items())))
    if key in product.seen:
        raise ValueError(f"a second line for the same variant of {product.handle}")
    product.seen.add(key)  # before its amounts are read: a bad line still holds its place
    product.variants.append(
        NewVariant(
            line,
            name[:300],
            options,
            row.get("Variant SKU", "").strip()[:100],
            read_amount(row.get("Variant Price", ""), "Variant Price"),
            read_amount(row.get("Variant Compare At Price", ""), "Variant Compare At Price"),
            read_stock(row.get("Variant Inventory Qty", "")),
        )
    )
    image = row.get("Image Src", "").strip()
    if image and image not in product.images:
        product.images.append(image)


def create_product(conn: Connection, product: NewProduct, *, store_id: int, now: datetime) -> int:
    """The product, its variants and images, each through the catalogue's writes."""
    prices = [v.price for v in product.variants if v.price is not None]
    cheapest = min(prices, default=None)
    compare = next((v.compare_at_price for v in product.variants if v.price == cheapest), None)
    product_id = create_entity(
        conn,
        Entity.PRODUCT,
        {
            "name": product.title,
            "slug": product.handle,
            "url": f"/{product.handle}",
            "description_html": product.body or None,
            "brand_id": product.brand_id,
            "status": product.status,
            "price": cheapest,
            "compare_at_price": compare,
            "image_url": product.images[0] if product.images else None,
            "sku": product.variants[0].sku or None if len(product.variants) == 1 else None,
            "published_at": now if product.status == "published" else None,
        },
        store_id=store_id,
        now=now,
    )
    for position, variant in enumerate(product.variants):
        own: dict[str, Any] = {
            "name": variant.name,
            "options": variant.options,
            "sku": variant.sku or None,
            "price": variant.price,
            "compare_at_price": variant.compare_at_price,
            "stock": variant.stock,
            "position": position,
        }
        write_part(conn, "variants", product_id, None, own, store_id=store_id, now=now)
    for position, url in enumerate(product.images):
        image = {"url": url, "position": position}
        write_part(conn, "images", product_id, None, image, store_id=store_id, now=now)
    return product_id
