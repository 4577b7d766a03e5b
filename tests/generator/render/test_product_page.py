"""The product page's buying part, rendered from the fixture store: gallery, options, prices,
stock, "Liên hệ"; and the rules of generator.render.buying it uses."""

from __future__ import annotations

import json
from pathlib import Path

import lxml.html
import pytest

from generator.model import Variant
from generator.render.buying import option_groups, saving, stock_state
from generator.render.fragments import FragmentCache
from generator.render.pages import build_environment, render_recorded
from tests.support.fixture_site import fixture_plan, html_of

SHIRT = "/%C3%A1o-thun"
JEAN = "/qu%E1%BA%A7n-jean"  # no price


def variant(id: int, options: dict[str, str], in_stock: bool = True) -> Variant:
    name = " / ".join(options.values())
    return Variant(id, 1, None, name, tuple(options.items()), 100, None, None, in_stock, None, None)


def test_gallery_thumbnails_link_each_image_with_sizes_and_alt_text() -> None:
    doc = html_of(SHIRT)
    shots = doc.xpath("//ul[@class='gallery']/li")
    thumbs = doc.xpath("//ul[@class='thumbs']//a")
    assert [s.get("id") for s in shots] == ["anh-1", "anh-2"]
    assert [a.get("href") for a in thumbs] == ["#anh-1", "#anh-2"]
    for img in doc.xpath("//div[@class='product-gallery']//img"):
        assert img.get("alt") and img.get("width") and img.get("height")
    # the first image is fetched first, the others when scrolled to
    assert [s.xpath("./img/@loading") for s in shots] == [[], ["lazy"]]


def test_one_option_is_a_radio_group_whose_sold_out_value_is_disabled() -> None:
    form = html_of(SHIRT).xpath("//form[@data-island='add-to-cart']")[0]
    assert form.xpath(".//input[@name='variant_id']/@value") == ["12"]  # Size M, in stock
    radios = form.xpath(".//fieldset[legend='Size']//input[@type='radio']")
    states = [(r.get("value"), "checked" in r.attrib, "disabled" in r.attrib) for r in radios]
    assert states == [
        ("S", False, True),
        ("M", True, False),
    ]
    assert form.xpath(".//button[@type='submit']/text()") == ["Thêm vào giỏ"]
    shown = "//p[contains(@class,'stock')][not(ancestor::template)]/text()"
    assert html_of(SHIRT).xpath(shown) == ["Sắp hết"]


def test_a_product_without_a_price_says_lien_he_with_the_stores_phone() -> None:
    doc = html_of(JEAN)
    info = doc.find_class("product-info")[0]
    assert [p.text_content() for p in info.find_class("price")] == ["Liên hệ"]
    assert info.xpath(".//a[@class='button']/@href") == ["tel:0901234567"]
    # No add-to-cart form (the header has its search form).
    assert not info.find_class("stock") and not doc.xpath("//main//form")
    assert "Còn hàng" not in info.text_content()


def test_the_themes_hotline_replaces_the_stores_phone(tmp_path: Path) -> None:
    (tmp_path / "theme.toml").write_text('[contact]\nhotline = "hotline"\n')
    plan = fixture_plan()
    page = next(p for p in plan.pages if p.path == JEAN)
    rendered, _ = render_recorded(plan, page, build_environment(tmp_path), FragmentCache())
    doc = lxml.html.document_fromstring(rendered.html)
    info = doc.find_class("product-info")[0]
    assert info.xpath(".//a[@class='button']/@href") == ["tel:19000000"]


def test_static_cards_strike_the_compare_at_price() -> None:
    card = html_of("/thoi-trang").xpath("//li[@class='card'][.//a[@href='/%C3%A1o-thun']]")[0]
    assert card.xpath(".//span[@class='price-now']/text()") == ["120.000\u00a0₫"]
    assert "180.000\u00a0₫" in card.xpath(".//del[@class='price-was']")[0].text_content()


