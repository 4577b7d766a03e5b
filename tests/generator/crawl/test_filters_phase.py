"""The crawl asks GET /filters once per category page and keeps what it configures; an
implementation without it, failing at it, or answering it oddly never stops a build."""

from __future__ import annotations

import httpx
import pytest

from generator.crawl.filters import filter_config
from generator.model import FilterConfig
from tests.support.crawl_helpers import crawl_fake
from tests.support.fakeapi import FakeApi, Quirks, small_store

pytestmark = pytest.mark.anyio

ANSWER = {
    "brands": [{"id": 1, "name": "An Nhiên"}, {"id": 2, "name": "Phố Cổ"}],
    "attributes": [{"name": "Màu", "values": ["Đỏ", "Xanh"]}],
    "price_ranges": [{"min": 0, "max": "100000"}, {"min": 100000, "max": 200000}],
}


def _filters(request: httpx.Request) -> httpx.Response:
    return httpx.Response(200, json={**ANSWER, "category": request.url.params["category"]})


async def test_each_category_page_asks_its_filters_once_and_keeps_them() -> None:
    fake = FakeApi(small_store(), Quirks(overrides={"/filters": _filters}))
    catalog, _ = await crawl_fake(fake)
    asked = sorted(int(entry.params["category"]) for entry in fake.requests_to("/filters"))
    assert asked == sorted(page.category.id for page in catalog.categories)
    expected = FilterConfig(
        brands=("An Nhiên", "Phố Cổ"),
        attributes=(("Màu", ("Đỏ", "Xanh")),),
        price_ranges=((0, 100_000), (100_000, 200_000)),
    )
    assert all(page.filters == expected for page in catalog.categories)
    assert not any("filters" in skip.what for skip in catalog.skipped)


async def test_an_implementation_without_filters_is_asked_once_and_the_build_goes_on() -> None:
    fake = FakeApi(small_store())  # no /filters route: 404
    catalog, _ = await crawl_fake(fake)
    assert len(fake.requests_to("/filters")) == 1
    assert catalog.categories and all(page.filters is None for page in catalog.categories)
    assert [skip.what for skip in catalog.skipped if "filters" in skip.what] == [
        "filters (/filters)"
    ]


async def test_filters_failing_for_good_leave_the_categories_without_and_the_build_goes_on() -> (
    None
):
    fake = FakeApi(small_store(), Quirks(failures={"/filters": 999}))
    catalog, _ = await crawl_fake(fake)
    assert catalog.categories and all(page.filters is None for page in catalog.categories)
    failed = [skip for skip in catalog.skipped if skip.what.startswith("filters of category")]
    assert len(failed) == len(catalog.categories)
    assert all("500" in skip.reason for skip in failed)


def test_an_odd_answer_keeps_what_it_can_read() -> None:
    config = filter_config(
        {
            "brands": [{"id": 1, "name": "A"}, {"id": 2}, "B", {"name": "A"}, {"name": " "}],
            "attributes": [{"name": "Size", "values": ["M", 38, None]}, {"values": ["x"]}, 7],
            "price_ranges": [
                {"min": "0", "max": "50000.0"},
                {"min": 500, "max": 100},
                {"min": "lots", "max": 1},
                {"min": 200000, "max": None},
                {},
            ],
        }
    )
    assert config == FilterConfig(
        brands=("A",),
        attributes=(("Size", ("M", "38")),),
        price_ranges=((0, 50_000), (200_000, None)),
    )
    assert filter_config(None) == FilterConfig((), (), ())
    assert filter_config({"brands": "x", "attributes": {}, "price_ranges": 3}) == FilterConfig(
        (), (), ()
    )
