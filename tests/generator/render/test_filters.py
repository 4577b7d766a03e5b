"""The renderer's filters and helpers: prices, dates, JSON-LD, images, contact links."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from generator.render.pages import (
    PriceView,
    date_vi,
    datetime_vi,
    image_src,
    isoformat,
    jsonld,
    mailto_href,
    price_of,
    tel_href,
    vnd,
)
from tests.support.fixture_site import html_of
from tests.support.fixture_store import card


def test_vnd_formats_with_dot_thousands_and_no_price_renders_nothing() -> None:
    assert vnd(1250000) == "1.250.000\u00a0₫"
    assert vnd(None) == ""


def test_null_price_product_page_shows_no_amount_and_nothing_to_buy() -> None:
    doc = html_of("/qu%E1%BA%A7n-jean")
    # Shown: what an island draws is in <template>s until it draws it.
    shown = doc.xpath("//p[contains(@class, 'price')][not(ancestor::template)]")
    assert [p.text_content() for p in shown] == ["Liên hệ"]
    assert "0\u00a0₫" not in doc.text_content()
    assert not doc.xpath("//form[@data-island='add-to-cart']")


def test_price_now_is_the_effective_price_and_higher_earlier_prices_are_struck() -> None:
    shirt = card(1, "x", None, price=150000, effective=120000, compare_at=180000)
    assert price_of(shirt) == PriceView(120000, 180000)
    plain = card(2, "y", None, price=90000)
    assert price_of(plain) == PriceView(90000, None)
    discounted = card(3, "z", None, price=90000, effective=80000)
    assert price_of(discounted) == PriceView(80000, 90000)
    assert price_of(card(4, "w", None, price=None)) == PriceView(None, None)


def test_compare_at_price_renders_struck_through_with_the_saving() -> None:
    # the page starts on the first variant in stock (Size M): its price, as the island shows it
    doc = html_of("/%C3%A1o-thun")
    price = doc.xpath("//div[@class='product-info']/p[@class='price']")[0]
    assert price.xpath("./span[@class='price-now']/text()") == ["120.000\u00a0₫"]
    assert "150.000\u00a0₫" in price.xpath("./del")[0].text_content()
    assert price.xpath("./span[@class='price-save']/text()") == ["Tiết kiệm 20%"]


def test_dates_show_in_vietnam_time_and_machine_dates_in_utc() -> None:
    late = datetime(2026, 11, 20, 20, 0, tzinfo=UTC)  # already the 21st in Vietnam
    assert date_vi(late) == "21/11/2026"
    assert isoformat(late) == "2026-11-20T20:00:00+00:00"
    assert date_vi(None) == "" and isoformat(None) == ""


def test_a_moment_shows_its_time_in_vietnam_then_its_date() -> None:
    assert datetime_vi(datetime(2026, 12, 31, 13, 0, tzinfo=UTC)) == "20:00 31/12/2026"
    assert datetime_vi(datetime(2026, 12, 31, 17, 5, tzinfo=UTC)) == "00:05 01/01/2027"
    assert datetime_vi(None) == ""
    ends = html_of("/").xpath("//section[@class='flash-sale']//p[@class='meta']")[0]
    assert ends.text_content().startswith("Kết thúc lúc ")
    assert len(ends.text_content().split()) == 5, "a time and a date"


def test_jsonld_escapes_characters_that_could_end_the_script() -> None:
    text = str(jsonld({"name": "</script><!-- & -->"}))
    assert "<" not in text and ">" not in text and "&" not in text
    assert "\\u003c/script\\u003e" in text


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("https://cdn.example.vn/a.jpg", "https://cdn.example.vn/a.jpg"),
        ("/uploads/a.jpg", "/uploads/a.jpg"),
        ("javascript:alert(1)", None),
        ("//evil.example/a.jpg", None),
        ("data:image/png;base64,xx", None),
        (None, None),
        ("", None),
    ],
)
def test_image_src_accepts_only_http_and_site_paths(url: str | None, expected: str | None) -> None:
    assert image_src(url) == expected


def test_contact_links_are_built_only_from_plausible_values() -> None:
    assert tel_href("0901 234 567") == "tel:0901234567"
    assert tel_href("+84 90 123 4567") == "tel:+84901234567"
    assert tel_href("gọi ngay") is None
    assert mailto_href("lienhe@example.vn") == "mailto:lienhe@example.vn"
    assert mailto_href("a@b.vn?subject=x") is None
    assert mailto_href("not an email") is None
