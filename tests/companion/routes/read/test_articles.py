"""Articles: published ones newest first, filters, cursor walks, detail, related, taxonomy."""

from __future__ import annotations

from datetime import timedelta

import pytest

from tests.companion.conftest import Api

pytestmark = pytest.mark.anyio

SUMMARY_FIELDS = {
    "id", "title", "slug", "excerpt", "cover_image_url", "published_at", "updated_at",
    "categories", "tags",
}  # fmt: skip


async def test_published_articles_newest_first(api: Api) -> None:
    now = api.clock.now()
    old = api.shop.article("Cũ", published_at=now - timedelta(days=2))
    new = api.shop.article("Mới", published_at=now - timedelta(days=1))
    api.shop.article("Nháp", status="draft")
    api.shop.article("Hẹn giờ", published_at=now + timedelta(hours=1))
    api.shop.article("Chưa có ngày", published_at=None)
    body = await api.ok("/articles")
    assert [a["id"] for a in body["items"]] == [new, old]
    assert set(body["items"][0]) == SUMMARY_FIELDS
    api.clock.advance(3600)  # the scheduled one is due now
    assert len((await api.ok("/articles"))["items"]) == 3


async def test_categories_and_tags_ride_on_each_item(api: Api) -> None:
    aid = api.shop.article("Phối đồ")
    cat = api.shop.article_category("Mẹo", slug="meo")
    tag = api.shop.tag("Mùa hè", slug="mua-he")
    api.shop.link_article(aid, category=cat, tag=tag)
    (item,) = (await api.ok("/articles"))["items"]
    assert item["categories"] == [{"id": cat, "name": "Mẹo", "slug": "meo"}]
    assert item["tags"] == [{"name": "Mùa hè", "slug": "mua-he"}]


async def test_filters_by_category_and_tag(api: Api) -> None:
    shop = api.shop
    tips, news = shop.article_category("Mẹo", slug="meo"), shop.article_category("Tin")
    summer = shop.tag("Hè", slug="he")
    a, b, c = shop.article("A"), shop.article("B"), shop.article("C")
    shop.link_article(a, category=tips, tag=summer)
    shop.link_article(b, category=tips)
    shop.link_article(c, category=news, tag=summer)
    for ref in (str(tips), "meo"):
        assert {x["id"] for x in (await api.ok("/articles", category=ref))["items"]} == {a, b}
    assert {x["id"] for x in (await api.ok("/articles", tag="he"))["items"]} == {a, c}
    both = await api.ok("/articles", category="meo", tag="he")
    assert [x["id"] for x in both["items"]] == [a]
    assert (await api.ok("/articles", tag="khong-co"))["items"] == []


async def test_cursor_walk_survives_new_articles(api: Api) -> None:
    now = api.clock.now()
    ids = [api.shop.article(f"B{i}", published_at=now - timedelta(hours=i // 3)) for i in range(8)]
    fresh = iter(range(10))

    def publish_one() -> None:
        api.shop.article(f"Mới {next(fresh)}", published_at=api.clock.now())

    items = await api.walk("/articles", between=publish_one, limit=3)
    served = [a["id"] for a in items]
    assert sorted(served) == sorted(ids) and len(served) == len(set(served))


async def test_detail_by_slug_carries_content(api: Api) -> None:
    aid = api.shop.article(
        "Cách giặt áo",
        slug="cach-giat-ao",
        content_html="<p>Giặt <em>tay</em></p>",
        author_name="Lan",
        meta_title="Giặt áo",
    )
    body = await api.ok("/articles/by-slug/cach-giat-ao")
    assert body["id"] == aid
    assert body["content_html"] == "<p>Giặt <em>tay</em></p>"
    assert body["author_name"] == "Lan"
    assert body["meta_description"] is None
    api.shop.article("Nháp", slug="nhap", status="draft")
    assert (await api.get("/articles/by-slug/nhap")).status_code == 404


async def test_related_articles_share_a_category(api: Api) -> None:
    shop = api.shop
    tips = shop.article_category("Mẹo")
    me, sibling, stranger = shop.article("Tôi"), shop.article("Anh em"), shop.article("Lạ")
    shop.link_article(me, category=tips)
    shop.link_article(sibling, category=tips)
    shop.link_article(stranger, category=shop.article_category("Khác"))
    body = await api.ok(f"/articles/{me}/related")
    assert [a["id"] for a in body["items"]] == [sibling]
    assert (await api.get("/articles/4040/related")).status_code == 404


async def test_article_categories_and_tags_in_use(api: Api) -> None:
    shop = api.shop
    first = shop.article_category("Tin", slug="tin", position=1)
    shop.article_category("Mẹo", slug="meo", position=2)
    busy, quiet, unused = shop.tag("Hè", "he"), shop.tag("Đông", "dong"), shop.tag("Xuân", "xuan")
    a, b = shop.article("A"), shop.article("B")
    draft = shop.article("Nháp", status="draft")
    shop.link_article(a, tag=busy)
    shop.link_article(b, tag=busy)
    shop.link_article(a, tag=quiet)
    shop.link_article(draft, tag=unused)
    cats = await api.ok("/article-categories")
    assert cats["items"][0] == {"id": first, "name": "Tin", "slug": "tin"}
    tags = await api.ok("/article-tags")
    assert tags["items"] == [
        {"name": "Hè", "slug": "he", "article_count": 2},
        {"name": "Đông", "slug": "dong", "article_count": 1},
    ]
