from __future__ import annotations

import pytest

from generator.plan.links import Links
from generator.plan.usable import usable_link


@pytest.fixture
def links() -> Links:
    return Links(["/", "/%C3%A1o-thun", "/thoi-trang/ao", "/bai-viet"])


def test_null_url_is_plain_text(links: Links) -> None:
    assert links.href(None) is None
    assert links.href("") is None


def test_internal_path_with_a_page_is_a_link(links: Links) -> None:
    assert links.href("/thoi-trang/ao") == "/thoi-trang/ao"


def test_internal_path_without_a_page_is_plain_text(links: Links) -> None:
    assert links.href("/trang-cu") is None


def test_another_spelling_of_a_page_links_in_nfc_percent_encoded_form(links: Links) -> None:
    assert links.href("/áo-thun") == "/%C3%A1o-thun"
    assert links.href("/a\u0301o-thun") == "/%C3%A1o-thun"


def test_fragment_of_an_internal_link_is_kept(links: Links) -> None:
    assert links.href("/bai-viet#moi-nhat") == "/bai-viet#moi-nhat"


def test_a_page_naming_another_canonical_is_linked_at_it_in_any_spelling() -> None:
    links = Links(
        ["/", "/ao-dai-tet", "/san-pham/áo-dài"], aliases=[("/ao-dai-tet", "/san-pham/áo-dài")]
    )
    assert links.href("/ao-dai-tet") == "/san-pham/%C3%A1o-d%C3%A0i"
    assert links.href("/ao-dai-tet#mua") == "/san-pham/%C3%A1o-d%C3%A0i#mua"
    assert links.href("/san-pham/áo-dài") == "/san-pham/%C3%A1o-d%C3%A0i"
    assert links.is_page("/ao-dai-tet")  # still a page of the site, linked elsewhere
    assert Links.of_keys(links.page_keys(), links.aliases).href("/ao-dai-tet") == (
        "/san-pham/%C3%A1o-d%C3%A0i"
    )


def test_internal_link_with_a_query_is_plain_text(links: Links) -> None:
    assert links.href("/bai-viet?page=2") is None


@pytest.mark.parametrize("url", ["https://facebook.com/shop", "http://example.vn/a?b=1"])
def test_external_http_urls_are_links(links: Links, url: str) -> None:
    assert links.href(url) == url
    assert usable_link(url)


@pytest.mark.parametrize(
    "url",
    [
        "javascript:alert(1)",
        "JavaScript:alert(1)",
        "data:text/html,<b>x</b>",
        "//evil.example/x",
        "mailto:a@b.vn",
        "thoi-trang/ao",
        "https://",
        "https://exa mple.vn/",
        "/../etc/passwd",
        "/%2e%2e/x",
        "https://evil.test\\@shop.example.vn/",  # browsers go to evil.test
        "https://shop.example.vn/a\x7f",
        "/\\evil.test/x",
    ],
)
def test_other_urls_are_plain_text(links: Links, url: str) -> None:
    assert links.href(url) is None
    assert not usable_link(url)
