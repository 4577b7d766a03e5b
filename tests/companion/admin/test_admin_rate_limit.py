"""Each secret key's calls of the admin API are rate limited as a publishable key's are: its
own bucket, the store's policy, a 429 problem past it, RateLimit headers on every answer."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from companion.clock import ManualClock
from tests.companion.admin.test_admin_api import Admin
from tests.companion.commerce.conftest import Store, Template, opened_store

pytestmark = pytest.mark.anyio

PER_MINUTE = 3


@pytest.fixture
async def strict(template: Template, tmp_path: Path, clock: ManualClock) -> AsyncIterator[Store]:
    async with opened_store(template, tmp_path, clock, rate_per_minute=PER_MINUTE) as opened:
        yield opened


async def test_a_secret_key_is_refused_past_its_limit_and_another_key_is_not(
    strict: Store,
) -> None:
    admin, other = Admin(strict), Admin(strict)
    for left in range(PER_MINUTE - 1, -1, -1):
        answer = await admin.call("GET", "/orders")
        assert answer.status_code == 200, answer.text
        assert answer.headers["RateLimit-Limit"] == str(PER_MINUTE)
        assert answer.headers["RateLimit-Remaining"] == str(left)
    refused = await admin.call("DELETE", "/catalog/products/999999")
    assert refused.status_code == 429
    assert refused.headers["content-type"] == "application/problem+json"
    body = refused.json()
    assert body["code"] == "rate_limited" and body["retry_after"] >= 1
    assert int(refused.headers["Retry-After"]) == body["retry_after"]
    assert refused.headers["RateLimit-Remaining"] == "0"
    # Another key of the store, and the store's publishable key, have buckets of their own.
    assert (await other.call("GET", "/orders")).status_code == 200
    assert (await strict.call("GET", "/store")).status_code == 200
    # A new window lets the key through again.
    strict.clock.advance(60)
    assert (await admin.call("GET", "/orders")).status_code == 200


async def test_a_bodiless_answer_carries_the_keys_rate_limit_headers(strict: Store) -> None:
    admin = Admin(strict)
    product = strict.goods.jeans
    deleted = await admin.call("DELETE", f"/catalog/products/{product}")
    assert deleted.status_code == 204, deleted.text
    assert deleted.headers["RateLimit-Remaining"] == str(PER_MINUTE - 1)
