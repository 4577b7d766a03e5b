"""JSON-LD: Organization, Product with Offer in VND, BreadcrumbList, Article."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

from generator.crawl.pack import unpack
from generator.model import PackedProduct, Product
from generator.plan.site_plan import SitePlan, plan_site
from generator.render.structured_data import structured_data
from tests.support.fixture_site import fixture_plan, html_of
from tests.support.fixture_store import SITE_URL, small_catalog, with_product


def product_data(plan: SitePlan, path: str) -> dict[str, Any]:
    """The Product JSON-LD of the product page at ``path``, as its render gives it."""
    page = plan.page_at(path)
    assert page is not None and isinstance(page.subject, PackedProduct)
    rendered = replace(page, subject=unpack(page.subject))
    return next(d for d in structured_data(plan, rendered) if d["@type"] == "Product")


def json_ld(path: str) -> dict[str, dict[str, Any]]:
    scripts = html_of(path).xpath("//script[@type='application/ld+json']")
    assert len(scripts) <= 1  # several objects share one @graph
    data = [json.loads(s.text) for s in scripts]
    nodes = [n for d in data for n in d.get("@graph", [d])]
    return {n["@type"]: n for n in nodes}


def test_home_describes_the_organization() -> None:
    org = json_ld("/")["Organization"]
    assert org["name"] == "Cửa hàng Mẫu & Co"
    assert org["url"] == SITE_URL + "/"
    assert org["logo"] == "https://cdn.example.vn/logo.png"
    assert org["sameAs"] == ["https://facebook.com/cuahangmau"]  # the javascript: one is dropped


def test_product_has_an_offer_in_vnd_at_the_price_paid() -> None:
    product = json_ld("/%C3%A1o-thun")["Product"]
    offer = product["offers"]
    assert offer["@type"] == "Offer"
    assert offer["price"] == 120000 and isinstance(offer["price"], int)
    assert offer["priceCurrency"] == "VND"
    assert offer["availability"] == "https://schema.org/InStock"
    assert "url" not in offer and "url" not in product  # the page's canonical link says it
    assert product["sku"] == "AT-001"
    assert product["brand"] == {"@type": "Brand", "name": "Mẫu & Co"}


def test_product_without_a_price_has_no_offer() -> None:
    product = json_ld("/qu%E1%BA%A7n-jean")["Product"]
    assert "offers" not in product


def test_product_with_a_zero_price_has_no_offer() -> None:
    def free(shirt: Product) -> Product:
        variants = tuple(replace(v, price=0, effective_price=0) for v in shirt.variants)
        return replace(
            shirt, card=replace(shirt.card, price=0, effective_price=0), variants=variants
        )

    catalog = with_product(small_catalog(), 0, free)
    plan = plan_site(catalog, SITE_URL)
    product = product_data(plan, "/%C3%A1o-thun")
    assert "offers" not in product


def test_out_of_stock_product_offers_out_of_stock() -> None:
    def sold_out(shirt: Product) -> Product:
        variants = tuple(replace(v, in_stock=False, stock=0) for v in shirt.variants)
        return replace(shirt, card=replace(shirt.card, in_stock=False), variants=variants)

    catalog = with_product(small_catalog(), 0, sold_out)
    product = product_data(plan_site(catalog, SITE_URL), "/%C3%A1o-thun")
    assert product["offers"]["availability"] == "https://schema.org/OutOfStock"  # type: ignore[index]


def test_the_offer_is_the_variant_the_page_shows_not_a_cheaper_one_sold_out() -> None:
    """The product's price is its cheapest variant's, sold out here; the page shows the first
    variant in stock, and a search engine compares the offer's price with the page's."""

    def sizes(shirt: Product) -> Product:
        small, medium = shirt.variants  # S is sold out
        return replace(
            shirt,
            card=replace(shirt.card, price=150000, effective_price=99000),
            variants=(
                replace(small, price=150000, effective_price=99000),
                replace(medium, price=180000, effective_price=135000),
            ),
        )

    plan = plan_site(with_product(small_catalog(), 0, sizes), SITE_URL)
    offer = product_data(plan, "/%C3%A1o-thun")["offers"]
    assert offer["price"] == 135000  # M's, as the page shows it
    assert offer["availability"] == "https://schema.org/InStock"


def test_breadcrumb_list_numbers_the_linkable_crumbs_below_home_from_one() -> None:
    crumbs = json_ld("/%C3%A1o-thun")["BreadcrumbList"]["itemListElement"]
    assert [(c["position"], c["name"], c.get("item")) for c in crumbs] == [
        (1, "Thời trang", SITE_URL + "/thoi-trang"),
        (2, "Áo", SITE_URL + "/thoi-trang/ao"),
        (3, "Áo thun <script>alert('x')</script> & quần", None),  # the page: its own url
    ]


def test_a_page_right_below_home_has_no_breadcrumb_list() -> None:
    # Search engines start a trail at the site's address: "Trang chủ" > page tells them nothing.
    for path in ("/thoi-trang", "/gioi-thieu", "/bai-viet", "/gio-hang"):
        assert "BreadcrumbList" not in json_ld(path), path
    crumbs = json_ld("/thoi-trang/ao")["BreadcrumbList"]["itemListElement"]
    assert [(c["position"], c["name"]) for c in crumbs] == [(1, "Thời trang"), (2, "Áo")]
    assert html_of("/thoi-trang").xpath("//nav[@class='breadcrumb']//a[@href='/']")  # shown


def test_breadcrumb_list_leaves_out_a_crumb_without_a_page() -> None:
    crumbs = json_ld("/qu%E1%BA%A7n-jean")["BreadcrumbList"]["itemListElement"]
    assert [c["name"] for c in crumbs] == ["Thời trang", "Quần jean"]
    assert [c["position"] for c in crumbs] == [1, 2]
    assert crumbs[0]["item"] == SITE_URL + "/thoi-trang"
    assert "item" not in crumbs[-1]


def test_page_with_a_breadcrumb_and_a_product_writes_one_graph() -> None:
    scripts = html_of("/%C3%A1o-thun").xpath("//script[@type='application/ld+json']")
    assert len(scripts) == 1
    document = json.loads(scripts[0].text)
    assert document["@context"] == "https://schema.org"
    assert [n["@type"] for n in document["@graph"]] == ["Product", "BreadcrumbList"]
    assert all("@context" not in n for n in document["@graph"])


def test_article_has_headline_dates_image_and_author() -> None:
    article = json_ld("/bai-viet/cach-chon-ao")["Article"]
    assert article["headline"] == "Cách chọn áo <thun> & quần"
    assert article["datePublished"] == "2026-11-07T08:30:00+00:00"
    assert article["dateModified"] == "2026-11-09T08:30:00+00:00"
    assert article["image"] == ["https://cdn.example.vn/a/20.jpg"]
    assert article["author"] == {"@type": "Person", "name": "Lan <Nguyễn>"}


def test_article_without_author_credits_the_store() -> None:
    article = json_ld("/bai-viet/xu-huong-2026")["Article"]
    assert article["author"]["@type"] == "Organization"
    assert article["dateModified"] == article["datePublished"]


def test_not_found_page_has_no_structured_data() -> None:
    plan = fixture_plan()
    page = plan.page_at("/404")
    assert page is not None
    assert structured_data(plan, page) == []


def test_product_without_gallery_or_card_image_uses_its_variant_images() -> None:

    def bare(shirt: Product) -> Product:
        return replace(
            shirt,
            images=(),
            card=replace(shirt.card, image_url=None),
            variants=tuple(
                replace(v, image_url=f"https://cdn.example.vn/v/{v.id}.jpg") for v in shirt.variants
            ),
        )

    product = product_data(
        plan_site(with_product(small_catalog(), 0, bare), SITE_URL), "/%C3%A1o-thun"
    )
    assert product["image"] == [
        "https://cdn.example.vn/v/11.jpg",
        "https://cdn.example.vn/v/12.jpg",
    ]
