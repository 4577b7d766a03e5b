"""The sandbox gateway end to end: POST /checkout/pay -> the pay page -> pay or cancel -> the
IPN (which alone settles the order) -> the signed return, verified by /checkout/payment-return.
"""

from __future__ import annotations

from urllib.parse import parse_qsl, urlsplit

import pytest
from sqlalchemy import update

from companion.db.commerce_schema import payment_gateways
from companion.payments import vnpay
from tests.companion.commerce.conftest import HASH_SECRET, MERCHANT_CODE, SITE, Store

pytestmark = pytest.mark.anyio

RETURN_URL = f"{SITE}/thanh-toan/ket-qua?from=sandbox"


async def placed_vnpay_order(store: Store) -> tuple[str, dict[str, object]]:
    token = await store.cart((store.goods.shirt_m, 1))
    return token, await store.place(token, payment_method="vnpay")


async def start(store: Store, token: str) -> dict[str, str]:
    """POST /checkout/pay; the signed request parameters of the payment URL."""
    body = await store.ok(
        "POST", "/checkout/pay", params={"cart_token": token}, json={"return_url": RETURN_URL}
    )
    url = urlsplit(body["payment_url"])
    assert url.path == "/sandbox/vnpay/pay"
    return dict(parse_qsl(url.query))


async def complete(store: Store, request: dict[str, str], outcome: str) -> dict[str, str]:
    """The tester presses pay or cancel; the signed return query the browser is sent to."""
    response = await store.client.post(
        "/sandbox/vnpay/complete", data={**request, "outcome": outcome}
    )
    assert response.status_code == 303, response.text
    location = urlsplit(response.headers["location"])
    assert location.netloc == "shop.example"
    params = dict(parse_qsl(location.query, keep_blank_values=True))
    assert params.pop("from") == "sandbox"
    return params


async def status_of(store: Store, token: str) -> str:
    order = await store.place(token, expect=200)
    status: str = order["current_status"]
    return status


async def test_pay_starts_a_signed_request_for_the_order_total(store: Store) -> None:
    token, order = await placed_vnpay_order(store)
    request = await start(store, token)
    assert request["vnp_Amount"] == str(int(str(order["total"])) * 100)
    assert request["vnp_ReturnUrl"] == RETURN_URL
    assert request["vnp_TmnCode"] == MERCHANT_CODE and request["vnp_Version"] == "2.1.0"
    assert vnpay.is_genuine(request, HASH_SECRET)
    page = await store.client.get("/sandbox/vnpay/pay", params=request)
    assert page.status_code == 200 and "Thanh toán (thành công)" in page.text
    assert "230.000\u00a0₫" in page.text  # as a Vietnamese gateway shows it


async def test_paying_in_the_sandbox_marks_the_order_paid_through_the_ipn(store: Store) -> None:
    token, order = await placed_vnpay_order(store)
    returned = await complete(store, await start(store, token), "pay")
    assert await status_of(store, token) == "paid"
    verdict = await store.ok(
        "POST", "/checkout/payment-return", json={"query_string": _query(returned)}
    )
    assert verdict["valid"] and verdict["success"] and verdict["provider"] == "vnpay"
    assert verdict["order"] == {"id": order["id"], "code": order["code"], "current_status": "paid"}
    assert verdict["amount"] == order["total"]


async def test_cancel_fails_the_payment_and_a_retry_pays(store: Store) -> None:
    token, _ = await placed_vnpay_order(store)
    returned = await complete(store, await start(store, token), "cancel")
    assert returned["vnp_ResponseCode"] == "24"
    assert await status_of(store, token) == "payment_failed"
    verdict = await store.ok(
        "POST",
        "/checkout/payment-return",
        json={"query_string": _query(returned), "provider": "vnpay"},
    )
    assert verdict["valid"] and not verdict["success"]
    await complete(store, await start(store, token), "pay")
    assert await status_of(store, token) == "paid"
    refused = await store.call("POST", "/checkout/pay", params={"cart_token": token})
    assert refused.status_code == 409 and refused.json()["code"] == "order_not_payable"


def paid_result(request: dict[str, str]) -> dict[str, str]:
    """The gateway's (unsigned) notification that the payment ``request`` was paid."""
    return {
        "vnp_Amount": request["vnp_Amount"],
        "vnp_ResponseCode": "00",
        "vnp_TransactionStatus": "00",
        "vnp_TmnCode": MERCHANT_CODE,
        "vnp_TxnRef": request["vnp_TxnRef"],
        "vnp_TransactionNo": "1234",
    }


async def test_replayed_ipn_is_acknowledged_without_change(store: Store) -> None:
    token, _ = await placed_vnpay_order(store)
    returned = await complete(store, await start(store, token), "pay")
    replay = await store.client.get("/payments/vnpay/ipn", params=returned)
    assert replay.json() == {"RspCode": "02", "Message": "Order already confirmed"}
    assert await status_of(store, token) == "paid"


