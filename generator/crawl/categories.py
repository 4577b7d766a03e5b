"""The category phase: every category at every depth, and a page for each one with a url.

The two-level /categories/tree gives the top levels; below the second level the spec offers
/categories?parent=<id> (asked once per category whose children the tree does not show). When
an implementation has no tree, /categories (top level) is the start. Breadcrumbs come from the
parent links found on the way, so a category costs one request per page of its products
(/products?category=<id>, walked by cursor), each page asked again when its version moves
(``versions``). Only a category the walk could not place (reached through
a custom path) asks /categories/{id}/breadcrumb and /categories/{id}/subcategories.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass

from generator.crawl import normalize
from generator.crawl.ask import Api, absent_as_none, gather_limited, items_unless_absent
from generator.crawl.observer import CrawlObserver, SkipLog
from generator.crawl.versions import CategoryClaims, listed_version, listing_bound
from generator.model import Category, CategoryPage, Crumb


@dataclass(frozen=True, slots=True)
class CategoryIndex:
    """Every known category by id, each with its full subtree of children."""

    by_id: Mapping[int, Category]
    roots: tuple[Category, ...]
    parent_of: Mapping[int, int | None]

    def breadcrumb(self, category_id: int) -> tuple[Crumb, ...] | None:
        """Root first, the category itself last; None when a parent is not known."""
        chain: list[Crumb] = []
        current: int | None = category_id
        while current is not None:
            found = self.by_id.get(current)
            if found is None or len(chain) > len(self.by_id):
                return None
            chain.append(Crumb(id=found.id, name=found.name, url=found.url))
            current = self.parent_of.get(current, found.parent_id)
        return tuple(reversed(chain))


async def index_categories(
    api: Api, tree: tuple[Category, ...] | None, *, observer: CrawlObserver
) -> CategoryIndex:
    settings = api.settings
    flat: dict[int, Category] = {}
    parent_of: dict[int, int | None] = {}
    children: dict[int, list[int]] = {}
    frontier: list[int] = []

    def add(category: Category, parent: int | None, depth: int) -> None:
        if category.id in flat:
            return
        flat[category.id] = category
        parent_of[category.id] = parent if parent is not None else category.parent_id
        children[category.id] = []
        if parent is not None:
            children[parent].append(category.id)
        for child in category.children:
            add(child, category.id, depth + 1)
        # The tree shows two levels: below them an empty `children` means "not shown".
        if depth >= 2 and not category.children:
            frontier.append(category.id)

    if tree is None:
        roots, _ = await api.first_page(
            "/categories", normalize.category, {"limit": settings.page_size}
        )
        for root in roots:
            add(dataclasses.replace(root, children=()), None, 2)
    else:
        for root in tree:
            add(root, None, 1)

    observer.phase_started("category levels", None)
    while frontier:
        level, frontier = frontier, []

        async def children_of(parent: int) -> tuple[int, list[Category]]:
            found, _ = await api.first_page(
                "/categories", normalize.category, {"parent": parent, "limit": settings.page_size}
            )
            observer.item_done("category levels")
            return parent, found

        for parent, found in await gather_limited(level, children_of, limit=settings.concurrency):
            for child in found:
                # An implementation that ignores `parent` answers the top level again.
                if child.parent_id == parent or (child.parent_id is None and child.id not in flat):
                    add(dataclasses.replace(child, children=()), parent, 3)

    built: dict[int, Category] = {}

    def build(category_id: int, path: frozenset[int]) -> Category:
        if category_id in built:
            return built[category_id]
        subtree = tuple(
            build(child, path | {category_id})
            for child in children[category_id]
            if child not in path and child != category_id
        )
        category = dataclasses.replace(flat[category_id], children=subtree)
        built[category_id] = category
        return category

    roots_ids = [cid for cid, parent in parent_of.items() if parent is None or parent not in flat]
    roots_built = tuple(build(cid, frozenset()) for cid in roots_ids)
    # Discovery order (tree order, then deeper levels), not the order of building.
    by_id = {cid: build(cid, frozenset()) for cid in flat}
    return CategoryIndex(by_id=by_id, roots=roots_built, parent_of=parent_of)


async def category_pages(
    api: Api,
    index: CategoryIndex,
    extra_ids: list[int],
    *,
    claims: CategoryClaims,
    cards: Mapping[int, str],
    lists: str,
    skips: SkipLog,
    observer: CrawlObserver,
) -> list[CategoryPage]:
    """A page for every category with a url, plus those reached only through custom paths.
    ``claims`` tells which products claim each category, ``cards`` every card's version;
    ``lists`` is the version of the context and the lists as a whole (``Api.read_so_far`` once
    they are read), what a category reached only through a custom path depends on."""
    settings = api.settings
    wanted = [category for category in index.by_id.values() if category.url is not None]
    wanted_ids = {category.id for category in wanted}
    extra = [cid for cid in dict.fromkeys(extra_ids) if cid not in wanted_ids]
    observer.phase_started("categories", len(wanted) + len(extra))

    async def page(category_id: int) -> CategoryPage | None:
        category = index.by_id.get(category_id)
        breadcrumb = index.breadcrumb(category_id)
        if category is None:
            category = await absent_as_none(
                api.one(f"/categories/{category_id}", normalize.category, version=lists)
            )
            if category is None:
                skips.add(f"category {category_id}", "GET /categories/{id} answered 404")
                observer.item_done("categories")
                return None
        subcategories = category.children
        if category_id not in index.by_id:
            subcategories = tuple(
                await items_unless_absent(
                    api.walk(
                        f"/categories/{category_id}/subcategories",
                        normalize.category,
                        version=lists,
                    )
                )
                or ()
            )
            category = dataclasses.replace(category, children=subcategories)
        if breadcrumb is None:
            crumbs = await items_unless_absent(
                api.walk(
                    f"/categories/{category_id}/breadcrumb",
                    normalize.crumb,
                    version=lists,
                )
            )
            breadcrumb = (
                tuple(crumbs)
                if crumbs
                else (Crumb(id=category.id, name=category.name, url=category.url),)
            )
        params = {"category": category_id, "limit": settings.page_size}
        if category_id in index.by_id:
            base = claims.version(category)
            products = (
                await api.walk(
                    "/products",
                    normalize.product_card,
                    params,
                    version=lambda listed: listed_version(base, listed, cards),
                    bound=bound,
                )
            ).items
        else:  # reached through a custom path only: its subtree is not known
            products = (
                await api.walk(
                    "/products",
                    normalize.product_card,
                    params,
                    version=lists,
                    bound=bound,
                )
            ).items
        observer.item_done("categories")
        return CategoryPage(
            category=category,
            breadcrumb=breadcrumb,
            subcategories=subcategories,
            products=tuple(products),
            has_more=False,
        )

    bound = listing_bound(len(cards), settings.list_margin)
    ids = [category.id for category in wanted] + extra
    pages = await gather_limited(ids, page, limit=settings.concurrency)
    return [page for page in pages if page is not None]
