"""Products and variants as the widely used product CSV, out and back in.

Export: one line per variant (one for a product without variants), the product's own columns on
its first line only, as that format has it. Import changes these columns of existing products:
Title, Body (HTML), Status, Variant Price, Variant Compare At Price, Variant Inventory Qty; a
line is matched to its product by Handle (the product's slug) and to its variant by Variant SKU,
else by its option values. The lines of a Handle the store does not have make a new product
(``csv_new_products``). A file with any error changes nothing: the plan lists every error with
its line number, and a dry run lists what an import would change and create.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, select

from companion.backoffice.catalogue import set_variant
from companion.backoffice.csv_new_products import (
    NAME_OPTION,
    STATUS_IN,
    NewProduct,
    add_line,
    brand_ids,
    create_product,
    first_line,
    read_amount,
    read_stock,
)
from companion.catalog_admin import update_entity
from companion.db import schema as t
from companion.webhooks.events import Entity

COLUMNS = (
    "Handle",
    "Title",
    "Body (HTML)",
    "Vendor",
    "Option1 Name",
    "Option1 Value",
    "Option2 Name",
    "Option2 Value",
    "Variant SKU",
    "Variant Price",
    "Variant Compare At Price",
    "Variant Inventory Qty",
    "Image Src",
    "Status",
)
#: The format's product status and the store's.
STATUS_OUT = {"published": "active", "draft": "draft"}


class CsvRefused(ValueError):
    """A file that is not read at all (too many lines, not the format's header)."""


@dataclass(frozen=True, slots=True)
class Change:
    line: int
    handle: str
    what: str  # the column
    before: Any
    after: Any
    product_id: int
    variant_id: int | None  # None: a column of the product itself


@dataclass(slots=True)
class Plan:
    changes: list[Change] = field(default_factory=list)
    errors: list[tuple[int, str]] = field(default_factory=list)
    created: list[NewProduct] = field(default_factory=list)


def _amount(value: int | None) -> str:
    return "" if value is None else str(value)


def export_csv(conn: Connection, *, store_id: int) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(COLUMNS)
    brands: dict[int, str] = {
        row.id: row.name
        for row in conn.execute(
            select(t.brands.c.id, t.brands.c.name).where(t.brands.c.store_id == store_id)
        )
    }
    by_product: dict[int, list[Any]] = {}
    for v in conn.execute(
        select(t.variants)
        .where(t.variants.c.store_id == store_id)
        .order_by(t.variants.c.product_id, t.variants.c.position, t.variants.c.id)
    ):
        by_product.setdefault(v.product_id, []).append(v)
    for p in conn.execute(
        select(t.products).where(t.products.c.store_id == store_id).order_by(t.products.c.id)
    ):
        variants = by_product.get(p.id, [])
        names = _option_names(variants)
        head = [
            p.slug,
            p.name,
            p.description_html or "",
            brands.get(p.brand_id, ""),
        ]
        tail = [p.image_url or "", STATUS_OUT.get(p.status, p.status)]
        if not variants:
            writer.writerow(
                [
                    *head,
                    "",
                    "",
                    "",
                    "",
                    p.sku or "",
                    _amount(p.price),
                    _amount(p.compare_at_price),
                    "",
                    *tail,
                ]
            )
            continue
        for index, v in enumerate(variants):
            values = [_option_value(v, name) for name in names]
            options = [
                names[0] if names and index == 0 else "",
                values[0] if names else "",
                names[1] if len(names) > 1 and index == 0 else "",
                values[1] if len(names) > 1 else "",
            ]
            own = head if index == 0 else [p.slug, "", "", ""]
            writer.writerow(
                [
                    *own,
                    *options,
                    v.sku or "",
                    _amount(v.price if v.price is not None else p.price),
                    _amount(v.compare_at_price),
                    _amount(v.stock),
                    *(tail if index == 0 else ["", ""]),
                ]
            )
    return out.getvalue()


def _option_names(variants: list[Any]) -> list[str]:
    """The first two option names; variants without options are told apart by their name,
    under the format's own option name ``Title``."""
    names: list[str] = []
    for v in variants:
        for name in v.options or {}:
            if name not in names:
                names.append(name)
    return names[:2] or [NAME_OPTION]


def _option_value(variant: Any, name: str) -> str:
    options = variant.options or {}
    if name == NAME_OPTION and name not in options:
        return str(variant.name)
    return str(options.get(name, ""))


def lines_of(text: str, *, max_rows: int) -> Iterator[tuple[int, dict[str, str]]]:
    reader = csv.DictReader(io.StringIO(text.lstrip("\ufeff")))
    missing = [c for c in ("Handle", "Variant Price") if c not in (reader.fieldnames or [])]
    if missing:
        raise CsvRefused(f"the header has no {', '.join(missing)} column")
    for count, row in enumerate(reader, start=1):
        if count > max_rows:
            raise CsvRefused(f"more than {max_rows} lines")
        yield reader.line_num, {k: (v or "") for k, v in row.items() if k is not None}


def plan_import(conn: Connection, *, store_id: int, text: str, max_rows: int) -> Plan:
    plan = Plan()
    products = {
        row.slug: row
        for row in conn.execute(select(t.products).where(t.products.c.store_id == store_id))
    }
    variants: dict[int, list[Any]] = {}
    for v in conn.execute(select(t.variants).where(t.variants.c.store_id == store_id)):
        variants.setdefault(v.product_id, []).append(v)
    seen: set[tuple[int, int | None]] = set()
    begun: set[str] = set()
    names: dict[str, list[str]] = {}
    brands: dict[str, int] | None = None
    new: dict[str, NewProduct] = {}
    for line, row in lines_of(text, max_rows=max_rows):
        handle = row.get("Handle", "").strip()
        product = products.get(handle)
        if product is None:
            if handle not in new:
                if brands is None:
                    brands = brand_ids(conn, store_id=store_id)
                new[handle], errors = first_line(line, handle, row, brands)
                plan.errors.extend(errors)
                plan.created.append(new[handle])
            try:
                add_line(new[handle], line, row)
            except ValueError as exc:
                plan.errors.append((line, str(exc)))
            continue
        if handle not in begun:
            begun.add(handle)
            names[handle] = [row.get("Option1 Name", ""), row.get("Option2 Name", "")]
            _product_changes(plan, line, product, row)
        try:
            _variant_changes(
                plan, line, product, variants.get(product.id, []), row, names[handle], seen
            )
        except ValueError as exc:
            plan.errors.append((line, str(exc)))
    return plan


def _product_changes(plan: Plan, line: int, product: Any, row: dict[str, str]) -> None:
    wanted: list[tuple[str, str, Any, Any]] = []
    if row.get("Title", "").strip():
        wanted.append(("Title", "name", product.name, row["Title"].strip()))
    if "Body (HTML)" in row and row.get("Title", "").strip():
        wanted.append(
            ("Body (HTML)", "description_html", product.description_html or "", row["Body (HTML)"])
        )
    status = row.get("Status", "").strip().lower()
    if status:
        if status not in STATUS_IN:
            plan.errors.append((line, f"Status: {status[:20]!r} is not active or draft"))
        else:
            wanted.append(("Status", "status", product.status, STATUS_IN[status]))
    for column, _name, before, after in wanted:
        if before != after:
            plan.changes.append(Change(line, product.slug, column, before, after, product.id, None))


def _variant_changes(
    plan: Plan,
    line: int,
    product: Any,
    variants: list[Any],
    row: dict[str, str],
    names: list[str],
    seen: set[tuple[int, int | None]],
) -> None:
    price = read_amount(row.get("Variant Price", ""), "Variant Price")
    compare = read_amount(row.get("Variant Compare At Price", ""), "Variant Compare At Price")
    if not variants:
        key: tuple[int, int | None] = (product.id, None)
        if key in seen:
            raise ValueError(f"a second line for {product.slug}, which has no variants")
        seen.add(key)
        for column, before, after in (
            ("Variant Price", product.price, price),
            ("Variant Compare At Price", product.compare_at_price, compare),
        ):
            if before != after:
                plan.changes.append(
                    Change(line, product.slug, column, before, after, product.id, None)
                )
        return
    variant = _match(variants, row, names)
    if (product.id, variant.id) in seen:
        raise ValueError(f"a second line for the same variant of {product.slug}")
    seen.add((product.id, variant.id))
    stock = read_stock(row.get("Variant Inventory Qty", ""))
    for column, before, after in (
        ("Variant Price", variant.price if variant.price is not None else product.price, price),
        ("Variant Compare At Price", variant.compare_at_price, compare),
        ("Variant Inventory Qty", variant.stock, stock),
    ):
        if before != after:
            plan.changes.append(
                Change(line, product.slug, column, before, after, product.id, variant.id)
            )


def _match(variants: list[Any], row: dict[str, str], names: list[str]) -> Any:
    sku = row.get("Variant SKU", "").strip()
    if sku:
        for v in variants:
            if (v.sku or "") == sku:
                return v
        raise ValueError(f"Variant SKU {sku[:60]!r} is not a variant of this product")
    values = [row.get("Option1 Value", "").strip(), row.get("Option2 Value", "").strip()]
    for v in variants:
        options = v.options or {}
        if all(
            not name or str(options.get(name, "")) == value
            for name, value in zip(names, values, strict=True)
        ):
            return v
    raise ValueError("no variant has these option values (give its Variant SKU)")


_PRODUCT_COLUMNS = {"Title": "name", "Body (HTML)": "description_html", "Status": "status"}
_AMOUNTS = {
    "Variant Price": "price",
    "Variant Compare At Price": "compare_at_price",
    "Variant Inventory Qty": "stock",
}


def apply_plan(conn: Connection, plan: Plan, *, store_id: int, now: datetime) -> None:
    """Every change and new product of an error-free plan, each through the catalogue's writes
    (webhooks)."""
    assert not plan.errors
    products: dict[int, dict[str, Any]] = {}
    variant_changes: dict[tuple[int, int], dict[str, Any]] = {}
    for change in plan.changes:
        if change.variant_id is None:
            column = _PRODUCT_COLUMNS.get(change.what) or _AMOUNTS[change.what]
            products.setdefault(change.product_id, {})[column] = change.after
        else:
            key = (change.product_id, change.variant_id)
            variant_changes.setdefault(key, {})[_AMOUNTS[change.what]] = change.after
    for product_id, values in products.items():
        update_entity(conn, Entity.PRODUCT, product_id, values, store_id=store_id, now=now)
    for (product_id, variant_id), values in variant_changes.items():
        set_variant(
            conn,
            store_id=store_id,
            product_id=product_id,
            variant_id=variant_id,
            changes=values,
            now=now,
        )
    for product in plan.created:
        create_product(conn, product, store_id=store_id, now=now)
