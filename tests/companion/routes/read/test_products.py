"""GET /products: envelope, cursor walks under writes, filters, sorts, limits, sale prices."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import update

from companion.db.schema import products
from tests.companion.conftest import Api, MakeApi

pytestmark = pytest.mark.anyio

CARD_FIELDS = {
    "id", "name", "slug", "url", "price", "effective_price", "compare_at_price", "image_url",
    "in_stock", "category_id", "brand_id", "updated_at",
}  # fmt: skip


async def test_list_is_an_envelope_of_product_cards(api: Api) -> None:
    api.shop.product("Áo thun", price=150_000, compare_at_price=200_000, image_url="/a.jpg")
    body = await api.ok("/products")
    assert set(body) == {"items", "next_cursor", "has_more"}
    assert body["has_more"] is False and body["next_cursor"] is None
    (card,) = body["items"]
    assert set(card) == CARD_FIELDS
    assert card["price"] == 150_000 and card["effective_price"] == 150_000
    assert card["compare_at_price"] == 200_000
    assert card["updated_at"] == "2026-11-20T03:00:10"
    assert card["in_stock"] is True


async def test_newest_walk_returns_every_row_once_while_rows_are_written(api: Api) -> None:
    shop = api.shop
    base = api.clock.now()
    ids = [shop.product(f"SP {i}", created_at=base - timedelta(minutes=i // 2)) for i in range(9)]
    engine = api.app.state.services.engine
    writes = iter(range(100))

    def write_between_pages() -> None:
        n = next(writes)
        shop.product(f"Mới {n}", created_at=base + timedelta(minutes=n + 1))
        with engine.begin() as conn:  # an update must not move a row either
            conn.execute(
                update(products)
                .where(products.c.id == ids[n])
                .values(price=1, updated_at=base + timedelta(hours=1))
            )

    items = await api.walk("/products", between=write_between_pages, limit=2)
    served = [p["id"] for p in items]
    assert sorted(served) == sorted(ids)
    assert len(served) == len(set(served))


@pytest.mark.parametrize("sort", ["price_asc", "price_desc"])
async def test_price_walk_orders_by_price_with_unpriced_last(api: Api, sort: str) -> None:
    prices = [300, None, 100, 200, None, 100, 500]
    for i, price in enumerate(prices):
        api.shop.product(f"SP {i}", price=price)
    items = await api.walk("/products", sort=sort, limit=2)
    got = [p["price"] for p in items]
    priced = sorted((p for p in prices if p is not None), reverse=sort == "price_desc")
    assert got == [*priced, None, None]
    assert len({p["id"] for p in items}) == len(prices)


async def test_unknown_sort_is_refused(api: Api) -> None:
    response = await api.get("/products", sort="popular")
    assert response.status_code == 422
    assert response.json()["errors"][0]["field"] == "sort"


async def test_category_filter_includes_subcategories_and_extra_categories(api: Api) -> None:
    shop = api.shop
    top = shop.category("Thời trang nam", slug="nam")
    sub = shop.category("Áo nam", parent_id=top)
    other = shop.category("Nữ")
    in_top = shop.product("Trong nam")
    in_sub = shop.product("Trong áo nam", category_id=sub)
    also = shop.product("Cũng trong nam", category_id=other)
    shop.file_under(also, top)
    shop.product("Nữ", category_id=other)
    shop.file_under(in_top, top)
    for ref in (str(top), "nam"):
        body = await api.ok("/products", category=ref)
        assert {p["id"] for p in body["items"]} == {in_top, in_sub, also}
    assert (await api.ok("/products", category="khong-co"))["items"] == []


async def test_collection_filter(api: Api) -> None:
    coll = api.shop.collection("Hè", slug="he")
    inside = api.shop.product("Trong")
    api.shop.product("Ngoài")
    api.shop.collect(coll, inside)
    for ref in (str(coll), "he"):
        assert [p["id"] for p in (await api.ok("/products", collection=ref))["items"]] == [inside]


async def test_ids_filter(api: Api) -> None:
    a, b, c = (api.shop.product(f"SP {i}") for i in range(3))
    body = await api.ok("/products", ids=f"{a}, {c},99999")
    assert {p["id"] for p in body["items"]} == {a, c}


@pytest.mark.parametrize("q", ["ao thun", "ÁO THUN", "Áo  thun", "áo"])
async def test_name_search_ignores_accents_and_case(api: Api, q: str) -> None:
    wanted = api.shop.product("Áo thun cổ tròn")
    api.shop.product("Quần tây")
    assert [p["id"] for p in (await api.ok("/products", q=q))["items"]] == [wanted]


async def test_search_treats_wildcards_literally(api: Api) -> None:
    api.shop.product("Giảm 50% hôm nay")
    api.shop.product("Giảm 500 đồng")
    assert [p["name"] for p in (await api.ok("/products", q="50%"))["items"]] == [
        "Giảm 50% hôm nay"
    ]


async def test_drafts_and_other_stores_are_not_listed(api: Api) -> None:
    api.shop.product("Nháp", status="draft")
    shown = api.shop.product("Đăng")
    assert [p["id"] for p in (await api.ok("/products"))["items"]] == [shown]


async def test_limit_has_a_default_and_larger_values_are_clamped(make_api: MakeApi) -> None:
    api = await make_api(default_limit=2, max_limit=5)
    for i in range(7):
        api.shop.product(f"SP {i}")
    assert len((await api.ok("/products"))["items"]) == 2
    body = await api.ok("/products", limit=1000)
    assert len(body["items"]) == 5 and body["has_more"] is True


async def test_documented_default_page_is_twenty(api: Api) -> None:
    for i in range(21):
        api.shop.product(f"SP {i}")
    body = await api.ok("/products")
    assert len(body["items"]) == 20 and body["has_more"] is True


async def test_running_flash_sale_sets_effective_price(api: Api) -> None:
    now = api.clock.now()
    on_sale = api.shop.product("Giảm", price=99_999)
    half = api.shop.product("Nửa giá", price=10_005)
    ended = api.shop.product("Hết giờ", price=50_000)
    unpriced = api.shop.product("Chưa có giá", price=None)
    running = api.shop.flash_sale(now - timedelta(hours=1), now + timedelta(hours=1), 15)
    bigger = api.shop.flash_sale(now - timedelta(hours=1), now + timedelta(hours=1), 50)
    past = api.shop.flash_sale(now - timedelta(days=2), now - timedelta(days=1), 90)
    for sale, product in ((running, on_sale), (running, half), (bigger, half), (past, ended)):
        api.shop.put_on_sale(sale, product)
    api.shop.put_on_sale(running, unpriced)
    cards = {p["id"]: p for p in (await api.ok("/products"))["items"]}
    assert cards[on_sale]["effective_price"] == 84_999  # 84,999.15
    assert cards[half]["effective_price"] == 5_003  # the larger discount, 5,002.5 rounded up
    assert cards[ended]["effective_price"] == 50_000
    assert cards[unpriced]["price"] is None and cards[unpriced]["effective_price"] is None
    api.clock.advance(3600)  # the sale ends exactly now: ends_at is exclusive
    cards = {p["id"]: p for p in (await api.ok("/products"))["items"]}
    assert cards[on_sale]["effective_price"] == 99_999


async def test_stock_comes_from_variants_on_sale(api: Api) -> None:
    sold_out = api.shop.product("Hết hàng")
    api.shop.variant(sold_out, "S", stock=0)
    api.shop.variant(sold_out, "M", stock=5, on_sale=False)
    untracked = api.shop.product("Không theo dõi")
    api.shop.variant(untracked, "S", stock=None)
    cards = {p["id"]: p for p in (await api.ok("/products"))["items"]}
    assert cards[sold_out]["in_stock"] is False
    assert cards[untracked]["in_stock"] is True


async def test_blank_url_is_served_as_null(api: Api) -> None:
    api.shop.product("Không trang", url="")
    api.shop.product("Không url", url=None)
    assert [p["url"] for p in (await api.ok("/products"))["items"]] == [None, None]
