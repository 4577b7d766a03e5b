"""POST /checkout and its address, shipping and payment steps; the shipping catalogues."""

from __future__ import annotations

import pytest

from tests.companion.commerce.conftest import ADDRESS, Store

pytestmark = pytest.mark.anyio


async def start(store: Store) -> tuple[str, str]:
    token = await store.cart((store.goods.shirt_m, 1))
    checkout = await store.ok("POST", "/checkout", params={"cart_token": token})
    return token, checkout["checkout_id"]


async def test_start_checkout_once_per_cart(store: Store) -> None:
    token = await store.cart((store.goods.shirt_m, 1))
    first = await store.ok(
        "POST",
        "/checkout",
        params={"cart_token": token},
        json={"email": "Lan@Example.vn", "coupon_code": "giam10"},
    )
    assert first["checkout_id"].startswith("chk_") and len(first["checkout_id"]) > 30
    assert (first["cart_token"], first["status"]) == (token, "open")
    assert (first["email"], first["coupon_code"]) == ("lan@example.vn", "GIAM10")
    again = await store.ok("POST", "/checkout", params={"cart_token": token})
    assert again["checkout_id"] == first["checkout_id"]


async def test_an_empty_coupon_code_drops_the_checkouts_coupon(store: Store) -> None:
    """The spec has no way to take a coupon off a checkout: ours is an explicit empty string;
    null (or no field) keeps the coupon the checkout holds."""
    token = await store.cart((store.goods.shirt_m, 1))
    where = {"cart_token": token}
    await store.ok("POST", "/checkout", params=where, json={"coupon_code": "giam10"})
    kept = await store.ok("POST", "/checkout", params=where, json={"coupon_code": None})
    assert kept["coupon_code"] == "GIAM10"
    dropped = await store.ok("POST", "/checkout", params=where, json={"coupon_code": " "})
    assert dropped["coupon_code"] is None
    again = await store.ok("POST", "/checkout", params=where)
    assert again["coupon_code"] is None


async def test_checkout_needs_a_known_cart(store: Store) -> None:
    missing = await store.call("POST", "/checkout")
    assert missing.status_code == 422 and missing.json()["errors"][0]["field"] == "cart_token"
    unknown = await store.call("POST", "/checkout", params={"cart_token": "nope"})
    assert unknown.status_code == 404


async def test_address_keeps_the_spec_naming(store: Store) -> None:
    _, checkout_id = await start(store)
    body = await store.ok("PUT", f"/checkout/{checkout_id}/address", json=ADDRESS)
    assert body["address"]["city"] == "Thành phố Hồ Chí Minh"  # province-or-city level
    assert body["address"]["province"] == "Quận 1"  # district level
    minimal = {"full_name": "An", "phone": "0901234567", "city": "Tỉnh Cao Bằng"}
    body = await store.ok("PUT", f"/checkout/{checkout_id}/address", json=minimal)
    assert body["address"]["province"] is None and body["address"]["ward"] is None


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"city": None}, "city"),
        ({"city": "   "}, "city"),
        ({"phone": "abc"}, "phone"),
        ({"email": "not-an-email"}, "email"),
        ({"full_name": "x" * 201}, "full_name"),
        ({"street": "a\x00b"}, "street"),
    ],
)
async def test_bad_address_is_422_naming_the_field(
    store: Store, change: dict[str, object], field: str
) -> None:
    _, checkout_id = await start(store)
    response = await store.call(
        "PUT", f"/checkout/{checkout_id}/address", json={**ADDRESS, **change}
    )
    assert response.status_code == 422
    assert response.json()["errors"][0]["field"] == field