async def test_ipn_answers_in_the_gateway_convention(store: Store) -> None:
    token, _ = await placed_vnpay_order(store)
    result = paid_result(await start(store, token))

    async def ipn(params: dict[str, str], secret: str = HASH_SECRET) -> str:
        signed = dict(parse_qsl(vnpay.signed_query(params, secret)))
        response = await store.client.get("/payments/vnpay/ipn", params=signed)
        assert response.status_code == 200
        code: str = response.json()["RspCode"]
        return code

    assert await ipn(result, secret="wrong-secret") == "97"
    tampered = dict(parse_qsl(vnpay.signed_query(result, HASH_SECRET)))
    tampered["vnp_Amount"] = "100"
    response = await store.client.get("/payments/vnpay/ipn", params=tampered)
    assert response.json()["RspCode"] == "97"
    assert await ipn({**result, "vnp_TxnRef": "UNKNOWN"}) == "01"
    assert await ipn({**result, "vnp_Amount": "100"}) == "04"
    assert await ipn({**result, "vnp_TmnCode": "OTHER"}) == "97"
    assert await status_of(store, token) == "pending"
    assert await ipn(result) == "00"
    assert await status_of(store, token) == "paid"
    assert await ipn(result) == "02"
    garbage = await store.client.get("/payments/vnpay/ipn?a=1&a=2")
    assert garbage.json()["RspCode"] == "99"


async def test_payment_return_is_read_only(store: Store) -> None:
    token, _ = await placed_vnpay_order(store)
    request = await start(store, token)
    claim = {
        "vnp_Amount": request["vnp_Amount"],
        "vnp_ResponseCode": "00",
        "vnp_TransactionStatus": "00",
        "vnp_TmnCode": MERCHANT_CODE,
        "vnp_TxnRef": request["vnp_TxnRef"],
    }
    query = vnpay.signed_query(claim, HASH_SECRET)
    verdict = await store.ok("POST", "/checkout/payment-return", json={"query_string": query})
    assert verdict["valid"] and verdict["success"]
    assert verdict["order"]["current_status"] == "pending"
    assert await status_of(store, token) == "pending"  # only the IPN settles


async def test_payment_return_detects_tampering_and_bad_input(store: Store) -> None:
    query = vnpay.signed_query(
        {"vnp_TmnCode": MERCHANT_CODE, "vnp_TxnRef": "X", "vnp_ResponseCode": "00"},
        "not-the-secret",
    )
    verdict = await store.ok("POST", "/checkout/payment-return", json={"query_string": query})
    assert verdict["valid"] is False and verdict["success"] is False
    assert "signature" in verdict["message"]

    async def refused(body: dict[str, object]) -> str:
        response = await store.call("POST", "/checkout/payment-return", json=body)
        assert response.status_code == 422, response.text
        field: str = response.json()["errors"][0]["field"]
        return field

    assert await refused({"query_string": "a=1&a=2"}) == "query_string"
    assert await refused({"query_string": "foo=bar"}) == "provider"
    assert await refused({"query_string": query, "provider": "momo"}) == "provider"
    assert await refused({}) == "query_string"


async def test_pay_needs_an_online_gateway_and_a_placed_order(store: Store) -> None:
    token = await store.cart((store.goods.shirt_m, 1))
    not_placed = await store.call("POST", "/checkout/pay", params={"cart_token": token})
    assert not_placed.status_code == 404
    await store.place(token)  # cash on delivery
    cod = await store.call("POST", "/checkout/pay", params={"cart_token": token})
    assert cod.status_code == 422 and cod.json()["errors"][0]["field"] == "provider"
    chosen = await store.ok(
        "POST", "/checkout/pay", params={"cart_token": token}, json={"provider": "vnpay"}
    )
    assert chosen["provider"] == "vnpay"
    bad_url = await store.call(
        "POST",
        "/checkout/pay",
        params={"cart_token": token},
        json={"return_url": "javascript:alert(1)"},
    )
    assert bad_url.status_code == 422 and bad_url.json()["errors"][0]["field"] == "return_url"


async def test_sandbox_refuses_forged_requests(store: Store) -> None:
    token, _ = await placed_vnpay_order(store)
    request = await start(store, token)
    forged = {**request, "vnp_Amount": "100"}
    page = await store.client.get("/sandbox/vnpay/pay", params=forged)
    assert page.status_code == 400 and "Invalid signature" in page.text
    response = await store.client.post("/sandbox/vnpay/complete", data={**forged, "outcome": "pay"})
    assert response.status_code == 400
    assert await status_of(store, token) == "pending"
    store.clock.advance(16 * 60)
    expired = await store.client.get("/sandbox/vnpay/pay", params=request)
    assert expired.status_code == 400 and "expired" in expired.text


async def test_cod_is_listed_first_whatever_its_position(store: Store) -> None:
    with store.engine.begin() as conn:
        conn.execute(
            update(payment_gateways).where(payment_gateways.c.code == "cod").values(position=9)
        )
    methods = await store.ok("GET", "/checkout/payment-methods")
    assert [m["code"] for m in methods["items"]] == ["cod", "vnpay"]


def _query(params: dict[str, str]) -> str:
    return vnpay.signed_text(params) + "&vnp_SecureHash=" + params["vnp_SecureHash"]
