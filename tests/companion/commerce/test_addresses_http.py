"""A customer's address book: exactly one default while any address exists."""

from __future__ import annotations

import pytest

from tests.companion.commerce.conftest import Store

pytestmark = pytest.mark.anyio

HOME = {
    "full_name": "Lan",
    "phone": "0901234567",
    "city": "Thành phố Hà Nội",
    "street": "1 Hàng Bài",
}
WORK = {"full_name": "Lan", "phone": "0901234567", "city": "Thành phố Hồ Chí Minh"}


async def add(store: Store, jwt: str, body: dict[str, object]) -> dict[str, object]:
    created: dict[str, object] = await store.ok(
        "POST", "/customer/addresses", status=201, json=body, jwt=jwt
    )
    return created


async def defaults(store: Store, jwt: str) -> list[tuple[object, bool]]:
    listing = await store.ok("GET", "/customer/addresses", jwt=jwt)
    return [(a["id"], a["is_default"]) for a in listing["items"]]


async def test_first_address_is_the_default(store: Store) -> None:
    jwt = await store.customer()
    home = await add(store, jwt, HOME)
    assert home["is_default"] is True and home["province"] is None
    work = await add(store, jwt, WORK)
    assert work["is_default"] is False
    assert await defaults(store, jwt) == [(home["id"], True), (work["id"], False)]


async def test_choosing_another_default(store: Store) -> None:
    jwt = await store.customer()
    home = await add(store, jwt, HOME)
    work = await add(store, jwt, {**WORK, "is_default": True})
    assert await defaults(store, jwt) == [(work["id"], True), (home["id"], False)]
    chosen = await store.ok("POST", f"/customer/addresses/{home['id']}/default", jwt=jwt)
    assert chosen["is_default"] is True
    assert await defaults(store, jwt) == [(home["id"], True), (work["id"], False)]


async def test_deleting_the_default_promotes_the_newest(store: Store) -> None:
    jwt = await store.customer()
    home = await add(store, jwt, HOME)
    store.clock.advance(1)
    work = await add(store, jwt, WORK)
    store.clock.advance(1)
    shop = await add(store, jwt, {**WORK, "street": "5 Lê Lợi"})
    response = await store.call("DELETE", f"/customer/addresses/{home['id']}", jwt=jwt)
    assert response.status_code == 204
    assert await defaults(store, jwt) == [(shop["id"], True), (work["id"], False)]


async def test_patch_changes_only_what_is_sent(store: Store) -> None:
    jwt = await store.customer()
    home = await add(store, jwt, {**HOME, "ward": "Phường Hoàn Kiếm"})
    path = f"/customer/addresses/{home['id']}"
    changed = await store.ok("PATCH", path, json={"province": "Quận Hoàn Kiếm"}, jwt=jwt)
    assert changed["province"] == "Quận Hoàn Kiếm" and changed["ward"] == "Phường Hoàn Kiếm"
    cleared = await store.ok("PATCH", path, json={"ward": None}, jwt=jwt)
    assert cleared["ward"] is None and cleared["street"] == "1 Hàng Bài"
    refused = await store.call("PATCH", path, json={"city": None}, jwt=jwt)
    assert refused.status_code == 422 and refused.json()["errors"][0]["field"] == "city"


async def test_city_is_required(store: Store) -> None:
    jwt = await store.customer()
    response = await store.call(
        "POST", "/customer/addresses", json={"full_name": "Lan", "phone": "0901234567"}, jwt=jwt
    )
    assert response.status_code == 422 and response.json()["errors"][0]["field"] == "city"


async def test_another_customers_address_is_not_found(store: Store) -> None:
    first = await store.customer("a@example.vn")
    second = await store.customer("b@example.vn")
    home = await add(store, first, HOME)
    path = f"/customer/addresses/{home['id']}"
    assert (await store.call("PATCH", path, json={"street": "x"}, jwt=second)).status_code == 404
    assert (await store.call("DELETE", path, jwt=second)).status_code == 404
    assert (await store.call("POST", f"{path}/default", jwt=second)).status_code == 404
    assert (await store.call("DELETE", "/customer/addresses/0", jwt=first)).status_code == 422
