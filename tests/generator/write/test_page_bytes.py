"""Fingerprint bytes: equal pages give equal bytes, any input's change gives other bytes."""

from __future__ import annotations

import dataclasses
import pickle
import shutil
from datetime import timedelta, timezone
from pathlib import Path

from generator.config import BUNDLED_THEME
from generator.crawl.pack import pack, unpack
from generator.model import Catalog, Category, CategoryPage, PackedProduct, Product
from generator.plan.site_plan import Page, SitePlan, plan_site
from generator.render.pages import build_environment
from generator.write.incremental import RenderInputs
from generator.write.page_bytes import ModelBytes, model_bytes
from tests.support.fixture_site import fixture_plan
from tests.support.fixture_store import CAP, SHIRT, SITE_URL, small_catalog, with_product


def _product_page_and_product() -> tuple[Page, Product]:
    plan = fixture_plan()
    page = next(page for page in plan.pages if isinstance(page.subject, PackedProduct))
    assert isinstance(page.subject, PackedProduct)
    return page, unpack(page.subject)


def test_equal_pages_give_equal_bytes() -> None:
    page, _ = _product_page_and_product()
    copy = pickle.loads(pickle.dumps(page))
    assert copy is not page
    assert model_bytes(copy) == model_bytes(page)


def test_every_field_of_a_nested_dataclass_counts() -> None:
    page, product = _product_page_and_product()
    before = model_bytes(page)
    card = product.card
    changes = {
        "price": (card.price or 0) + 1000,
        "name": card.name + " mới",
        "in_stock": not card.in_stock,
        "updated_at": None,
    }
    for name, value in changes.items():
        moved_card = dataclasses.replace(card, **{name: value})
        moved_product = dataclasses.replace(product, card=moved_card)
        moved = dataclasses.replace(page, subject=pack(moved_product))
        assert model_bytes(moved) != before, name
    assert model_bytes(dataclasses.replace(page, title=page.title + "!")) != before


def _packed_plan(catalog: Catalog | None = None) -> SitePlan:
    return plan_site(catalog or small_catalog(), SITE_URL)


def _fingerprints(plan: SitePlan) -> dict[str, str]:
    inputs = RenderInputs.of(plan, build_environment(BUNDLED_THEME), BUNDLED_THEME)
    return {page.path: inputs.fingerprint(page) for page in plan.pages if page.kind == "product"}


def test_a_card_digested_once_gives_the_bytes_it_gives_each_time() -> None:
    plan = _packed_plan()
    memo = ModelBytes()
    pages = [page for page in plan.pages if page.kind == "product"]
    first = [memo(page) for page in pages]
    assert [memo(page) for page in pages] == first  # the cards now come from the memo
    assert [ModelBytes()(page) for page in pages] == first
    assert len(set(first)) == len(pages)


def test_a_product_page_fingerprint_moves_with_every_input_it_is_made_from() -> None:
    catalog = small_catalog()
    before = _fingerprints(_packed_plan(catalog))
    assert len(before) >= 2 and len(set(before.values())) == len(before)
    assert _fingerprints(_packed_plan(catalog)) == before  # the same inputs: the same digests

    store = dataclasses.replace(catalog.site.store, name="Cửa hàng khác")
    renamed = dataclasses.replace(catalog, site=dataclasses.replace(catalog.site, store=store))
    assert set(_fingerprints(_packed_plan(renamed)).values()).isdisjoint(before.values())

    # The API's breadcrumb of a category (on its page, not in the site context) is the trail
    # of every product page under it.
    crumbed = [page for page in catalog.categories if page.breadcrumb]
    assert crumbed
    pages = tuple(
        dataclasses.replace(
            page,
            breadcrumb=tuple(dataclasses.replace(c, name=c.name + " mới") for c in page.breadcrumb),
        )
        for page in catalog.categories
    )
    trail_moved = _fingerprints(_packed_plan(dataclasses.replace(catalog, categories=pages)))
    assert trail_moved != before

    # One product's price: its page alone (and those showing its card as related) moves.
    first = unpack(catalog.products[0])
    cheaper = pack(dataclasses.replace(first, card=dataclasses.replace(first.card, price=1)))
    changed = dataclasses.replace(catalog, products=(cheaper, *catalog.products[1:]))
    after = _fingerprints(_packed_plan(changed))
    assert first.card.url is not None
    assert after[first.card.url] != before[first.card.url]
    others = [path for path in before if path != first.card.url]
    assert any(after[path] == before[path] for path in others)