def test_option_groups_of_several_options_keep_first_use_order_and_availability() -> None:
    variants = [
        variant(1, {"Size": "M", "Màu": "Đỏ"}, in_stock=False),
        variant(2, {"Size": "L", "Màu": "Đỏ"}),
        variant(3, {"Size": "M", "Màu": "Xanh"}, in_stock=False),
    ]
    groups = option_groups(variants)
    assert [g.name for g in groups] == ["Size", "Màu"]
    size, colour = ([(v.value, v.available, v.checked) for v in g.values] for g in groups)
    assert size == [("M", False, False), ("L", True, True)]
    assert colour == [("Đỏ", True, True), ("Xanh", False, False)]


def test_nothing_to_choose_gives_no_groups() -> None:
    assert option_groups([]) == ()
    sole = Variant(5, 1, None, "Mặc định", (), 100, None, None, True, None, None)
    assert option_groups([sole]) == ()
    assert option_groups([variant(6, {"Màu": "Đen"})]) == ()  # one variant: nothing to choose


@pytest.mark.parametrize(
    ("in_stock", "stock", "expected"),
    [
        (False, None, "out"),
        (True, 0, "low"),
        (True, 5, "low"),
        (True, 6, "in"),
        (True, None, "in"),
    ],
)
def test_stock_states(in_stock: bool, stock: int | None, expected: str) -> None:
    assert stock_state(in_stock, stock) == expected


def test_saving_in_percent_else_the_amount() -> None:
    assert saving(80_000, 100_000) == "20%"
    assert saving(9_960_000, 10_000_000) == "40.000\u00a0₫"


def test_the_page_carries_its_variants_and_card_so_showing_it_asks_nothing() -> None:
    doc = html_of(SHIRT)
    [block] = doc.xpath("//script[@id='product-data']")
    assert block.get("type") == "application/json"  # a data block: the page's CSP allows it
    data = json.loads(block.text)
    assert data["variants"] == [
        {
            "id": 11,
            "name": "Size S",
            "options": {"Size": "S"},
            "price": 150000,
            "effective_price": 120000,
            "in_stock": False,  # sold out: no number to show, no compare-at price
        },
        {
            "id": 12,
            "name": "Size M",
            "options": {"Size": "M"},
            "price": 150000,
            "effective_price": 120000,
            "in_stock": True,
            "stock": 5,  # "Sắp hết": the number the island needs to say so
        },
    ]
    assert "</script>" not in block.text
    # its card as the page draws it, for the browser's recently viewed (escaped as markup)
    [mine] = doc.xpath("//div[@data-island='recommendations']/template[@data-part='mine']")
    [link] = mine.xpath(".//li[@class='card']//a")
    assert link.get("href") == SHIRT and link.text.startswith("Áo thun <script>")
    assert "<script>" not in lxml.html.tostring(mine, encoding="unicode")
    assert mine.xpath(".//span[@class='price-now']/text()") == ["120.000\u00a0₫"]
    # the recently viewed words come from the theme, in the island's template part
    [seen] = doc.xpath("//div[@data-island='recommendations']/template[@data-part='seen']")
    assert "Sản phẩm đã xem" in lxml.html.tostring(seen, encoding="unicode")


def test_a_stock_number_is_written_only_where_the_page_says_sap_het() -> None:
    from generator.render.buying import variants_data

    plenty = Variant(1, 1, None, "A", (), 100, None, None, True, 40, None)
    low = Variant(2, 1, None, "B", (), 100, None, None, True, 3, None)
    unknown = Variant(3, 1, None, "C", (), 100, None, None, True, None, None)
    assert [v.get("stock") for v in variants_data([plenty, low, unknown])] == [None, 3, None]


def test_a_script_in_a_name_cannot_close_the_data_block() -> None:
    from generator.render.pages import jsonld

    text = str(jsonld({"name": "</script><script>alert(1)</script>"}))
    assert "<" not in text and json.loads(text)["name"].startswith("</script>")