async def test_shipping_choice(store: Store) -> None:
    _, checkout_id = await start(store)
    path = f"/checkout/{checkout_id}/shipping"
    body = await store.ok("PUT", path, json={"shipping_method": "express"})
    assert body["shipping_method"] == "express" and body["pickup_location_id"] is None
    unknown = await store.call("PUT", path, json={"shipping_method": "teleport"})
    assert unknown.status_code == 422 and unknown.json()["errors"][0]["field"] == "shipping_method"
    no_location = await store.call("PUT", path, json={"shipping_method": "pickup"})
    assert no_location.json()["errors"][0]["field"] == "pickup_location_id"
    bad_location = await store.call(
        "PUT", path, json={"shipping_method": "pickup", "pickup_location_id": 999}
    )
    assert bad_location.status_code == 422
    locations = await store.ok("GET", "/pickup-locations")
    first = locations["items"][0]["id"]
    body = await store.ok(
        "PUT", path, json={"shipping_method": "pickup", "pickup_location_id": first}
    )
    assert body["pickup_location_id"] == first


async def test_payment_choice_must_be_a_connected_gateway(store: Store) -> None:
    _, checkout_id = await start(store)
    path = f"/checkout/{checkout_id}/payment"
    assert (await store.ok("POST", path, json={"payment_method": "vnpay"}))[
        "payment_method"
    ] == "vnpay"
    refused = await store.call("POST", path, json={"payment_method": "bitcoin"})
    assert refused.status_code == 422 and "cod, vnpay" in refused.json()["detail"]


async def test_unknown_checkout_is_404_and_a_completed_one_is_409(store: Store) -> None:
    assert (await store.call("PUT", "/checkout/chk_nope/address", json=ADDRESS)).status_code == 404
    token, checkout_id = await start(store)
    await store.place(token)
    done = await store.call("PUT", f"/checkout/{checkout_id}/address", json=ADDRESS)
    assert done.status_code == 409 and done.json()["code"] == "checkout_completed"
    body = await store.ok("POST", "/checkout", params={"cart_token": token})
    assert body["status"] == "completed" and body["order_id"] is not None


async def test_shipping_methods_price_the_cart(store: Store) -> None:
    small = await store.cart((store.goods.shirt_m, 1))
    large = await store.cart((store.goods.jeans_v, 1))
    for token, standard_fee in ((small, "30000"), (large, "0")):
        body = await store.ok("POST", "/shipping-methods", json={"cart_token": token})
        fees = {m["code"]: m["fee"] for m in body["items"]}
        assert fees == {"standard": standard_fee, "express": "50000", "pickup": "0"}
    base = await store.ok("POST", "/shipping-methods")
    assert [m["kind"] for m in base["items"]] == ["delivery", "delivery", "pickup"]
    assert base["has_more"] is False and base["next_cursor"] is None
    unknown = await store.call("POST", "/shipping-methods", json={"cart_token": "nope"})
    assert unknown.status_code == 404


async def test_provinces_and_wards_are_the_real_units(store: Store) -> None:
    provinces = (await store.ok("GET", "/shipping/provinces"))["items"]
    assert len(provinces) == 34
    assert {"code": "01", "name": "Thành phố Hà Nội"} in provinces
    wards = (await store.ok("GET", "/shipping/wards"))["items"]
    assert len(wards) == 3321
    hanoi = (await store.ok("GET", "/shipping/wards", params={"province_code": "01"}))["items"]
    assert hanoi and {w["province_code"] for w in hanoi} == {"01"}
    assert {"code": "00004", "name": "Phường Ba Đình", "province_code": "01"} in hanoi


async def test_warehouses_pickup_locations_and_payment_methods(store: Store) -> None:
    warehouses = (await store.ok("GET", "/warehouses"))["items"]
    assert [w["code"] for w in warehouses] == ["HCM-01", "HN-01"]
    locations = (await store.ok("GET", "/pickup-locations"))["items"]
    assert len(locations) == 2 and locations[0]["opening_hours"]
    methods = (await store.ok("GET", "/checkout/payment-methods"))["items"]
    assert [m["code"] for m in methods] == ["cod", "vnpay"]
    assert [m["online"] for m in methods] == [False, True]
