"""Every string from the API is escaped; only merchant *_html fields are trusted HTML."""

from __future__ import annotations

import json

import lxml.html

from tests.support.fixture_site import html_of, rendered_pages
from tests.support.fixture_store import SCRIPT_NAME


def test_script_in_a_product_name_is_escaped_on_every_page() -> None:
    for page in rendered_pages().values():
        assert "<script>alert(" not in page.html, page.path


def test_escaped_name_reads_back_as_the_original_text() -> None:
    doc = html_of("/%C3%A1o-thun")
    assert doc.xpath("//h1")[0].text_content() == SCRIPT_NAME
    assert doc.xpath("//title")[0].text_content().startswith(SCRIPT_NAME)


def test_ampersand_in_the_store_name_is_escaped() -> None:
    html = rendered_pages()["/"].html
    assert "Cửa hàng Mẫu &amp; Co" in html
    assert "Cửa hàng Mẫu & Co" not in html


def test_markup_in_a_menu_label_and_a_promotion_is_shown_as_text() -> None:
    doc = html_of("/")
    assert doc.xpath("//footer//span[text()='Mẹo <b>hay</b>']")
    assert doc.xpath("//ul[@class='promotions']//a[text()='Giảm 10% <b>toàn bộ</b> áo hè']")


def test_merchant_html_fields_are_rendered_as_html() -> None:
    doc = html_of("/%C3%A1o-thun")
    description = doc.xpath("//section[contains(@class, 'product-description')]")[0]
    assert description.xpath(".//strong/text()") == ["cotton"]
    assert description.xpath(".//a/@href") == ["/gioi-thieu"]


def test_json_ld_cannot_close_its_script_element() -> None:
    for page in rendered_pages().values():
        doc = lxml.html.document_fromstring(page.html)
        for script in doc.xpath("//script[@type='application/ld+json']"):
            assert "<" not in script.text and ">" not in script.text, page.path
            json.loads(script.text)


def test_json_ld_keeps_the_original_name() -> None:
    doc = html_of("/%C3%A1o-thun")
    data = [json.loads(s.text) for s in doc.xpath("//script[@type='application/ld+json']")]
    nodes = [n for d in data for n in d.get("@graph", [d])]
    product = next(n for n in nodes if n["@type"] == "Product")
    assert product["name"] == SCRIPT_NAME
