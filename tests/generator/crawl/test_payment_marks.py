"""The footer's payment marks are the methods the store accepts: GET /checkout/payment-methods,
read once per build; a backend without the endpoint gets no marks at all."""

from __future__ import annotations

import dataclasses

import lxml.html
import pytest

from generator.model import PaymentMethod
from generator.plan.site_plan import plan_site
from tests.support.crawl_helpers import crawl_fake
from tests.support.fakeapi import FakeApi, Quirks, small_store
from tests.support.fixture_site import rendered_pages
from tests.support.fixture_store import SITE_URL, small_catalog

pytestmark = pytest.mark.anyio

METHODS = [
    {"code": "cod", "name": "Thanh toán khi nhận hàng (COD)", "online": False},
    {"code": "vnpay", "name": "VNPay", "online": True},
]


async def test_the_crawl_reads_the_methods_once() -> None:
    fake = FakeApi(dataclasses.replace(small_store(), payment_methods=METHODS))
    catalog, _ = await crawl_fake(fake)
    assert [m.code for m in catalog.site.payment_methods] == ["cod", "vnpay"]
    asked = [entry.path for entry in fake.log if entry.path == "/checkout/payment-methods"]
    assert len(asked) == 1


async def test_without_the_endpoint_there_are_no_methods() -> None:
    fake = FakeApi(small_store(), Quirks(missing={"/checkout/payment-methods"}))
    catalog, _ = await crawl_fake(fake)
    assert catalog.site.payment_methods == ()


def _marks(methods: tuple[PaymentMethod, ...]) -> list[str]:
    catalog = small_catalog()
    site = dataclasses.replace(catalog.site, payment_methods=methods)
    plan = plan_site(dataclasses.replace(catalog, site=site), SITE_URL)
    html = lxml.html.document_fromstring(rendered_pages(plan)["/"].html)
    footer = html.xpath("//footer//ul[@class='payment-marks']/li")
    return [(li.xpath("string(.)") + " ".join(li.xpath(".//img/@alt"))).strip() for li in footer]


def test_the_footer_marks_only_the_methods_accepted() -> None:
    cod = PaymentMethod("cod", "Thanh toán khi nhận hàng (COD)")
    vnpay = PaymentMethod("vnpay", "VNPay")
    assert _marks((cod, vnpay)) == [cod.name, vnpay.name]
    assert _marks((cod,)) == [cod.name]
    assert _marks(()) == []
