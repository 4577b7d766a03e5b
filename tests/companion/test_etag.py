"""Entity tags on the read side: an unchanged detail answers 304, a changed one a new body."""

from __future__ import annotations

import pytest
from sqlalchemy import update

from companion.db.schema import products
from companion.etag import matches
from tests.companion.conftest import PREFIX, Api

pytestmark = pytest.mark.anyio


async def test_unchanged_detail_answers_304_without_a_body(api: Api) -> None:
    product_id = api.shop.product("Áo thun", price=150_000)
    first = await api.client.get(
        f"{PREFIX}/products/{product_id}", headers={"X-Service-Key": api.key}
    )
    tag = first.headers["etag"]
    again = await api.client.get(
        f"{PREFIX}/products/{product_id}",
        headers={"X-Service-Key": api.key, "If-None-Match": tag},
    )
    assert again.status_code == 304
    assert again.content == b""
    assert again.headers["etag"] == tag
    assert "ratelimit-remaining" in again.headers  # a 304 is still a counted request


async def test_changed_detail_answers_200_with_a_new_tag(api: Api) -> None:
    product_id = api.shop.product("Áo thun", price=150_000)
    url = f"{PREFIX}/products/{product_id}"
    tag = (await api.client.get(url, headers={"X-Service-Key": api.key})).headers["etag"]
    with api.app.state.services.engine.begin() as conn:
        conn.execute(update(products).where(products.c.id == product_id).values(price=99_000))
    changed = await api.client.get(url, headers={"X-Service-Key": api.key, "If-None-Match": tag})
    assert changed.status_code == 200
    assert changed.json()["price"] == 99_000
    assert changed.headers["etag"] != tag


async def test_errors_carry_no_tag(api: Api) -> None:
    missing = await api.client.get(
        f"{PREFIX}/products/999999", headers={"X-Service-Key": api.key, "If-None-Match": "*"}
    )
    assert missing.status_code == 404
    assert "etag" not in missing.headers


def test_if_none_match_compares_weakly_over_a_list() -> None:
    assert matches('"a", W/"b"', '"b"')
    assert matches("*", '"x"')
    assert not matches('"a"', '"b"')
