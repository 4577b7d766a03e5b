"""Categories as a tree: descendants of a category and the products filed under them.

The tree is loaded whole (id, parent) per request: a store has tens or hundreds of categories,
and walking it in Python keeps the SQL portable (no recursive CTE dialects).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection, Mapping

from sqlalchemy import ColumnElement, Connection, func, or_, select

from companion.db.schema import categories, product_categories, products


def category_parents(conn: Connection, store_id: int) -> dict[int, int | None]:
    query = select(categories.c.id, categories.c.parent_id).where(categories.c.store_id == store_id)
    return {cid: parent for cid, parent in conn.execute(query)}


def descendants(parents: Mapping[int, int | None], root: int) -> set[int]:
    """``root`` and every category below it; safe against cycles in bad data."""
    children: dict[int, list[int]] = defaultdict(list)
    for cid, parent in parents.items():
        if parent is not None:
            children[parent].append(cid)
    found = {root}
    stack = [root]
    while stack:
        for child in children[stack.pop()]:
            if child not in found:
                found.add(child)
                stack.append(child)
    return found


def filed_under(category_ids: Collection[int]) -> ColumnElement[bool]:
    """Products whose primary or extra category is one of ``category_ids``."""
    extra = select(product_categories.c.product_id).where(
        product_categories.c.category_id.in_(category_ids)
    )
    return or_(products.c.category_id.in_(category_ids), products.c.id.in_(extra))


def product_counts(
    conn: Connection, store_id: int, category_ids: Collection[int]
) -> dict[int, int]:
    """category id -> published products in it or in its subcategories."""
    parents = category_parents(conn, store_id)
    counts: dict[int, int] = {}
    for cid in category_ids:
        query = select(func.count()).where(
            products.c.store_id == store_id,
            products.c.status == "published",
            filed_under(descendants(parents, cid)),
        )
        counts[cid] = int(conn.execute(query).scalar_one())
    return counts
