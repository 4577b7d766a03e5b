"""A crawl against a hostile or broken API ends in one line naming the endpoint, and soon."""

from __future__ import annotations

import time
from collections.abc import Callable

import httpx
import pytest

from generator.client import ClientSettings
from generator.errors import StorefrontError
from tests.support.crawl_helpers import crawl_fake
from tests.support.fakeapi import FakeApi, Quirks, small_store
from tests.support.hostile_api import MiB, Served, drip, padded_list_page

pytestmark = pytest.mark.anyio


def hostile(path: str, answer: Callable[[], httpx.Response]) -> FakeApi:
    """The small store, with ``path`` answered by a new ``answer()`` each time."""
    return FakeApi(small_store(), Quirks(overrides={path: lambda request: answer()}))


async def crawl_error(fake: FakeApi, settings: ClientSettings | None = None) -> str:
    """The one line a crawl of ``fake`` fails with."""
    with pytest.raises(StorefrontError) as caught:
        await crawl_fake(fake, client_settings=settings)
    text = str(caught.value)
    assert "\n" not in text
    return text


async def test_a_huge_list_page_fails_the_crawl_naming_the_list() -> None:
    served = Served()
    fake = hostile("/products", lambda: padded_list_page(4 * MiB, served))
    error = await crawl_error(fake, ClientSettings(max_answer_bytes=MiB))
    assert error.startswith("GET /products?limit=100: the answer is larger than 1 MiB")
    assert served.bytes <= 2 * MiB


async def test_a_drip_fed_detail_fails_the_crawl_at_the_deadline() -> None:
    fake = hostile("/products/3", lambda: drip(Served()))
    started = time.monotonic()
    error = await crawl_error(fake, ClientSettings(request_deadline=0.2))
    assert error.startswith("GET /products/3: no complete answer within 0.2 s")
    assert time.monotonic() - started < 2.0
