"""Brands and the two-level category tree of the demo store.

The tree is planned as drafts (rows without ids) so the caller can insert the top level,
learn its ids, then insert the children under them. Edge cases the spec names live here:
a published category with url NULL ("Sơ sinh"), one with url '' ("Dép"), a draft one, and
categories with and without an image.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace
from typing import Any

from companion.seed.images import demo_image
from companion.seed.paths import category_url
from companion.seed.slugs import slugify
from companion.seed.store_rows import STORE_NAME
from companion.seed.timeline import edited_after, moment_in_history
from companion.seed.vocabulary import BRANDS, DEPARTMENTS, LINE_QUALIFIERS, ProductLine

#: Leaf categories whose url is NULL / '' (published: they have products but no page).
NULL_URL_CATEGORY = "Sơ sinh"
EMPTY_URL_CATEGORY = "Dép"
#: A draft leaf under "Phụ kiện": never served, holds no products.
DRAFT_CATEGORY = "Trang sức"
DRAFT_PARENT = "Phụ kiện"

#: One extra leaf per this many products (mild growth), at most MAX_EXTRA_LINES.
PRODUCTS_PER_EXTRA_LINE = 2_500
MAX_EXTRA_LINES = 60


@dataclass(frozen=True, slots=True)
class CategoryDraft:
    """A category row without id and parent_id; ``line`` is set on leaves that hold products."""

    row: dict[str, Any]
    line: ProductLine | None
    children: tuple[CategoryDraft, ...] = ()


@dataclass(frozen=True, slots=True)
class Shelf:
    """A stored leaf category that products are placed in."""

    category_id: int
    line: ProductLine


def brand_rows(store_id: int) -> list[dict[str, Any]]:
    return [{"store_id": store_id, "name": name} for name in BRANDS]


def plan_category_tree(rng: random.Random, store_id: int, products: int) -> list[CategoryDraft]:
    """The top-level categories with their children, extra lines added as the catalogue grows."""
    extras = _extra_lines(rng, min(products // PRODUCTS_PER_EXTRA_LINE, MAX_EXTRA_LINES))
    tops: list[CategoryDraft] = []
    for position, department in enumerate(DEPARTMENTS):
        lines = [*department.lines, *extras.get(department.name, [])]
        children = [
            CategoryDraft(_category_row(rng, store_id, line.name, index, leaf=True), line)
            for index, line in enumerate(lines)
        ]
        if department.name == DRAFT_PARENT:
            row = _category_row(rng, store_id, DRAFT_CATEGORY, len(children), leaf=True)
            children.append(CategoryDraft({**row, "status": "draft"}, None))
        top = _category_row(rng, store_id, department.name, position, leaf=False)
        top["description_html"] = f"<p>{department.blurb}</p>"
        tops.append(CategoryDraft(top, None, tuple(children)))
    return tops


def _extra_lines(rng: random.Random, count: int) -> dict[str, list[ProductLine]]:
    """``count`` qualified lines ("Đầm dự tiệc"), grouped by the department they belong to."""
    combos = [
        (department.name, line, qualifier)
        for department in DEPARTMENTS
        for line in department.lines
        for qualifier in LINE_QUALIFIERS
    ]
    grouped: dict[str, list[ProductLine]] = {}
    for department_name, line, qualifier in rng.sample(combos, min(count, len(combos))):
        extra = replace(line, name=f"{line.name} {qualifier}")
        grouped.setdefault(department_name, []).append(extra)
    return grouped


def _category_row(
    rng: random.Random, store_id: int, name: str, position: int, *, leaf: bool
) -> dict[str, Any]:
    slug = slugify(name)
    url: str | None = category_url(slug)
    if name == NULL_URL_CATEGORY:
        url = None
    elif name == EMPTY_URL_CATEGORY:
        url = ""
    # Every top level has a cover; about half the leaves do, the rest have none at all.
    has_image = not leaf or rng.random() < 0.5
    described = not leaf or rng.random() < 0.5
    created = moment_in_history(rng)
    return {
        "store_id": store_id,
        "parent_id": None,
        "name": name,
        "slug": slug,
        "url": url,
        "description_html": (
            f"<p>{name}: mẫu mới mỗi tuần, <strong>giao nhanh</strong> toàn quốc.</p>"
            if described
            else None
        ),
        "image_url": demo_image("category", slug) if has_image else None,
        "meta_title": f"{name} | {STORE_NAME}" if rng.random() < 0.5 else None,
        "meta_description": f"Mua {name.lower()} chính hãng, giá tốt." if described else None,
        "status": "published",
        "position": position,
        "created_at": created,
        "updated_at": edited_after(rng, created),
    }
