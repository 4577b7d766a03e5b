"""Categories as a tree: descendants of a category and the products filed under them.

For filters, the tree is loaded whole (id, parent) and walked in Python: a store has tens or
hundreds of categories. Product counts of several categories are one query: a recursive CTE
(PostgreSQL and SQLite both have ``WITH RECURSIVE``) pairs each category with everything below
it, and the products filed there are counted once per category.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection, Mapping

from sqlalchemy import ColumnElement, Connection, func, or_, select, union_all

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
    """category id -> published products in it or in its subcategories (a product filed in
    several of them counts once). UNION (not UNION ALL) keeps the walk finite on a cycle."""
    if not category_ids:
        return {}
    start = select(categories.c.id.label("root"), categories.c.id.label("category_id")).where(
        categories.c.store_id == store_id, categories.c.id.in_(sorted(set(category_ids)))
    )
    tree = start.cte("tree", recursive=True)
    below = select(tree.c.root, categories.c.id).where(
        categories.c.parent_id == tree.c.category_id, categories.c.store_id == store_id
    )
    tree = tree.union(below)
    published = [products.c.store_id == store_id, products.c.status == "published"]
    filed = union_all(
        select(products.c.id.label("product_id"), products.c.category_id).where(*published),
        select(product_categories.c.product_id, product_categories.c.category_id)
        .join(products, products.c.id == product_categories.c.product_id)
        .where(*published),
    ).subquery("filed")
    query = (
        select(tree.c.root, func.count(filed.c.product_id.distinct()))
        .join(filed, filed.c.category_id == tree.c.category_id)
        .group_by(tree.c.root)
    )
    counts = {cid: 0 for cid in category_ids}
    counts.update({int(root): int(n) for root, n in conn.execute(query)})
    return counts
