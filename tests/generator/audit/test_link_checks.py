"""Links and assets, one planted defect per test."""

from __future__ import annotations

from pathlib import Path

import pytest

from generator.audit import Severity
from generator.audit.link_checks import is_null_built
from tests.generator.audit.fixture_site import ORIGIN, PAGES, page_html, run_audit, write

PAGE = "áo-dài.html"


def _body(site: Path, body: str) -> None:
    write(site, PAGE, page_html("/áo-dài", body=body))


def test_anchor_without_href_is_an_error(site: Path) -> None:
    _body(site, '<a onclick="addToCart()">Thêm vào giỏ</a>')
    report = run_audit(site)
    [finding] = report.findings
    assert finding.check == "link-no-href"
    assert finding.where.startswith(f"{PAGE}:")


def test_javascript_href_is_an_error(site: Path) -> None:
    _body(site, '<a href="javascript:void(0)">Mua</a>')
    assert run_audit(site).checks() == {"link-no-href"}


@pytest.mark.parametrize(
    "href", ["/san-pham/None", "/san-pham/null", "undefined", "", "/danh-muc/null/", "None"]
)
def test_link_built_from_a_null_url_is_an_error(site: Path, href: str) -> None:
    _body(site, f'<a href="{href}">Sản phẩm</a>')
    report = run_audit(site)
    [finding] = report.findings
    assert finding.check == "link-null-url"
    assert repr(href) in finding.message


def test_slug_built_product_link_not_served_is_an_error(site: Path) -> None:
    _body(site, '<a href="/products/ao-thun-cotton">Áo thun</a>')
    report = run_audit(site)
    [finding] = report.findings
    assert finding.check == "link-broken"
    assert "no page is written at /products/ao-thun-cotton" in finding.message


def test_absolute_link_on_the_site_is_checked_like_a_relative_one(site: Path) -> None:
    _body(site, f'<a href="{ORIGIN}/san-pham/khong-co">x</a><a href="{ORIGIN}/danh-muc/ao">y</a>')
    report = run_audit(site)
    [finding] = report.findings
    assert finding.check == "link-broken"


def test_relative_link_resolves_against_the_page(site: Path) -> None:
    page = page_html("/bai-viet/chao-mung", body='<a href="mot">1</a>')
    write(site, "bai-viet/chao-mung.html", page)
    report = run_audit(site)
    [finding] = report.findings
    assert "no page is written at /bai-viet/mot" in finding.message


def test_link_with_html_suffix_is_a_warning(site: Path) -> None:
    _body(site, '<a href="/danh-muc/ao.html">Áo</a>')
    report = run_audit(site)
    [finding] = report.findings
    assert (finding.check, finding.severity) == ("link-html", Severity.WARNING)


def test_link_to_a_page_with_a_trailing_slash_is_broken(site: Path) -> None:
    _body(site, '<a href="/bai-viet/">Bài viết</a>')
    assert run_audit(site).checks() == {"link-broken"}


def test_percent_encoded_link_to_a_non_ascii_page_is_served(site: Path) -> None:
    _body(site, '<a href="/%C3%A1o-d%C3%A0i?mau=do#top">Áo dài đỏ</a>')
    assert run_audit(site).findings == ()


def test_external_mail_phone_and_fragment_links_are_not_checked(site: Path) -> None:
    _body(
        site,
        '<a href="https://zalo.me/0900000000">Zalo</a><a href="tel:+84900000000">Gọi</a>'
        '<a href="mailto:a@b.vn">Mail</a><a href="#mo-ta">Mô tả</a>'
        '<a href="//cdn.example.net/x.pdf">PDF</a>',
    )
    assert run_audit(site).findings == ()


def test_missing_asset_is_an_error(site: Path) -> None:
    _body(site, '<img src="/_assets/khong-co.webp" alt="Ảnh">')
    report = run_audit(site)
    [finding] = report.findings
    assert finding.check == "asset-missing"
    assert "/_assets/khong-co.webp" in finding.message


def test_missing_srcset_candidate_is_an_error(site: Path) -> None:
    _body(site, '<img src="/_assets/ao-thun.svg" srcset="/_assets/ao-2x.svg 2x" alt="Ảnh">')
    assert run_audit(site).checks() == {"asset-missing"}


def test_missing_stylesheet_is_an_error(site: Path) -> None:
    (site / "_assets" / "site.css").unlink()
    report = run_audit(site)
    [finding] = report.findings
    assert finding.check == "asset-missing"
    assert finding.where.endswith("and 5 more")


@pytest.mark.parametrize(
    ("href", "null"),
    [
        ("/san-pham/None", True),
        ("/san-pham/none?x=1", True),
        ("https://shop.example.vn/null", True),
        ("NaN", True),
        ("/san-pham/nullable-jacket", False),
        ("/san-pham/ao-null-size", False),
        ("/", False),
    ],
)
def test_null_markers(href: str, null: bool) -> None:
    assert is_null_built(href) is null


def test_a_file_a_stylesheet_loads_must_be_in_the_output(site: Path) -> None:
    css = site / "_assets" / "site.css"
    css.write_text(
        "/* url(fonts/old.woff2) */\nbody{color:#111}\n"
        '@font-face{font-family:S;src:url("fonts/s.woff2?v=1a2b") format("woff2")}\n'
        ".x{background:url(data:image/png;base64,AAAA)}\n",
        encoding="utf-8",
    )
    report = run_audit(site)
    [finding] = report.findings  # one, though every page links the stylesheet
    assert finding.check == "asset-missing"
    assert finding.where == "_assets/site.css:3"
    assert "url(fonts/s.woff2?v=1a2b)" in finding.message
    assert "/_assets/fonts/s.woff2" in finding.message
    (site / "_assets" / "fonts").mkdir()
    (site / "_assets" / "fonts" / "s.woff2").write_bytes(b"font")
    assert run_audit(site).findings == ()


def test_links_to_a_page_naming_another_as_canonical_are_information(site: Path) -> None:
    # The menu's /gio-hang shows another page again, as a merchant's custom path does.
    write(site, "gio-hang.html", page_html("/gio-hang", canonical=f"{ORIGIN}/bai-viet/chao-mung"))
    report = run_audit(site)
    [finding] = [f for f in report.findings if f.check == "link-to-duplicate"]
    assert finding.severity is Severity.INFO
    others = len(PAGES) - 1  # the menu is on every page
    assert finding.message.startswith(f"{others} pages link to /gio-hang, which names ")
    assert "/bai-viet/chao-mung as its canonical (linked from 1 page)" in finding.message
    assert report.exit_code(strict=True) == 0  # the store's menu chose it: not a failure
    write(site, "gio-hang.html", page_html("/gio-hang"))
    assert not [f for f in run_audit(site).findings if f.check == "link-to-duplicate"]
