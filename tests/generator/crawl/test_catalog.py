"""What a crawl gathers from a small store: pages, custom paths, dead paths, local relations."""

from __future__ import annotations

import pytest

from generator.client.api import ApiClient
from generator.crawl.pack import unpack
from generator.crawl.settings import CrawlSettings
from generator.model import Catalog, Skip
from generator.replay.crawl import crawl
from tests.support.crawl_helpers import crawl_fake
from tests.support.fakeapi import KEY, FakeApi, Quirks, small_store

pytestmark = pytest.mark.anyio


@pytest.fixture
async def crawled() -> tuple[Catalog, FakeApi]:
    fake = FakeApi(small_store(), Quirks(max_limit=5))
    catalog, _ = await crawl_fake(fake)
    return catalog, fake


async def test_site_context_is_complete(crawled: tuple[Catalog, FakeApi]) -> None:
    catalog, _ = crawled
    site = catalog.site
    assert site.store.name == "Cửa hàng thử"
    assert site.menu("main") is not None
    assert [b.id for b in site.banners] == [2, 1]  # by position
    assert site.custom_variables == (("hotline", "1900 0000"),)
    assert [t.slug for t in catalog.tags] == ["meo"]


async def test_categories_below_the_tree_are_found_and_placed(
    crawled: tuple[Catalog, FakeApi],
) -> None:
    catalog, fake = crawled
    [shirts] = [c for c in catalog.site.category_tree[0].children if c.id == 3]
    assert [grandchild.id for grandchild in shirts.children] == [4]
    pages = {page.category.id: page for page in catalog.categories}
    assert sorted(pages) == [1, 2, 3, 4]  # 5 has a null url: no page
    assert [crumb.id for crumb in pages[4].breadcrumb] == [1, 3, 4]
    assert [sub.id for sub in pages[3].subcategories] == [4]
    assert [sub.id for sub in pages[2].subcategories] == [5]
    # Breadcrumbs and subcategories come from the walk, not from a request per category.
    assert not fake.requests_to("/categories/{id}/breadcrumb")
    assert not fake.requests_to("/categories/{id}/subcategories")


async def test_category_page_shows_its_first_page_of_products(
    crawled: tuple[Catalog, FakeApi],
) -> None:
    catalog, _ = crawled
    page = next(p for p in catalog.categories if p.category.id == 1)
    assert [card.id for card in page.products] == [1, 5, 9]
    assert page.has_more is False


async def test_a_listed_card_is_its_products_own_card_object(
    crawled: tuple[Catalog, FakeApi],
) -> None:
    catalog, _ = crawled
    own = {product.card.id: product.card for product in catalog.products}
    listed = [card for page in catalog.categories for card in page.products]
    listed += [card for page in catalog.collections for card in page.products]
    listed += catalog.featured
    shown = [card for card in listed if card.id in own]
    assert shown
    assert all(card is own[card.id] for card in shown)


async def test_related_products_are_chosen_locally_from_the_same_category() -> None:
    fake = FakeApi(small_store(), Quirks(max_limit=5))
    catalog, _ = await crawl_fake(fake, settings=CrawlSettings(related_products=4))
    product = unpack(next(p for p in catalog.products if p.card.id == 1))
    assert [card.id for card in product.related] == [5, 9]
    assert [v.id for v in product.variants] == [11, 12]
    assert not fake.requests_to("/products/{id}/related")


async def test_no_related_products_are_chosen_when_none_are_asked_for() -> None:
    fake = FakeApi(small_store(), Quirks(max_limit=5))
    catalog, _ = await crawl_fake(fake, settings=CrawlSettings(related_products=0))
    assert catalog.products and all(not unpack(p).related for p in catalog.products)


async def test_articles_live_at_bai_viet_and_relate_by_category(
    crawled: tuple[Catalog, FakeApi],
) -> None:
    catalog, _ = crawled
    articles = {a.summary.id: a for a in catalog.articles}
    assert articles[1].summary.path == "/bai-viet/bai-1"
    assert articles[1].content_html == "<p>Nội dung 1</p>"
    assert [r.id for r in articles[1].related] == [2]
    assert articles[3].related == ()


async def test_cms_pages_come_from_resolved_paths(crawled: tuple[Catalog, FakeApi]) -> None:
    catalog, fake = crawled
    assert sorted((p.id, p.url) for p in catalog.pages) == [
        (1, "/trang/gioi-thieu"),
        (2, "/trang/lien-he"),
        (3, "/trang/chinh-sach"),
    ]
    resolved = {entry.params["path"] for entry in fake.requests_to("/routes/resolve")}
    assert {"/trang/lien-he", "/gioi-thieu-cong-ty", "/khuyen-mai"} <= resolved
    # Paths the lists explain are never resolved.
    assert not resolved & {"/san-pham-1", "/ao", "/bai-viet/bai-1", "/"}


