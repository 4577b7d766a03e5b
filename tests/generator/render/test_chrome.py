"""The chrome every page shares: the header's search form and menu, the footer's badge."""

from __future__ import annotations

import dataclasses
import tomllib
from pathlib import Path

import lxml.html
import pytest

from generator.errors import ConfigError
from generator.model import MenuItem
from generator.plan.site_plan import plan_site
from generator.render.theme_settings import parse
from tests.support.fixture_site import rendered_pages, write_with_settings
from tests.support.fixture_store import SITE_URL, small_catalog

PAGES = rendered_pages()
BADGE_URL = "http://online.gov.vn/Home/WebDetails/123456"


def test_every_kind_of_page_has_the_search_form() -> None:
    kinds = set()
    for path, page in PAGES.items():
        doc = lxml.html.document_fromstring(page.html)
        forms = doc.xpath("//header//form[@role='search']")
        assert len(forms) == 1, path
        form = forms[0]
        assert form.get("action") == "/tim-kiem" and form.get("method", "get") == "get", path
        field = form.xpath(".//input[@name='q']")[0]
        assert doc.xpath(f"//label[@for='{field.get('id')}']/text()") == ["Tìm sản phẩm"], path
        kinds.add(page.kind)
    # Every kind the build renders: home, listings, product, article, CMS, shells, not-found.
    assert {"home", "product", "category", "article", "cms_page", "cart", "not_found"} <= kinds


def test_menu_parents_without_a_link_are_disclosure_buttons_before_their_children() -> None:
    catalog = small_catalog()
    main = catalog.site.menus[0]
    parent = MenuItem("Giày & Túi", None, children=(MenuItem("Áo", "/thoi-trang/ao"),))
    menus = (dataclasses.replace(main, items=(*main.items, parent)), *catalog.site.menus[1:])
    catalog = dataclasses.replace(catalog, site=dataclasses.replace(catalog.site, menus=menus))
    html = rendered_pages(plan_site(catalog, SITE_URL))["/"].html
    doc = lxml.html.document_fromstring(html)
    nav = doc.xpath("//nav[@id='nav']")[0]
    buttons = nav.xpath(".//li/button")
    assert [b.text_content() for b in buttons] == ["Giày & Túi"]
    # Outside a form a button submits nothing: it needs no type="button".
    assert not buttons[0].xpath("ancestor::form") and buttons[0].get("aria-expanded") == "false"
    assert buttons[0].getnext().xpath("li/a/text()") == ["Áo"]
    toggle = doc.xpath("//header//button[@aria-controls='nav']")
    assert len(toggle) == 1 and toggle[0].get("aria-expanded") == "false"
    # One menu markup for both layouts.
    assert len(doc.xpath("//nav[contains(@class, 'main-nav')]")) == 1


def _footer(out: Path) -> lxml.html.HtmlElement:
    html = (out / "index.html").read_text(encoding="utf-8")
    return lxml.html.document_fromstring(html).xpath("//footer")[0]


def test_the_bo_cong_thuong_badge_shows_only_when_turned_on_with_the_merchants_link(
    tmp_path: Path,
) -> None:
    plain = _footer(write_with_settings(tmp_path / "plain", None))
    assert not plain.xpath(".//img[contains(@src, 'bo-cong-thuong')]")
    off_settings = f'[bo_cong_thuong]\nshow = false\nurl = "{BADGE_URL}"\n'
    off = _footer(write_with_settings(tmp_path / "off", off_settings))
    assert not off.xpath(".//img[contains(@src, 'bo-cong-thuong')]")
    on_settings = f'[bo_cong_thuong]\nshow = true\nurl = "{BADGE_URL}"\n'
    on = _footer(write_with_settings(tmp_path / "on", on_settings))
    badge = on.xpath(".//a[img[contains(@src, 'bo-cong-thuong.svg')]]")
    assert len(badge) == 1 and badge[0].get("href") == BADGE_URL
    assert badge[0].xpath("img/@alt") == ["Đã thông báo Bộ Công Thương"]
    assert (tmp_path / "on" / "out" / "_assets" / "bo-cong-thuong.svg").is_file()


def test_the_footer_has_no_menu_name_heading_and_the_copyright_in_the_column() -> None:
    doc = lxml.html.document_fromstring(PAGES["/"].html)
    headings = [h.text_content().strip() for h in doc.xpath("//footer//h2")]
    assert "Chân trang" not in headings
    assert doc.xpath("//footer/div[contains(@class, 'wrap')]/p[starts-with(., '©')]")
    assert doc.xpath("//footer//img[contains(@src, 'payment-cod.svg')]/@alt")


@pytest.mark.parametrize(
    ("toml", "message"),
    [
        ("[bo_cong_thuong]\nshow = true\n", "bo_cong_thuong.url is missing"),
        ('[bo_cong_thuong]\nshow = "yes"\nurl = "' + BADGE_URL + '"\n', "bo_cong_thuong.show"),
        ('[bo_cong_thuong]\nshow = true\nurl = "https://example.com/x"\n', "online.gov.vn"),
        ('[bo_cong_thuong]\nshow = true\nurl = "javascript:alert(1)"\n', "bo_cong_thuong.url"),
        ('[bo_cong_thuong]\nshow = true\nurl = "http://online.gov.vn/a\\"b"\n', "online.gov"),
        ("[bo_cong_thuong]\nlink = 1\n", "unknown setting bo_cong_thuong.link"),
    ],
)
def test_bo_cong_thuong_settings_are_checked(toml: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message) as raised:
        parse(tomllib.loads(toml))
    assert "None" not in str(raised.value)  # a missing setting is named, not shown as None


def test_bo_cong_thuong_settings_accepted() -> None:
    on = parse(tomllib.loads(f'[bo_cong_thuong]\nshow = true\nurl = "{BADGE_URL}"\n'))
    assert on.bo_cong_thuong == BADGE_URL
    off = parse(tomllib.loads(f'[bo_cong_thuong]\nurl = "{BADGE_URL}"\n'))
    assert off.bo_cong_thuong is None


def test_social_links_are_named_as_their_brands_write_them() -> None:
    catalog = small_catalog()
    networks = ("tiktok", "youtube", "facebook", "zalo", "LinkedIn", "mastodon")
    social = tuple((name, f"https://example.com/{name}") for name in networks)
    store = dataclasses.replace(catalog.site.store, social=social)
    catalog = dataclasses.replace(catalog, site=dataclasses.replace(catalog.site, store=store))
    html = rendered_pages(plan_site(catalog, SITE_URL))["/"].html
    names = lxml.html.document_fromstring(html).xpath("//footer//ul[@class='social']//a/text()")
    # Known networks by their brand's spelling; another as the store wrote it, first letter up.
    assert names == ["TikTok", "YouTube", "Facebook", "Zalo", "LinkedIn", "Mastodon"]
