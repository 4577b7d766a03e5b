"""Rate limits over HTTP: both windows, the 429 body and headers, buckets per key and per store.

Time moves with the injected ManualClock (START is 03:00:10), never with sleeps.
"""

from __future__ import annotations

import pytest

from companion.ratelimit.middleware import rate_limit_headers
from companion.ratelimit.windows import Window, decide, decision_headers, policy_text
from tests.companion.conftest import PREFIX, Api, MakeApi
from tests.companion.test_answer_cache import cache_of

pytestmark = pytest.mark.anyio


async def statuses(api: Api, n: int, key: str | None = None) -> list[int]:
    return [(await api.get("/store", key=key)).status_code for _ in range(n)]


async def test_every_answer_carries_rate_limit_headers(api: Api) -> None:
    found = await api.get("/store")
    missing = await api.get("/products/by-slug/none")
    assert missing.status_code == 404
    for response, remaining in ((found, "599"), (missing, "598")):
        assert response.headers["RateLimit-Limit"] == "600"
        assert response.headers["RateLimit-Remaining"] == remaining
        assert response.headers["RateLimit-Reset"] == "50"
        assert response.headers["RateLimit-Policy"] == "600;w=60, 20000;w=3600"


async def test_minute_window_refuses_with_retry_after(make_api: MakeApi) -> None:
    api = await make_api(rate_per_minute=3, rate_per_hour=5)
    assert await statuses(api, 3) == [200, 200, 200]
    refused = await api.get("/store")
    assert refused.status_code == 429
    assert refused.headers["Retry-After"] == "50"
    assert refused.headers["RateLimit-Remaining"] == "0"
    body = refused.json()
    assert body["code"] == "rate_limited"
    assert body["retry_after"] == 50
    assert body["status"] == 429
    api.clock.advance(50)
    assert await statuses(api, 1) == [200]


async def test_hour_window_refuses_after_the_minute_resets(make_api: MakeApi) -> None:
    api = await make_api(rate_per_minute=3, rate_per_hour=5)
    assert await statuses(api, 4) == [200, 200, 200, 429]
    api.clock.advance(60)  # 03:01:10: a new minute, same hour
    assert await statuses(api, 2) == [200, 200]
    refused = await api.get("/store")
    assert refused.status_code == 429
    assert refused.json()["retry_after"] == 3530  # until 04:00:00
    assert refused.headers["RateLimit-Reset"] == "3530"
    assert refused.headers["RateLimit-Limit"] == "5"
    api.clock.advance(3530)
    assert await statuses(api, 1) == [200]


async def test_each_key_has_its_own_bucket(make_api: MakeApi) -> None:
    api = await make_api(rate_per_minute=2)
    second_key = api.shop.key("second")
    assert await statuses(api, 3) == [200, 200, 429]
    assert await statuses(api, 2, key=second_key) == [200, 200]


async def test_unkeyed_traffic_to_a_store_shares_one_bucket(make_api: MakeApi) -> None:
    api = await make_api(rate_per_minute=2)
    codes = [
        (await api.client.get(f"{PREFIX}/store", headers={"Host": host})).status_code
        for host in ("a.example", "b.example", "c.example")
    ]
    assert codes == [200, 200, 429]
    assert await statuses(api, 1) == [200]  # the key's bucket is separate


async def test_a_kept_answer_carries_each_rate_limit_header_once(api: Api) -> None:
    read = await api.get("/store")
    cache = cache_of(api.app)
    kept = await api.get("/store")
    assert cache.hits == 1
    for response, remaining in ((read, "599"), (kept, "598")):
        assert response.status_code == 200
        for name, value in (("ratelimit-limit", "600"), ("ratelimit-remaining", remaining)):
            assert response.headers.get_list(name) == [value]
        assert response.headers.get_list("ratelimit-policy") == ["600;w=60, 20000;w=3600"]


def test_raw_rate_limit_headers_are_the_named_ones() -> None:
    windows = (Window(60, 600), Window(3600, 20_000))
    for used in ([0, 0], [599, 1_000], [600, 19_999]):
        decision = decide(windows, used, 1_795_000_010.0, policy_text(windows))
        named = rate_limit_headers(decision)
        assert decision_headers(decision) == [
            (name.lower().encode(), value.encode()) for name, value in named.items()
        ]
