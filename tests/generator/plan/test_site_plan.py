from __future__ import annotations

from dataclasses import replace

import pytest

from generator.crawl.pack import pack, unpack
from generator.errors import PathCollision
from generator.model import Catalog, CmsPage, CollectionPage, PackedProduct, UnusableUrl
from generator.plan.site_plan import ArticleListing, Home, Page, SitePlan, plan_site
from tests.support.fixture_site import fixture_plan
from tests.support.fixture_store import SITE_URL, small_catalog, with_product


def page(plan: SitePlan, path: str) -> Page:
    found = plan.page_at(path)
    assert found is not None, f"no page at {path}"
    return found


def with_product_url(catalog: Catalog, index: int, url: str | None) -> Catalog:
    return with_product(catalog, index, lambda p: replace(p, card=replace(p.card, url=url)))


def test_every_kind_of_page_is_planned_at_its_path() -> None:
    plan = fixture_plan()
    kinds = {(p.kind, p.path) for p in plan.pages}
    assert ("home", "/") in kinds
    assert ("product", "/%C3%A1o-thun") in kinds
    assert ("category", "/thoi-trang/ao") in kinds
    assert ("collection", "/bo-suu-tap/he-2026") in kinds
    assert ("article", "/bai-viet/cach-chon-ao") in kinds
    assert ("article_list", "/bai-viet") in kinds
    assert ("cms_page", "/gioi-thieu") in kinds
    assert ("not_found", "/404") in kinds


def test_null_url_entities_get_no_page_of_their_own() -> None:
    plan = fixture_plan()
    product_ids = {p.subject.card.id for p in plan.pages if isinstance(p.subject, PackedProduct)}
    cms_paths = {p.path for p in plan.pages if isinstance(p.subject, CmsPage)}
    assert 3 in product_ids  # only through its custom path
    assert page(plan, "/mu-dac-biet").kind == "product"
    assert cms_paths == {"/gioi-thieu", "/doi-tra"}
    assert not any(p.name == "Quần" for p in plan.pages)  # category with a null url


def test_non_ascii_path_given_in_nfd_is_planned_in_nfc_percent_encoded_form() -> None:
    assert page(fixture_plan(), "/quần-jean").path == "/qu%E1%BA%A7n-jean"


def test_custom_path_to_an_entity_with_its_own_page_points_its_canonical_there() -> None:
    custom = page(fixture_plan(), "/khuyen-mai-he")
    assert isinstance(custom.subject, CollectionPage)
    assert custom.canonical_path == "/bo-suu-tap/he-2026"
    assert custom.in_sitemap is False


def test_custom_path_to_an_entity_without_url_is_the_canonical_page() -> None:
    plan = fixture_plan()
    for path in ("/doi-tra", "/mu-dac-biet"):
        custom = page(plan, path)
        assert custom.canonical_path == path
        assert custom.in_sitemap is True


def test_custom_path_equal_to_the_own_path_adds_no_second_page() -> None:
    plan = fixture_plan()
    assert [p.path for p in plan.pages].count("/bo-suu-tap/he-2026") == 1


def test_custom_path_to_a_missing_entity_is_skipped_with_a_reason() -> None:
    plan = fixture_plan()
    assert plan.page_at("/khong-ton-tai") is None
    assert any(s.what == "path /khong-ton-tai" and "999" in s.reason for s in plan.skipped)


def test_not_found_page_has_no_canonical_and_stays_out_of_the_sitemap() -> None:
    missing = page(fixture_plan(), "/404")
    assert missing.canonical_path is None
    assert missing.in_sitemap is False
    assert str(missing.file) == "404.html"


def test_not_found_page_is_never_a_link_target() -> None:
    assert fixture_plan().links.href("/404") is None


def test_every_page_has_a_title_and_a_description() -> None:
    for p in fixture_plan().pages:
        assert p.title.strip(), p.path
        assert 0 < len(p.description) <= 160, p.path


def test_description_falls_back_from_meta_to_html_text() -> None:
    plan = fixture_plan()
    assert page(plan, "/thoi-trang").description == "Thời trang nam nữ chính hãng, giá tốt."
    assert page(plan, "/thoi-trang/ao").description == "Áo mùa hè"


def test_product_breadcrumb_runs_from_home_through_its_categories() -> None:
    crumbs = page(fixture_plan(), "/áo-thun").breadcrumb
    assert [c.name for c in crumbs][:3] == ["Trang chủ", "Thời trang", "Áo"]
    assert crumbs[-1].url == "/%C3%A1o-thun"


