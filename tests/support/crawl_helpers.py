"""Running a crawl against the fake API in tests."""

from __future__ import annotations

from generator.client import ClientSettings
from generator.client.api import ApiClient
from generator.crawl.settings import CrawlSettings
from generator.model import Catalog
from generator.replay.crawl import crawl
from tests.support.fakeapi import KEY, FakeApi


async def crawl_fake(
    fake: FakeApi,
    *,
    client_settings: ClientSettings | None = None,
    settings: CrawlSettings | None = None,
) -> tuple[Catalog, ApiClient]:
    async with fake.client() as http:
        client = ApiClient(http, key=KEY, timer=fake.timer, settings=client_settings)
        catalog = await crawl(client, settings=settings)
    return catalog, client
