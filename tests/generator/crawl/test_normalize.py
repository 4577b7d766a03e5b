"""Wire values to model values: money, timestamps, urls, category images, records."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from datetime import UTC, datetime

import pytest

from generator.crawl import normalize
from generator.crawl.normalize import WireValueError
from generator.plain_text import html_to_text


@pytest.mark.parametrize(
    ("wire", "expected"),
    [
        (120000, 120000),
        (120000.0, 120000),
        ("120000", 120000),
        ("120000.00", 120000),
        (" 99000 ", 99000),
        ("0", 0),
        (None, None),
        ("", None),
        ("1500.5", 1501),
    ],
)
def test_money_accepts_numbers_and_strings(wire: object, expected: int | None) -> None:
    assert normalize.money(wire, "price") == expected


@pytest.mark.parametrize("garbage", ["abc", "12,000", "NaN", "Infinity", True, [1], {"v": 1}])
def test_money_garbage_names_the_field(garbage: object) -> None:
    with pytest.raises(WireValueError, match="product 7: price"):
        normalize.money(garbage, "product 7: price")


@pytest.mark.parametrize(
    "wire",
    [
        "2026-11-20T03:04:05",
        "2026-11-20T03:04:05Z",
        "2026-11-20T10:04:05+07:00",
        "2026-11-20 03:04:05",
    ],
)
def test_timestamps_become_aware_utc(wire: str) -> None:
    assert normalize.timestamp(wire, "updated_at") == datetime(2026, 11, 20, 3, 4, 5, tzinfo=UTC)


def test_timestamp_keeps_fractional_seconds() -> None:
    parsed = normalize.timestamp("2026-11-20T03:04:05.123456", "updated_at")
    assert parsed == datetime(2026, 11, 20, 3, 4, 5, 123456, tzinfo=UTC)


@pytest.fixture
def saigon_local_time() -> Iterator[None]:
    """The machine's local zone set to UTC+7, restored afterwards."""
    before = os.environ.get("TZ")
    os.environ["TZ"] = "Asia/Ho_Chi_Minh"
    time.tzset()
    try:
        yield
    finally:
        if before is None:
            del os.environ["TZ"]
        else:
            os.environ["TZ"] = before
        time.tzset()


@pytest.mark.usefixtures("saigon_local_time")
def test_naive_timestamp_stays_utc_under_a_local_zone() -> None:
    instant = datetime(2026, 11, 20, 3, 4, 5, tzinfo=UTC).timestamp()
    assert time.localtime(instant).tm_hour == 10  # the zone really is in effect
    parsed = normalize.timestamp("2026-11-20T03:04:05", "updated_at")
    assert parsed is not None
    assert parsed.tzinfo is UTC
    assert (parsed.hour, parsed.timestamp()) == (3, instant)


@pytest.mark.parametrize("garbage", ["yesterday", "2026-13-01T00:00:00", 1795489445, True])
def test_timestamp_garbage_names_the_field(garbage: object) -> None:
    with pytest.raises(WireValueError, match="updated_at"):
        normalize.timestamp(garbage, "updated_at")


@pytest.mark.parametrize(("wire", "expected"), [(None, None), ("", None), ("   ", None)])
def test_blank_url_is_none(wire: object, expected: None) -> None:
    assert normalize.url(wire) is expected


def test_url_is_nfc_and_trimmed() -> None:
    assert normalize.url(" /a\u0301o ") == "/áo"


@pytest.mark.parametrize(
    ("record", "expected"),
    [
        ({"cover_image_url": "/c.jpg", "image_url": "/i.jpg"}, "/c.jpg"),
        ({"image_url": "/i.jpg"}, "/i.jpg"),
        ({"cover_image_url": None, "image_url": "/i.jpg"}, "/i.jpg"),
        ({"cover_image_url": "", "image_url": "/i.jpg"}, "/i.jpg"),
        ({}, None),
    ],
)
def test_category_image_falls_back_to_image_url(
    record: dict[str, object], expected: str | None
) -> None:
    assert normalize.category_image(record) == expected


def test_product_card_with_only_required_fields_gets_defaults() -> None:
    card = normalize.product_card({"id": 5, "name": "Áo"})
    assert (card.url, card.price, card.in_stock, card.updated_at, card.slug) == (
        None,
        None,
        True,
        None,
        "",
    )


def test_product_card_reads_money_strings_and_blank_urls() -> None:
    card = normalize.product_card(
        {"id": "5", "name": "Áo", "url": "", "price": "120000.00", "effective_price": 99000.0}
    )
    assert (card.id, card.url, card.price, card.effective_price) == (5, None, 120000, 99000)


