"""Product (merchant listing) and BreadcrumbList JSON-LD, one planted defect per test."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

from generator.audit import Severity
from generator.audit.jsonld_checks import price_problems
from tests.generator.audit.fixture_site import (
    BREADCRUMB_JSONLD,
    PRODUCT_JSONLD,
    page_html,
    run_audit,
    write,
)

PRODUCT = "san-pham/ao-thun.html"


def _product_page(site: Path, *blocks: Any) -> None:
    write(site, PRODUCT, page_html("/san-pham/ao-thun", jsonld=tuple(blocks)))


def _product(**changes: Any) -> dict[str, Any]:
    node = copy.deepcopy(PRODUCT_JSONLD)
    for key, value in changes.items():
        if value is None:
            node.pop(key, None)
        else:
            node[key] = value
    return node


def _offer(**changes: Any) -> dict[str, Any]:
    offer = copy.deepcopy(PRODUCT_JSONLD["offers"])
    for key, value in changes.items():
        if value is None:
            offer.pop(key, None)
        else:
            offer[key] = value
    return offer


def _messages(site: Path, check: str) -> list[str]:
    return [f.message for f in run_audit(site).findings if f.check == check]


def test_invalid_json_is_an_error(site: Path) -> None:
    _product_page(site, '{"@context": "https://schema.org", "@type": "Product",}')
    report = run_audit(site)
    [finding] = report.findings
    assert finding.check == "jsonld-invalid"
    assert finding.where.startswith(f"{PRODUCT}:")


def test_product_without_name_is_an_error(site: Path) -> None:
    _product_page(site, _product(name=None), BREADCRUMB_JSONLD)
    assert _messages(site, "jsonld-product") == ["Product has no name"]


def test_product_without_image_is_merchant_listing_information(site: Path) -> None:
    _product_page(site, _product(image=[]), BREADCRUMB_JSONLD)
    report = run_audit(site)
    [finding] = report.findings
    assert (finding.check, finding.severity) == ("jsonld-product", Severity.INFO)
    assert finding.message == (
        "Product 'Áo thun cotton' has no image: not eligible for merchant listings"
    )


def test_formatted_price_string_is_an_error(site: Path) -> None:
    _product_page(site, _product(offers=_offer(price="120.000 ₫")), BREADCRUMB_JSONLD)
    [message] = _messages(site, "jsonld-product")
    assert "not a plain number" in message


def test_zero_price_is_an_error(site: Path) -> None:
    _product_page(site, _product(offers=_offer(price=0)), BREADCRUMB_JSONLD)
    [message] = _messages(site, "jsonld-product")
    assert "greater than 0" in message


def test_currency_other_than_vnd_is_an_error(site: Path) -> None:
    _product_page(site, _product(offers=_offer(priceCurrency="USD")), BREADCRUMB_JSONLD)
    assert _messages(site, "jsonld-product") == [
        "Product 'Áo thun cotton': priceCurrency is 'USD', not 'VND'"
    ]


def test_missing_availability_is_an_error(site: Path) -> None:
    _product_page(site, _product(offers=_offer(availability=None)), BREADCRUMB_JSONLD)
    assert _messages(site, "jsonld-product") == [
        "Product 'Áo thun cotton': offer has no availability"
    ]


def test_unknown_availability_is_an_error(site: Path) -> None:
    _product_page(site, _product(offers=_offer(availability="Còn hàng")), BREADCRUMB_JSONLD)
    [message] = _messages(site, "jsonld-product")
    assert "not a schema.org ItemAvailability" in message


def test_product_without_offers_is_information(site: Path) -> None:
    _product_page(site, _product(offers=None), BREADCRUMB_JSONLD)
    report = run_audit(site)
    [finding] = report.findings
    assert (finding.check, finding.severity) == ("jsonld-product", Severity.INFO)
    assert "not eligible for merchant listings" in finding.message


def test_product_inside_a_graph_is_checked(site: Path) -> None:
    graph = {"@context": "https://schema.org", "@graph": [_product(offers=_offer(price=0))]}
    _product_page(site, graph, BREADCRUMB_JSONLD)
    [message] = _messages(site, "jsonld-product")
    assert "greater than 0" in message


def test_aggregate_offer_needs_a_low_price(site: Path) -> None:
    offer = {
        "@type": "AggregateOffer",
        "priceCurrency": "VND",
        "highPrice": 150000,
        "availability": "https://schema.org/InStock",
    }
    _product_page(site, _product(offers=offer), BREADCRUMB_JSONLD)
    assert _messages(site, "jsonld-product") == ["Product 'Áo thun cotton': offer has no lowPrice"]


def test_missing_context_is_a_warning(site: Path) -> None:
    _product_page(site, _product(**{"@context": None}), BREADCRUMB_JSONLD)
    report = run_audit(site)
    assert report.checks() == {"jsonld-context"}
    assert report.count(Severity.ERROR) == 0


@pytest.mark.parametrize(
    ("price", "ok"),
    [
        (120000, True),
        (120000.5, True),
        ("120000", True),
        ("120000.50", True),
        ("120.000", False),  # Vietnamese thousands separator: a crawler reads 120
        ("120,000", False),
        ("120.000 ₫", False),
        (-5, False),
        (True, False),
        ([120000], False),
    ],
)
def test_price_must_be_a_plain_positive_number(price: object, ok: bool) -> None:
    assert (price_problems("price", price) == []) is ok


def test_breadcrumb_positions_out_of_order_are_an_error(site: Path) -> None:
    crumbs = copy.deepcopy(BREADCRUMB_JSONLD)
    crumbs["itemListElement"][1]["position"] = 3
    crumbs["itemListElement"][2]["position"] = 2
    _product_page(site, PRODUCT_JSONLD, crumbs)
    assert _messages(site, "jsonld-breadcrumb") == [
        "BreadcrumbList positions are [1, 3, 2], expected 1..3"
    ]


def test_breadcrumb_crumb_without_url_is_an_error(site: Path) -> None:
    crumbs = copy.deepcopy(BREADCRUMB_JSONLD)
    del crumbs["itemListElement"][1]["item"]
    _product_page(site, PRODUCT_JSONLD, crumbs)
    assert _messages(site, "jsonld-breadcrumb") == ["crumb 2 ('Áo') has no item url"]


def test_breadcrumb_relative_url_is_an_error(site: Path) -> None:
    crumbs = copy.deepcopy(BREADCRUMB_JSONLD)
    crumbs["itemListElement"][1]["item"] = "/danh-muc/ao"
    _product_page(site, PRODUCT_JSONLD, crumbs)
    assert _messages(site, "jsonld-breadcrumb") == [
        "crumb 2 item '/danh-muc/ao' is not an absolute url"
    ]


def test_empty_breadcrumb_list_is_an_error(site: Path) -> None:
    crumbs = {"@context": "https://schema.org", "@type": "BreadcrumbList", "itemListElement": []}
    _product_page(site, PRODUCT_JSONLD, crumbs)
    assert _messages(site, "jsonld-breadcrumb") == ["BreadcrumbList has no itemListElement"]