def test_product_in_a_null_url_category_keeps_the_crumb_as_text() -> None:
    crumbs = page(fixture_plan(), "/quần-jean").breadcrumb
    assert [(c.name, c.url) for c in crumbs[1:3]] == [("Thời trang", "/thoi-trang"), ("Quần", None)]


def test_article_list_is_paginated_under_trang() -> None:
    plan = plan_site(small_catalog(), SITE_URL, articles_per_page=1)
    first, second = page(plan, "/bai-viet"), page(plan, "/bai-viet/trang/2")
    assert isinstance(first.subject, ArticleListing)
    assert isinstance(second.subject, ArticleListing)
    assert (first.subject.count, first.subject.next_path) == (2, "/bai-viet/trang/2")
    assert second.subject.previous_path == "/bai-viet"


def test_home_shows_only_running_flash_sales_and_home_banners_in_position_order() -> None:
    home = page(fixture_plan(), "/").subject
    assert [s.id for s in home.flash_sales] == [400]  # type: ignore[union-attr]
    assert [b.id for b in home.hero_banners] == [1, 2]  # type: ignore[union-attr]


def test_two_products_at_one_url_are_refused_naming_both() -> None:
    catalog = with_product_url(small_catalog(), 1, "/%C3%A1o-thun")
    with pytest.raises(PathCollision, match=r"product 1 .* product 2"):
        plan_site(catalog, SITE_URL)


def test_two_spellings_of_one_path_are_a_collision() -> None:
    catalog = with_product_url(small_catalog(), 1, "/áo-thun")
    with pytest.raises(PathCollision):
        plan_site(catalog, SITE_URL)


def test_a_product_at_index_collides_with_home() -> None:
    catalog = with_product_url(small_catalog(), 0, "/index")
    with pytest.raises(PathCollision, match="index.html"):
        plan_site(catalog, SITE_URL)


def test_a_custom_path_on_another_entity_page_is_a_collision() -> None:
    catalog = small_catalog()
    catalog = replace(catalog, custom_paths=(("/gioi-thieu", "product", 1),))
    with pytest.raises(PathCollision, match="page 50"):
        plan_site(catalog, SITE_URL)


@pytest.mark.parametrize("url", ["/_assets/style.css", "/sitemap.xml", "/robots.txt"])
def test_urls_the_build_uses_itself_are_refused(url: str) -> None:
    with pytest.raises(PathCollision):
        plan_site(with_product_url(small_catalog(), 0, url), SITE_URL)


@pytest.mark.parametrize("url", ["/_assets/style.css", "/sitemap-2.xml"])
def test_a_product_at_a_path_the_build_uses_is_refused_naming_it(url: str) -> None:
    with pytest.raises(PathCollision, match=rf"^product 1: '{url}' is "):
        plan_site(with_product_url(small_catalog(), 0, url), SITE_URL)


@pytest.mark.parametrize(
    ("meta", "text", "expected"),
    [
        ("Mô tả riêng", "Mô tả sản phẩm", "Mô tả riêng"),
        (None, "Mô tả sản phẩm", "Mô tả sản phẩm"),
        ("   ", "Mô tả sản phẩm", "Mô tả sản phẩm"),
        ("", "", "{name} - {store}"),
        ("   ", "   ", "{name} - {store}"),
    ],
)
def test_a_product_page_describes_it_by_its_meta_description_then_its_text(
    meta: str | None, text: str, expected: str
) -> None:
    catalog = small_catalog()
    product = unpack(catalog.products[0])
    product = replace(product, meta_description=meta, description_html=text, description_text=text)
    catalog = replace(catalog, products=(pack(product), *catalog.products[1:]))
    planned = page(plan_site(catalog, SITE_URL), catalog.products[0].card.url or "")
    name, store = product.card.name, catalog.site.store.name
    assert planned.description == expected.format(name=name, store=store)


@pytest.mark.parametrize(
    "bad", ["/../../etc/passwd", "javascript:alert(document.domain)//", "https://evil.test/x"]
)
def test_an_unusable_product_url_is_null_noted_and_gets_no_page(bad: str) -> None:
    catalog = with_product_url(small_catalog(), 0, bad)
    card = catalog.products[0].card
    catalog = replace(catalog, featured=(card, *catalog.featured))  # a listing shows it too
    plan = plan_site(catalog, SITE_URL)
    fixtures_own = plan_site(small_catalog(), SITE_URL).unusable_urls
    assert sorted(plan.unusable_urls, key=repr) == sorted(
        (UnusableUrl(f"product {card.id}", bad), *fixtures_own), key=repr
    )
    assert not [p for p in plan.pages if p.kind == "product" and p.name == card.name]
    home = page(plan, "/").subject
    assert isinstance(home, Home) and home.featured[0].id == card.id
    assert home.featured[0].url is None  # shown as plain text