async def test_custom_paths_render_their_target_and_dead_paths_are_reported(
    crawled: tuple[Catalog, FakeApi],
) -> None:
    catalog, _ = crawled
    assert set(catalog.custom_paths) == {
        ("/gioi-thieu-cong-ty", "cms_page", 1),
        ("/ao-dep", "product", 4),
    }
    assert catalog.dead_paths == {"/khuyen-mai", "/khuyen-mai?utm=menu", "/bo-suu-tap/mat-tich"}
    skipped = {skip.what for skip in catalog.skipped}
    assert {"path /khuyen-mai", "collection 99"} <= skipped


async def test_collections_are_found_in_the_list_or_by_slug(
    crawled: tuple[Catalog, FakeApi],
) -> None:
    catalog, fake = crawled
    pages = {page.path: page for page in catalog.collections}
    assert set(pages) == {"/bo-suu-tap/he", "/bo-suu-tap/bo-suu-tap-15"}
    assert pages["/bo-suu-tap/he"].collection.id == 1
    assert [card.id for card in pages["/bo-suu-tap/he"].products] == [3, 6, 9, 12]
    assert pages["/bo-suu-tap/bo-suu-tap-15"].collection.id == 15  # beyond the listed ones
    slugs = {entry.path for entry in fake.requests_to("/collections/by-slug/{slug}")}
    assert slugs == {"/collections/by-slug/bo-suu-tap-15", "/collections/by-slug/mat-tich"}


async def test_a_collection_reached_by_two_paths_gets_one_page() -> None:
    data = small_store()
    data.routes["/uu-dai"] = ("collection", 1)
    data.menus[0]["items"].append({"label": "Ưu đãi", "url": "/uu-dai", "children": []})
    catalog, _ = await crawl_fake(FakeApi(data))
    assert [p.path for p in catalog.collections if p.collection.id == 1] == ["/bo-suu-tap/he"]
    assert ("/uu-dai", "collection", 1) in catalog.custom_paths


async def test_flash_sales_and_newest_products(crawled: tuple[Catalog, FakeApi]) -> None:
    catalog, _ = crawled
    [sale] = catalog.flash_sales
    assert [card.id for card in sale.products] == [1, 4]
    assert [card.id for card in catalog.featured][:2] == [12, 11]


async def test_a_path_resolving_to_a_null_url_product_renders_it_there() -> None:
    data = small_store()
    data.routes["/dac-biet"] = ("product", 2)
    data.banners[0]["link_url"] = "/dac-biet"
    catalog, _ = await crawl_fake(FakeApi(data))
    assert ("/dac-biet", "product", 2) in catalog.custom_paths
    product = next(p for p in catalog.products if p.card.id == 2)
    assert product.card.url is None


class Phases:
    def __init__(self) -> None:
        self.started: dict[str, int | None] = {}
        self.done: dict[str, int] = {}
        self.skips: list[Skip] = []

    def phase_started(self, phase: str, total: int | None) -> None:
        self.started[phase] = total

    def item_done(self, phase: str) -> None:
        self.done[phase] = self.done.get(phase, 0) + 1

    def skipped(self, skip: Skip) -> None:
        self.skips.append(skip)

    def requests_expected(self, total: int) -> None:
        self.expected = total


async def test_the_observer_follows_phases_and_skips() -> None:
    fake, phases = FakeApi(small_store()), Phases()
    async with fake.client() as http:
        catalog = await crawl(ApiClient(http, key=KEY, timer=fake.timer), observer=phases)
    assert phases.started["products"] == phases.done["products"] == 11
    assert phases.done["context"] == phases.started["context"] == 10  # with payment methods
    assert {"resolve", "articles", "pages", "categories", "collections"} <= set(phases.started)
    assert tuple(phases.skips) == catalog.skipped


async def test_a_path_resolving_to_an_undocumented_type_is_reported_not_fatal() -> None:
    data = small_store()
    data.routes["/thuong-hieu/sai-gon"] = ("brand", 1)
    data.menus[0]["items"].append({"label": "Hãng", "url": "/thuong-hieu/sai-gon"})
    catalog, _ = await crawl_fake(FakeApi(data))
    assert "/thuong-hieu/sai-gon" in catalog.dead_paths
    assert (
        Skip("path /thuong-hieu/sai-gon", "resolves to a 'brand', which has no page type here")
        in catalog.skipped
    )


async def test_the_walk_hook_runs_after_the_context_and_before_the_list_walk() -> None:
    fake = FakeApi(small_store(), Quirks(max_limit=5))
    asked_before: list[list[str]] = []
    async with fake.client() as http:
        client = ApiClient(http, key=KEY, timer=fake.timer)
        await crawl(client, on_walk_started=lambda: asked_before.append(list(fake.paths())))
    assert len(asked_before) == 1
    (before,) = asked_before
    assert "/store" in before  # the first requests went out first
    assert not any(path.startswith("/products") for path in before)
    assert any(path.startswith("/products") for path in fake.paths())