def test_a_related_card_reaches_the_fingerprint() -> None:
    plan = _packed_plan()
    page = next(p for p in plan.pages if isinstance(p.subject, PackedProduct) and p.subject.related)
    assert isinstance(page.subject, PackedProduct)
    inputs = RenderInputs.of(plan, build_environment(BUNDLED_THEME), BUNDLED_THEME)
    related = page.subject.related
    renamed = dataclasses.replace(related[0], name=related[0].name + "!")
    subject = dataclasses.replace(page.subject, related=(renamed, *related[1:]))
    assert inputs.fingerprint(dataclasses.replace(page, subject=subject)) != inputs.fingerprint(
        page
    )
    moved = dataclasses.replace(page, canonical_path="/elsewhere", in_sitemap=False)
    assert inputs.fingerprint(moved) != inputs.fingerprint(page)
    # Each on its own, and no canonical is not an empty one.
    variants = [
        page,
        dataclasses.replace(page, canonical_path="/elsewhere"),
        dataclasses.replace(page, in_sitemap=False),
        dataclasses.replace(page, canonical_path=None),
        dataclasses.replace(page, canonical_path=""),
        dataclasses.replace(page, path=page.path + "-2"),
    ]
    assert len({inputs.fingerprint(p) for p in variants}) == len(variants)
    assert inputs.fingerprint(page) == inputs.fingerprint(page)  # the per-template base copied


def test_equal_graphs_give_equal_bytes_however_their_parts_are_shared() -> None:
    page, product = _product_page_and_product()
    name = product.card.name
    unshared = "".join(list(name))  # equal, another object
    assert unshared == name and unshared is not name
    twin = dataclasses.replace(product, card=dataclasses.replace(product.card, name=unshared))
    crumbs = tuple(dataclasses.replace(c, name="".join(list(c.name))) for c in page.breadcrumb)
    copy = dataclasses.replace(page, breadcrumb=crumbs)
    assert model_bytes(copy) == model_bytes(page)
    assert ModelBytes()(copy) == ModelBytes()(page)
    assert ModelBytes().card_digest(twin.card) == ModelBytes().card_digest(product.card)


def test_a_product_change_moves_only_the_listing_pages_that_show_it() -> None:
    def listings(catalog: Catalog) -> dict[str, str]:
        plan = plan_site(catalog, SITE_URL, products_per_page=1)
        inputs = RenderInputs.of(plan, build_environment(BUNDLED_THEME), BUNDLED_THEME)
        kinds = ("product_list", "category", "collection")
        return {p.path: inputs.fingerprint(p) for p in plan.pages if p.kind in kinds}

    catalog = small_catalog()
    before = listings(catalog)
    last = len(catalog.products) - 1
    moved = with_product(
        catalog, last, lambda p: dataclasses.replace(p, card=dataclasses.replace(p.card, price=1))
    )
    after = listings(moved)
    assert before.keys() == after.keys() and len(before) > 3
    changed = sorted(path for path in before if before[path] != after[path])
    # The last product is on the last page of the all-products listing, and on one page of
    # each listing that holds it; no other listing page is rendered again.
    assert f"/san-pham/trang/{last + 1}" in changed
    assert "/san-pham" not in changed
    card = moved.products[last].card
    showing = {
        page.path
        for page in plan_site(moved, SITE_URL, products_per_page=1).pages
        if page.kind in ("product_list", "category", "collection")
        and card in getattr(page.subject, "products", ())
    }
    assert set(changed) == showing


