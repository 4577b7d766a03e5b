"""A null, dead or unsafe url renders as plain text everywhere: menus, lists, breadcrumbs."""

from __future__ import annotations

import lxml.html

from tests.support.fixture_site import html_of, rendered_pages

#: A card's title: the heading inside a .card (product, article or collection).
CARD_TITLE = "*[contains(concat(' ', @class, ' '), ' card ')]/*[self::h2 or self::h3]"


def texts_without_link(doc: lxml.html.HtmlElement, xpath: str) -> list[str]:
    """Text of the matched elements that carry no <a> (the plain-text rendering)."""
    return [e.text_content().strip() for e in doc.xpath(xpath) if not e.xpath(".//a")]


def link_texts(doc: lxml.html.HtmlElement, xpath: str) -> dict[str, str]:
    return {a.text_content().strip(): a.get("href") for a in doc.xpath(xpath + "//a")}


def test_null_url_menu_item_renders_plain_text() -> None:
    doc = html_of("/")
    assert "Quần" in texts_without_link(doc, "//nav[@class='main-nav']//li")
    assert "Tuyển dụng" in texts_without_link(doc, "//footer//li")


def test_dead_path_in_a_menu_renders_plain_text() -> None:
    doc = html_of("/")
    assert "Trang cũ" in texts_without_link(doc, "//nav[@class='main-nav']//li")
    assert not doc.xpath("//a[@href='/trang-cu']")


def test_menu_links_to_pages_and_external_urls() -> None:
    links = link_texts(html_of("/"), "//nav[@class='main-nav']")
    assert links["Thời trang"] == "/thoi-trang"
    assert links["Fanpage"] == "https://facebook.com/cuahangmau"


def test_a_custom_path_naming_another_canonical_is_linked_at_that_canonical() -> None:
    # The menu's custom path is still a page, but it names the collection's own as canonical:
    # links go where search engines index, not to the duplicate.
    custom = html_of("/khuyen-mai-he")
    assert custom.xpath("//link[@rel='canonical']/@href")[0].endswith("/bo-suu-tap/he-2026")
    links = link_texts(html_of("/"), "//nav[@class='main-nav']")
    assert links["Khuyến mãi hè"] == "/bo-suu-tap/he-2026"
    for page in rendered_pages().values():
        assert 'href="/khuyen-mai-he"' not in page.html, page.path


def test_unsafe_scheme_in_menu_and_social_links_renders_plain_text() -> None:
    for page in rendered_pages().values():
        assert "javascript:" not in page.html, page.path


def test_null_url_product_in_a_list_renders_plain_text() -> None:
    doc = html_of("/")
    titles = doc.xpath("//section[@aria-labelledby='featured']//" + CARD_TITLE)
    by_name = {t.text_content().strip(): t for t in titles}
    assert not by_name["Mũ lưỡi trai"].xpath(".//a")
    assert by_name["Quần jean"].xpath(".//a/@href") == ["/qu%E1%BA%A7n-jean"]


def test_null_url_category_in_a_breadcrumb_renders_plain_text() -> None:
    doc = html_of("/qu%E1%BA%A7n-jean")
    crumbs = doc.xpath("//nav[@class='breadcrumb']//li")
    quan = next(c for c in crumbs if c.text_content().strip() == "Quần")
    assert not quan.xpath(".//a")
    assert crumbs[1].xpath(".//a/@href") == ["/thoi-trang"]


def test_current_page_in_the_breadcrumb_is_marked_not_linked() -> None:
    doc = html_of("/thoi-trang/ao")
    last = doc.xpath("//nav[@class='breadcrumb']//li")[-1]
    assert last.get("aria-current") == "page"
    assert not last.xpath(".//a")


def test_null_url_subcategory_renders_plain_text() -> None:
    doc = html_of("/thoi-trang")
    section = doc.xpath("//section[@aria-labelledby='subcategories']")[0]
    assert "Quần" in texts_without_link(section, ".//li")
    assert link_texts(section, ".")["Áo"] == "/thoi-trang/ao"


def test_related_article_missing_from_the_catalog_renders_plain_text() -> None:
    doc = html_of("/bai-viet/cach-chon-ao")
    section = doc.xpath("//section[@aria-labelledby='related']")[0]
    assert "Bài cũ" in texts_without_link(section, ".//" + CARD_TITLE)


def test_banner_with_a_dead_link_is_not_a_link() -> None:
    doc = html_of("/")
    assert doc.xpath("//a[.//img[contains(@src, '/b/1.jpg')]]/@href") == ["/thoi-trang/ao"]
    assert not doc.xpath("//a[.//img[contains(@src, '/b/3.jpg')]]")


def test_promotion_without_link_is_plain_text() -> None:
    doc = html_of("/")
    items = doc.xpath("//ul[@class='promotions']/li")
    assert items[0].xpath("./a/@href") == ["/bo-suu-tap/he-2026"]  # /khuyen-mai-he's canonical
    assert not items[1].xpath(".//a")


def test_every_internal_link_points_at_a_written_page_in_public_spelling() -> None:
    pages = rendered_pages()
    written = set(pages)
    for page in pages.values():
        doc = lxml.html.document_fromstring(page.html)
        for href in doc.xpath("//a/@href"):
            if href.startswith("/"):
                assert href.split("#")[0] in written, f"{page.path} links to {href}"
                assert href.isascii() and ".html" not in href, href