def test_two_products_of_one_name_get_distinct_titles_and_descriptions() -> None:
    catalog = small_catalog()
    twin = unpack(catalog.products[0])
    twin = replace(twin, card=replace(twin.card, id=901, slug="ao-thun-2", url="/ao-thun-2"))
    plan = plan_site(replace(catalog, products=(*catalog.products, pack(twin))), SITE_URL)
    first, second = page(plan, "/%C3%A1o-thun"), page(plan, "/ao-thun-2")
    assert first.name == second.name
    assert first.title != second.title and first.description != second.description
    assert second.title.endswith(f" – Mã 901 | {catalog.site.store.name}")
    assert second.description.startswith(f"{second.name} (Mã 901): ")
    # Pages whose texts were distinct already keep them.
    jeans = "/qu%E1%BA%A7n-jean"
    assert page(plan, jeans).title == page(fixture_plan(), jeans).title


def test_a_long_listing_is_paginated_under_its_own_path() -> None:
    catalog = small_catalog()
    plan = plan_site(catalog, SITE_URL, products_per_page=1)
    paths = [p.path for p in plan.pages if p.kind == "product_list"]
    assert paths == ["/san-pham", "/san-pham/trang/2", "/san-pham/trang/3"]
    last = page(plan, "/san-pham/trang/3")
    assert last.canonical_path == last.path and last.in_sitemap
    assert last.title == f"Tất cả sản phẩm – Trang 3 | {catalog.site.store.name}"
    assert last.breadcrumb[-1].name == "Trang 3"


def test_a_listing_path_taken_by_a_merchant_page_is_left_to_it() -> None:
    catalog = small_catalog()
    own = CmsPage(77, "Sản phẩm", "san-pham", "/san-pham", None, None, None, None)
    plan = plan_site(replace(catalog, pages=(*catalog.pages, own)), SITE_URL)
    assert page(plan, "/san-pham").kind == "cms_page"
    assert any(skip.what == "the all-products listing" for skip in plan.skipped)


def test_a_pagination_path_an_entity_already_has_is_refused() -> None:
    catalog = small_catalog()
    clash = CmsPage(78, "Trang 2", "t2", "/san-pham/trang/2", None, None, None, None)
    with pytest.raises(PathCollision, match="san-pham/trang/2"):
        plan_site(replace(catalog, pages=(*catalog.pages, clash)), SITE_URL, products_per_page=1)


def test_a_custom_path_to_a_paginated_collection_shows_its_first_page_only() -> None:
    plan = plan_site(small_catalog(), SITE_URL, products_per_page=1)
    own = [p.path for p in plan.pages if p.path.startswith("/bo-suu-tap/he-2026")]
    assert own[0] == "/bo-suu-tap/he-2026" and "/bo-suu-tap/he-2026/trang/2" in own
    custom = page(plan, "/khuyen-mai-he")
    assert isinstance(custom.subject, CollectionPage) and custom.subject.pager is not None
    assert custom.canonical_path == "/bo-suu-tap/he-2026" and not custom.in_sitemap
    assert custom.subject.pager.next_path == "/bo-suu-tap/he-2026/trang/2"
    assert not any(p.path.startswith("/khuyen-mai-he/") for p in plan.pages)


def test_a_listing_s_lastmod_moves_with_the_cards_it_lists() -> None:
    """A category or collection page changes when a card it lists does: its lastmod is the
    later of its own change and its newest card's, page by page."""
    from datetime import UTC, datetime

    from generator.model import CategoryPage

    plan = plan_site(small_catalog(), SITE_URL)
    listings = [p for p in plan.pages if isinstance(p.subject, CategoryPage | CollectionPage)]
    assert listings
    later = datetime(2031, 1, 1, tzinfo=UTC)
    for listing in listings:
        subject = listing.subject
        assert isinstance(subject, CategoryPage | CollectionPage)
        own = (
            subject.category.updated_at
            if isinstance(subject, CategoryPage)
            else subject.collection.updated_at
        )
        cards = [c.updated_at for c in subject.products if c.updated_at is not None]
        assert listing.lastmod == max([s for s in (own, *cards) if s is not None], default=None)
    # A card changed later than its category moves the category's lastmod to it.
    catalog = small_catalog()
    first, *rest = catalog.categories
    assert first.products
    card = replace(first.products[0], updated_at=later)
    touched = replace(
        catalog,
        categories=(replace(first, products=(card, *first.products[1:])), *rest),
    )
    moved = [
        p
        for p in plan_site(touched, SITE_URL).pages
        if isinstance(p.subject, CategoryPage) and p.subject.category.id == first.category.id
    ]
    assert moved and moved[0].lastmod == later