def test_a_listing_page_moves_with_its_category_subtree_and_each_card() -> None:
    plan = plan_site(small_catalog(), SITE_URL, products_per_page=2)
    page = next(p for p in plan.pages if p.kind == "category" and p.subject.products)
    assert isinstance(page.subject, CategoryPage)
    subject = page.subject
    before = ModelBytes()(page)
    assert ModelBytes()(pickle.loads(pickle.dumps(page))) == before  # equal, not the same
    memo = ModelBytes()
    assert [memo(page), memo(page)] == [before, before]  # the category from the memo

    child = Category(99, subject.category.id, "Con", "con", "/con", "<p>mô tả</p>", None, 0,
                     None, None, None)  # fmt: skip
    described = dataclasses.replace(child, description_html="<p>khác</p>")
    for moved_subject in (
        dataclasses.replace(
            subject, category=dataclasses.replace(subject.category, children=(child,))
        ),
        dataclasses.replace(subject, subcategories=(child,)),
        dataclasses.replace(subject, products=subject.products[:-1]),
        dataclasses.replace(
            subject,
            products=(
                dataclasses.replace(subject.products[0], in_stock=not subject.products[0].in_stock),
                *subject.products[1:],
            ),
        ),
        dataclasses.replace(subject, has_more=not subject.has_more),
    ):
        assert ModelBytes()(dataclasses.replace(page, subject=moved_subject)) != before
    # A grandchild's description reaches it through the subtree.
    with_child = dataclasses.replace(
        subject, category=dataclasses.replace(subject.category, children=(child,))
    )
    with_described = dataclasses.replace(
        subject, category=dataclasses.replace(subject.category, children=(described,))
    )
    assert ModelBytes()(dataclasses.replace(page, subject=with_child)) != ModelBytes()(
        dataclasses.replace(page, subject=with_described)
    )


def test_a_pages_breadcrumb_and_lastmod_count_to_the_byte() -> None:
    page, _ = _product_page_and_product()
    assert page.lastmod is not None and len(page.breadcrumb) >= 2
    before = ModelBytes()(page)
    crumb = page.breadcrumb[-1]
    moments = [
        page.lastmod + timedelta(microseconds=1),
        page.lastmod.replace(tzinfo=timezone(timedelta(hours=7))),
        page.lastmod.replace(tzinfo=None),
        None,
    ]
    head = page.breadcrumb[:-1]
    variants = [
        dataclasses.replace(page, breadcrumb=head),
        dataclasses.replace(page, breadcrumb=(*head, dataclasses.replace(crumb, url=None))),
        dataclasses.replace(page, breadcrumb=(*head, dataclasses.replace(crumb, name="!"))),
        *(dataclasses.replace(page, lastmod=moment) for moment in moments),
    ]
    found = [ModelBytes()(variant) for variant in variants]
    assert before not in found and len(set(found)) == len(found)


def test_a_product_page_moves_with_what_its_unchanged_pack_does_not_hold(
    tmp_path: Path,
) -> None:
    # A product page's fingerprint takes its pack's kept digests instead of the blob: it must
    # still move with every input the pack does not hold, the pack itself unchanged.
    catalog = small_catalog()
    plan = plan_site(catalog, SITE_URL)
    page = next(p for p in plan.pages if p.kind == "product" and len(p.breadcrumb) > 2)
    packed = page.subject
    assert isinstance(packed, PackedProduct)
    env = build_environment(BUNDLED_THEME)
    before = RenderInputs.of(plan, env, BUNDLED_THEME).fingerprint(page)

    # Its breadcrumb's category renamed (the product's own answer unchanged).
    renamed = dataclasses.replace(
        catalog,
        categories=tuple(
            dataclasses.replace(
                listing,
                breadcrumb=tuple(
                    dataclasses.replace(crumb, name=crumb.name + " mới")
                    for crumb in listing.breadcrumb
                ),
            )
            for listing in catalog.categories
        ),
    )
    moved_plan = plan_site(renamed, SITE_URL)
    moved = next(p for p in moved_plan.pages if p.path == page.path)
    assert moved.subject is packed and moved.breadcrumb != page.breadcrumb
    assert RenderInputs.of(moved_plan, env, BUNDLED_THEME).fingerprint(moved) != before

    # A related product's price changed: its card, not the pack's blob.
    card = CAP if packed.card != CAP else SHIRT
    repriced = dataclasses.replace(card, price=(card.price or 0) + 1_000)
    found = [
        RenderInputs.of(plan, env, BUNDLED_THEME).fingerprint(
            dataclasses.replace(page, subject=dataclasses.replace(packed, related=related))
        )
        for related in ((card,), (repriced,))
    ]
    assert found[0] != found[1]

    # The theme changed: one template of the page's own.
    theme = tmp_path / "theme"
    shutil.copytree(BUNDLED_THEME, theme)
    template = theme / page.template
    template.write_text(template.read_text(encoding="utf-8") + "\n{# khác #}\n", encoding="utf-8")
    edited = RenderInputs.of(plan, build_environment(theme), theme).fingerprint(page)
    assert edited != before