@pytest.mark.parametrize("missing", ["id", "name"])
def test_product_card_without_a_required_field_names_it(missing: str) -> None:
    record = {"id": 5, "name": "Áo"}
    del record[missing]
    with pytest.raises(WireValueError, match=f"required field {missing}"):
        normalize.product_card(record)


def test_product_detail_reads_nested_fields() -> None:
    product = normalize.product(
        {
            "id": 1,
            "name": "Áo",
            "category_id": 3,
            "images": [{"url": "/a.jpg", "alt": "A"}, {"url": ""}, "/b.jpg"],
            "brand": {"id": 2, "name": "B"},
            "published_at": "2026-11-20T03:04:05Z",
        }
    )
    assert [image.url for image in product.images] == ["/a.jpg", "/b.jpg"]
    assert product.brand is not None and product.brand.name == "B"
    assert product.category_ids == (3,)  # the card's category when the list is absent


def test_product_detail_carries_the_visible_text_of_its_description() -> None:
    product = normalize.product(
        {"id": 1, "name": "Áo", "description_html": "<p>Vải <b>cotton</b></p><p>Mềm &amp; mát</p>"}
    )
    assert product.description_text == "Vải cotton. Mềm & mát"
    assert normalize.product({"id": 2, "name": "Quần"}).description_text == ""


def test_variant_options_keep_wire_order() -> None:
    variant = normalize.variant(
        {"id": 1, "product_id": 2, "options": {"Màu": "Đỏ", "Size": "M"}, "price": "1000"}
    )
    assert variant.options == (("Màu", "Đỏ"), ("Size", "M"))
    assert variant.price == 1000


def test_category_children_are_normalized_recursively() -> None:
    tree = normalize.category(
        {
            "id": 1,
            "name": "Áo",
            "url": "/ao",
            "children": [{"id": 2, "name": "Áo thun", "url": None, "cover_image_url": "/c"}],
        }
    )
    assert [(child.id, child.url, child.image_url) for child in tree.children] == [(2, None, "/c")]


def test_article_summary_path_comes_from_slug() -> None:
    summary = normalize.article_summary({"id": 1, "title": "T", "slug": "meo-hay"})
    assert summary.path == "/bai-viet/meo-hay"
    assert (summary.categories, summary.tags) == ((), ())


def test_menu_items_nest_and_blank_links_become_none() -> None:
    menu = normalize.menu(
        {
            "id": 1,
            "code": "main",
            "items": [{"label": "A", "url": " ", "children": [{"label": "B", "url": "/b"}]}],
        }
    )
    assert menu.items[0].url is None
    assert menu.items[0].children[0].url == "/b"


def test_store_defaults_and_social_links() -> None:
    store = normalize.store(
        {"name": "Cửa hàng", "social": {"facebook": "https://f/x", "zalo": None, "x": ""}}
    )
    assert store.social == (("facebook", "https://f/x"),)
    assert (store.currency_code, store.locale, store.email) == ("VND", "vi", None)


@pytest.mark.parametrize(
    ("item", "expected"),
    [("/a", "/a"), ({"path": "/b", "updated_at": None}, "/b"), ({"path": ""}, None)],
)
def test_sitemap_item_may_be_a_bare_string(item: object, expected: str | None) -> None:
    assert normalize.sitemap_path(item) == expected


def test_route_target_rejects_an_unknown_type() -> None:
    assert normalize.route_target({"type": "cms_page", "id": 4}) == ("cms_page", 4)
    with pytest.raises(WireValueError, match="route: type 'brand'"):
        normalize.route_target({"type": "brand", "id": 4})


def test_custom_variable_value_becomes_text() -> None:
    assert normalize.custom_variable({"key": "k", "value": 3}) == ("k", "3")
    assert normalize.custom_variable({"key": "k", "value": None}) == ("k", "")


def test_record_that_is_not_an_object_is_refused() -> None:
    with pytest.raises(WireValueError, match="banner: expected an object"):
        normalize.banner(["not", "an", "object"])


def test_format_vnd_groups_thousands_with_dots() -> None:
    assert normalize.format_vnd(1234567) == "1.234.567\u00a0₫"


def test_a_products_description_is_read_once_and_not_remembered_besides() -> None:
    html = "<p>Áo <b>lụa</b> mềm,</p><p>mặc mát.</p>"
    remembered = html_to_text.cache_info().currsize
    product = normalize.product({"id": 7, "name": "Áo", "description_html": html})
    assert product.description_text == "Áo lụa mềm, mặc mát."
    assert html_to_text.cache_info().currsize == remembered  # no second copy held
