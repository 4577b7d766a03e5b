"""The crawl cache: versioned details come from the cache, lists go out with If-None-Match."""

from __future__ import annotations

from pathlib import Path

import anyio
import httpx
import pytest

from generator.cache_crawl import CacheMiss, CrawlCache
from generator.client import ApiClient
from generator.crawl_fetch import Fetcher
from generator.crawl_settings import CrawlSettings

BASE = "http://api.test/public/v1"


def _fetcher(cache: CrawlCache, seen: list[httpx.Request], *, etag: str = '"v1"') -> Fetcher:
    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        if request.headers.get("If-None-Match") == etag:
            return httpx.Response(304, headers={"ETag": etag})
        return httpx.Response(200, json={"name": "Shop"}, headers={"ETag": etag})

    http = httpx.AsyncClient(transport=httpx.MockTransport(handler), base_url=BASE)
    return Fetcher(ApiClient(http, key="pk_live_x"), CrawlSettings(), cache=cache)


def _get(fetcher: Fetcher, path: str, version: str | None = None) -> object:
    async def run() -> object:
        return (await fetcher.response(path, version=version)).data

    return anyio.run(run)


def test_unchanged_version_is_answered_from_the_cache_without_a_request(tmp_path: Path) -> None:
    first: list[httpx.Request] = []
    cache = CrawlCache.open(tmp_path)
    assert _get(_fetcher(cache, first), "/products/1", "card-a") == {"name": "Shop"}
    cache.save()

    again: list[httpx.Request] = []
    cache = CrawlCache.open(tmp_path)
    assert _get(_fetcher(cache, again), "/products/1", "card-a") == {"name": "Shop"}
    assert again == []
    assert cache.reused == 1


def test_moved_version_asks_again(tmp_path: Path) -> None:
    cache = CrawlCache.open(tmp_path)
    _get(_fetcher(cache, []), "/products/1", "card-a")
    cache.save()
    seen: list[httpx.Request] = []
    _get(_fetcher(CrawlCache.open(tmp_path), seen), "/products/1", "card-b")
    assert len(seen) == 1


def test_list_is_asked_with_if_none_match_and_a_304_reuses_the_body(tmp_path: Path) -> None:
    cache = CrawlCache.open(tmp_path)
    _get(_fetcher(cache, []), "/store")
    cache.save()
    seen: list[httpx.Request] = []
    assert _get(_fetcher(CrawlCache.open(tmp_path), seen), "/store") == {"name": "Shop"}
    assert [r.headers.get("If-None-Match") for r in seen] == ['"v1"']


def test_answers_this_crawl_did_not_use_leave_the_cache(tmp_path: Path) -> None:
    cache = CrawlCache.open(tmp_path)
    fetcher = _fetcher(cache, [])
    _get(fetcher, "/products/1", "a")
    _get(fetcher, "/products/2", "a")
    cache.save()
    cache = CrawlCache.open(tmp_path)
    _get(_fetcher(cache, []), "/products/1", "a")
    cache.save()
    assert len(CrawlCache.open(tmp_path)) == 1


def test_offline_miss_is_a_one_line_error(tmp_path: Path) -> None:
    fetcher = Fetcher(None, CrawlSettings(), cache=CrawlCache.open(tmp_path))
    with pytest.raises(CacheMiss, match="GET /store"):
        _get(fetcher, "/store")


def test_damaged_cache_file_means_an_empty_cache(tmp_path: Path) -> None:
    (tmp_path / "crawl.sqlite3").write_bytes(b"not a database")
    assert len(CrawlCache.open(tmp_path)) == 0
