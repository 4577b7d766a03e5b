"""Static pagination against another implementation of the spec whose list pages hold at most
5 items: the crawl walks every cursor of each category, and every product it lists is on one
of the category's static pages, a null-url one as plain text."""

from __future__ import annotations

from pathlib import Path

import lxml.html
import pytest

from generator.client.api import ApiClient
from generator.model import Catalog, CategoryPage
from generator.plan.paths import output_name
from generator.plan.site_plan import plan_site
from generator.replay.cache import CrawlCache
from generator.replay.crawl import crawl
from tests.support.crawl_helpers import crawl_fake
from tests.support.fakeapi import KEY, FakeApi, Quirks, small_store
from tests.support.fixture_site import write_plan

pytestmark = pytest.mark.anyio

SITE_URL = "https://shop.example.vn"


async def _crawl(fake: FakeApi, cache_dir: Path | None) -> Catalog:
    """The crawl of a build: with the crawl cache (versioned pages) or without."""
    if cache_dir is None:
        return (await crawl_fake(fake))[0]
    async with fake.client() as http:
        client = ApiClient(http, key=KEY, timer=fake.timer)
        return await crawl(client, cache=CrawlCache.open(cache_dir))


@pytest.mark.parametrize("cached", [False, True])
async def test_every_listed_product_is_on_a_static_page_of_its_category(
    tmp_path: Path, cached: bool
) -> None:
    data = small_store(products=40)
    # Category 2 lists 2, 6, 10, ...: product 38 is past its first page of 5, url null.
    late = next(p for p in data.products if p["id"] == 38)
    late["url"] = None
    fake = FakeApi(data, Quirks(max_limit=5, tricky_cursors=True))
    catalog = await _crawl(fake, tmp_path / "cache" if cached else None)
    plan = plan_site(catalog, SITE_URL, products_per_page=4)
    out = tmp_path / "output"
    write_plan(plan, out)

    checked = 0
    for category in data.categories:
        if category["url"] is None:
            continue
        listed = [p for p in data.products if category["id"] in p["category_ids"]]
        pages = [
            page
            for page in plan.pages
            if isinstance(page.subject, CategoryPage)
            and page.subject.category.id == category["id"]
            and page.canonical_path == page.path
        ]
        linked: dict[str, str | None] = {}
        texts: set[str] = set()
        for page in pages:
            doc = lxml.html.document_fromstring((out / output_name(page.path)).read_bytes())
            shown = "//li[@class='card'][not(ancestor::template)]"  # not what islands draw
            for title in doc.xpath(shown + "/*[self::h2 or self::h3]"):
                for a in title.iter("a"):
                    linked[a.text_content()] = a.get("href")
                for span in title.iter("span"):
                    texts.add(span.text_content())
        for product in listed:
            if product["url"] is None:
                assert product["name"] in texts, (category["id"], product["id"])
            else:
                assert linked.get(product["name"]) == product["url"], (category["id"], product)
        assert len(linked) + len(texts) == len(listed)
        assert len(pages) == max(1, -(-len(listed) // 4))
        checked += 1
    assert checked == 4
    walked = [r for r in fake.log if r.path == "/products" and r.params.get("category") == "2"]
    assert sum("cursor" in r.params for r in walked) >= 1


async def test_later_pages_are_self_canonical_distinct_and_linked_by_plain_links(
    tmp_path: Path,
) -> None:
    fake = FakeApi(small_store(products=40), Quirks(max_limit=5))
    catalog, _ = await crawl_fake(fake)
    plan = plan_site(catalog, SITE_URL, products_per_page=4)
    out = tmp_path / "output"
    write_plan(plan, out)
    pages = [p for p in plan.pages if p.path.startswith("/ao/trang/") or p.path == "/ao"]
    assert [p.path for p in pages] == ["/ao", "/ao/trang/2", "/ao/trang/3"]
    assert len({p.title for p in pages}) == len({p.description for p in pages}) == 3
    assert pages[1].title == pages[0].title.replace(" | ", " – Trang 2 | ")
    sitemap = (out / "sitemap.xml").read_text()
    second = lxml.html.document_fromstring((out / "ao/trang/2.html").read_bytes())
    [canonical] = [el.get("href") for el in second.iter("link") if el.get("rel") == "canonical"]
    assert canonical == SITE_URL + "/ao/trang/2"
    assert f"<loc>{SITE_URL}/ao/trang/2</loc>" in sitemap
    [pager] = second.find_class("pagination")
    hrefs = {a.get("rel") or a.text_content(): a.get("href") for a in pager.iter("a")}
    assert hrefs == {"prev": "/ao", "1": "/ao", "3": "/ao/trang/3", "next": "/ao/trang/3"}
