"""GET /filters: what a category page can offer as filters (display only; /products has no facets).

Brands of the products in the category (and its subcategories), the variant option values they
come in, and price ranges on a 1-2-5 ladder covering their prices.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from sqlalchemy import ColumnElement, func, select

from companion.db.schema import brands, categories, products, variants
from companion.deps import CurrentTenant, ReadDb
from companion.problems import not_found
from companion.routes.one_hop import OneHopRoute
from companion.routes.read.category_index import category_parents, descendants, filed_under
from companion.routes.read.params import Ref
from companion.routes.read.refs import ref_id
from companion.schemas.read import FilterAttribute, FilterBrand, Filters, PriceRange

router = APIRouter(route_class=OneHopRoute)

FIRST_STEP = 100_000  # VND


def ladder(top: int) -> list[int]:
    """0, 100k, 200k, 500k, 1M, 2M, 5M, ... up to the first step above ``top``."""
    steps = [0]
    base = FIRST_STEP
    while steps[-1] <= top:
        for factor in (1, 2, 5):
            steps.append(base * factor)
            if steps[-1] > top:
                break
        base *= 10
    return steps


def price_ranges(low: int | None, high: int | None) -> list[PriceRange]:
    """Ranges [min, max) of the ladder that hold prices between ``low`` and ``high``."""
    if low is None or high is None:
        return []
    low, high = max(low, 0), max(high, 0)
    steps = ladder(high)
    return [
        PriceRange(min=start, max=end)
        for start, end in zip(steps, steps[1:], strict=False)
        if low < end and high >= start
    ]


def option_values(rows: list[Any]) -> list[FilterAttribute]:
    values: dict[str, set[str]] = {}
    for (options,) in rows:
        if isinstance(options, dict):
            for name, value in options.items():
                values.setdefault(str(name), set()).add(str(value))
    return [FilterAttribute(name=n, values=sorted(v)) for n, v in sorted(values.items())]


@router.get("/filters", summary="Filter configuration of a category (display only)")
def filters_for(db: ReadDb, tenant: CurrentTenant, category: Ref = None) -> Filters:
    store_id = tenant.store_id
    scope: list[ColumnElement[bool]] = [
        products.c.store_id == store_id,
        products.c.status == "published",
    ]
    if category is not None:
        cid = ref_id(db, categories, store_id, category)
        if cid is None:
            raise not_found(f"category {category!r}")
        scope.append(filed_under(descendants(category_parents(db, store_id), cid)))
    in_scope = select(products.c.id).where(*scope)
    brand_rows = db.execute(
        select(brands.c.id, brands.c.name)
        .where(
            brands.c.store_id == store_id,
            brands.c.id.in_(select(products.c.brand_id).where(*scope)),
        )
        .order_by(brands.c.name, brands.c.id)
    ).all()
    option_rows = db.execute(
        select(variants.c.options).where(
            variants.c.store_id == store_id,
            variants.c.on_sale.is_(True),
            variants.c.product_id.in_(in_scope),
        )
    ).all()
    low, high = db.execute(
        select(func.min(products.c.price), func.max(products.c.price)).where(*scope)
    ).one()
    return Filters(
        brands=[FilterBrand(id=b.id, name=b.name) for b in brand_rows],
        attributes=option_values(list(option_rows)),
        price_ranges=price_ranges(low, high),
    )
