"""An incremental build writes byte-for-byte what a full build of the same data writes."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import lxml.html
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.webhooks.events import Entity
from tests.support.incremental_store import (
    CrawledStores,
    DemoStore,
    build,
    build_recorded,
    config_for,
    folder_bytes,
)

# (operation, index into the store's ids, value)
Change = tuple[str, int, Any]

changes = st.one_of(
    st.tuples(
        st.just("price"),
        st.integers(0, 40),
        st.one_of(st.none(), st.integers(1, 9).map(lambda n: n * 10_000)),
    ),
    st.tuples(
        st.just("rename_product"), st.integers(0, 40), st.sampled_from(["Áo mới", "<b>Quần</b>"])
    ),
    st.tuples(
        st.just("rename_category"), st.integers(0, 40), st.sampled_from(["Nhóm A", "Giày & dép"])
    ),
    st.tuples(st.just("rename_article"), st.integers(0, 40), st.just("Tin mới")),
    st.tuples(st.just("delete_product"), st.integers(0, 40), st.none()),
    st.tuples(st.just("create_product"), st.integers(0, 40), st.sampled_from(["Sản phẩm X", "Y"])),
    # Membership: which category or collection lists a product, and the category tree.
    st.tuples(st.just("move_product"), st.integers(0, 40), st.integers(0, 40)),
    st.tuples(st.just("file_under"), st.integers(0, 40), st.integers(0, 40)),
    st.tuples(st.just("collect"), st.integers(0, 40), st.integers(0, 40)),
    st.tuples(st.just("uncollect"), st.integers(0, 40), st.integers(0, 40)),
    st.tuples(st.just("unpublish_product"), st.integers(0, 40), st.none()),
    st.tuples(st.just("move_category"), st.integers(0, 40), st.integers(0, 40)),
    st.tuples(
        st.just("rename_collection"), st.integers(0, 40), st.sampled_from(["Bộ sưu tập Z", "Q"])
    ),
)


def apply(store: DemoStore, change: Change) -> None:
    operation, index, value = change
    if operation == "price":
        products = store.ids(Entity.PRODUCT)
        store.set_price(products[index % len(products)], value)
    elif operation == "rename_product":
        products = store.ids(Entity.PRODUCT)
        store.update(Entity.PRODUCT, products[index % len(products)], {"name": value})
    elif operation == "rename_category":
        categories = store.ids(Entity.CATEGORY)
        store.update(Entity.CATEGORY, categories[index % len(categories)], {"name": value})
    elif operation == "rename_article":
        articles = store.ids(Entity.ARTICLE)
        store.update(Entity.ARTICLE, articles[index % len(articles)], {"title": value})
    elif operation == "delete_product":
        products = store.ids(Entity.PRODUCT)
        store.delete(Entity.PRODUCT, products[index % len(products)])
    elif operation in ("move_product", "file_under", "collect", "uncollect"):
        products = store.ids(Entity.PRODUCT)
        product = products[index % len(products)]
        if operation in ("move_product", "file_under"):
            categories = store.ids(Entity.CATEGORY)
            category = categories[value % len(categories)]
            if operation == "move_product":
                store.update(Entity.PRODUCT, product, {"category_id": category})
            else:
                row = {"product_id": product, "category_id": category}
                store.link("product_categories", owner=Entity.PRODUCT, owner_id=product, row=row)
        else:
            collections = store.ids(Entity.COLLECTION)
            collection = collections[value % len(collections)]
            row = {"collection_id": collection, "product_id": product}
            change = store.link if operation == "collect" else store.unlink
            change("collection_products", owner=Entity.COLLECTION, owner_id=collection, row=row)
    elif operation == "unpublish_product":
        products = store.ids(Entity.PRODUCT)
        store.update(Entity.PRODUCT, products[index % len(products)], {"status": "draft"})
    elif operation == "move_category":
        categories = store.ids(Entity.CATEGORY)
        category = categories[index % len(categories)]
        # Under a top-level category (or to the top level): never a cycle.
        roots = [root for root in store.root_categories() if root != category]
        parent = roots[value % len(roots)] if roots and value % 3 else None
        store.update(Entity.CATEGORY, category, {"parent_id": parent})
    elif operation == "rename_collection":
        collections = store.ids(Entity.COLLECTION)
        store.update(Entity.COLLECTION, collections[index % len(collections)], {"name": value})
    elif operation == "create_product":
        categories = store.ids(Entity.CATEGORY)
        store.create(
            Entity.PRODUCT,
            {
                "name": value,
                "slug": f"moi-{index}-{len(store.ids(Entity.PRODUCT))}",
                "url": f"/san-pham/moi-{index}-{len(store.ids(Entity.PRODUCT))}",
                "price": 120_000,
                "category_id": categories[index % len(categories)],
                "status": "published",
                "published_at": store.now,
            },
        )


@pytest.mark.slow
@settings(
    max_examples=6,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(batches=st.lists(st.lists(changes, min_size=1, max_size=3), min_size=1, max_size=2))
def test_incremental_build_equals_full_build_after_any_changes(
    tmp_path_factory: pytest.TempPathFactory, batches: list[list[Change]]
) -> None:
    folder = tmp_path_factory.mktemp("incremental")
    store = DemoStore(folder, products=6)
    try:
        build(store, config_for(folder))
        for batch in batches:
            for change in batch:
                apply(store, change)
            build(store, config_for(folder))
            build(store, config_for(folder, out="full", cache="full-cache", full=True))
            assert folder_bytes(folder / "out") == folder_bytes(folder / "full")
    finally:
        store.close()


def test_no_change_rebuild_renders_nothing_and_asks_only_lists(tmp_path: Path) -> None:
    store = DemoStore(tmp_path, products=12)
    try:
        build(store, config_for(tmp_path))
        again, printed, asked = build_recorded(store, config_for(tmp_path))
    finally:
        store.close()
    assert "rendered 0 pages" in printed
    assert (again.rendered, again.kept, again.deleted) == (0, again.pages, 0)
    # Lists and the store's few singletons, never one product, article, page or path.
    one_thing = re.compile(
        r"^/(products|articles|pages|collections|routes)/[^?]*(\?(?!limit=).*)?$"
    )
    assert asked and not [url for url in asked if one_thing.match(url)], asked
    # Every answer asked again was revalidated with its ETag: the companion said 304 to each.
    assert f"fetched {again.requests} answers from the API ({again.requests} of them 304" in printed


def test_price_change_renders_its_page_and_the_lists_that_show_it(
    tmp_path: Path, crawled_stores: CrawledStores
) -> None:
    store = crawled_stores.copy(tmp_path, products=12)
    try:
        before = folder_bytes(tmp_path / "out")
        product = store.ids(Entity.PRODUCT)[0]
        url = store.product_url(product)
        store.set_price(product, 777_000)
        summary, printed = build(store, config_for(tmp_path))
    finally:
        store.close()
    after = folder_bytes(tmp_path / "out")
    changed = sorted(name for name in after if before.get(name) != after[name])
    assert url is not None
    assert url.lstrip("/") + ".html" in changed
    assert "index.html" in changed or any(n.startswith("danh-muc/") for n in changed)
    assert "sitemap.xml" in changed  # its lastmod moved
    found = re.search(r"rendered (\d+) pages, kept (\d+)", printed)
    assert found is not None
    rendered, kept = int(found[1]), int(found[2])
    assert rendered + kept == summary.pages
    assert rendered >= len([n for n in changed if n.endswith(".html")])
    # Pages that do not show the product (articles, CMS pages) are taken over, not rendered.
    assert all(name not in changed for name in after if name.startswith("bai-viet/"))
    assert kept >= len([name for name in after if name.startswith("bai-viet/")])


def test_deleted_product_loses_its_page_and_sitemap_entry(
    tmp_path: Path, crawled_stores: CrawledStores
) -> None:
    store = crawled_stores.copy(tmp_path, products=12)
    try:
        before = folder_bytes(tmp_path / "out")
        product = store.ids(Entity.PRODUCT)[0]
        url = store.product_url(product)
        store.delete(Entity.PRODUCT, product)
        build(store, config_for(tmp_path))
    finally:
        store.close()
    after = folder_bytes(tmp_path / "out")
    assert url is not None
    assert url.lstrip("/") + ".html" in before
    assert url.lstrip("/") + ".html" not in after
    assert url.encode() in before["sitemap.xml"]
    assert url.encode() not in after["sitemap.xml"]


def test_links_to_a_custom_path_follow_its_canonical_when_that_moves(tmp_path: Path) -> None:
    # The menu links the custom path /ao-dai-tet at its product's own page: when the product
    # moves, every page that links it must be rendered again, as a full build would write it.
    store = DemoStore(tmp_path, products=12)
    try:
        build(store, config_for(tmp_path))
        custom = lxml.html.document_fromstring(folder_bytes(tmp_path / "out")["ao-dai-tet.html"])
        canonical = urlsplit(custom.xpath("//link[@rel='canonical']/@href")[0]).path
        alias_target = next(
            product
            for product in store.ids(Entity.PRODUCT)
            if store.product_url(product) == canonical
        )
        store.update(Entity.PRODUCT, alias_target, {"url": "/san-pham/ao-dai-moi"})
        build(store, config_for(tmp_path))
        build(store, config_for(tmp_path, out="full", cache="full-cache", full=True))
    finally:
        store.close()
    after = folder_bytes(tmp_path / "out")
    assert after == folder_bytes(tmp_path / "full")
    assert b'href="/san-pham/ao-dai-moi">' in after["index.html"]
    assert f'href="{canonical}"'.encode() not in after["index.html"]
    assert b'href="/ao-dai-tet"' not in after["index.html"]


def test_a_build_into_another_folder_says_why_it_renders_everything(tmp_path: Path) -> None:
    store = DemoStore(tmp_path, products=4)
    try:
        build(store, config_for(tmp_path))
        other, printed, _ = build_recorded(store, config_for(tmp_path, out="other"))
    finally:
        store.close()
    assert "describe another output folder" in " ".join(printed.split())
    assert other.rendered == other.pages and other.kept == 0
