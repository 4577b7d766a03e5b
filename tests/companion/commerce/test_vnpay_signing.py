"""VNPay 2.1.0-style signing: HMAC-SHA512 over the sorted, form-encoded vnp_* parameters."""

from __future__ import annotations

import hashlib
import hmac
from datetime import datetime
from urllib.parse import parse_qsl

import pytest

from companion.payments import vnpay

SECRET = "SECRETKEY123"
PARAMS = {
    "vnp_Version": "2.1.0",
    "vnp_TmnCode": "DEMOSHOP",
    "vnp_Amount": "18560000",
    "vnp_OrderInfo": "Thanh toan don hang DH1",
    "vnp_TxnRef": "DH1ABC",
    "vnp_ReturnUrl": "https://shop.example/tra-ve?a=1&b=2",
}


def test_signed_text_is_sorted_and_form_encoded() -> None:
    text = vnpay.signed_text({**PARAMS, "vnp_SecureHash": "x", "other": "ignored"})
    assert text == (
        "vnp_Amount=18560000&vnp_OrderInfo=Thanh+toan+don+hang+DH1"
        "&vnp_ReturnUrl=https%3A%2F%2Fshop.example%2Ftra-ve%3Fa%3D1%26b%3D2"
        "&vnp_TmnCode=DEMOSHOP&vnp_TxnRef=DH1ABC&vnp_Version=2.1.0"
    )


def test_signature_is_hmac_sha512_of_the_signed_text() -> None:
    expected = hmac.new(
        SECRET.encode(), vnpay.signed_text(PARAMS).encode(), hashlib.sha512
    ).hexdigest()
    assert vnpay.signature(PARAMS, SECRET) == expected
    assert len(expected) == 128


def test_signed_query_round_trips_and_verifies() -> None:
    params = dict(parse_qsl(vnpay.signed_query(PARAMS, SECRET)))
    assert params["vnp_ReturnUrl"] == PARAMS["vnp_ReturnUrl"]
    assert vnpay.is_genuine(params, SECRET)
    params["vnp_SecureHash"] = params["vnp_SecureHash"].upper()  # gateways send either case
    assert vnpay.is_genuine(params, SECRET)


@pytest.mark.parametrize("field", sorted(PARAMS))
def test_changing_any_signed_field_breaks_the_signature(field: str) -> None:
    params = dict(parse_qsl(vnpay.signed_query(PARAMS, SECRET)))
    params[field] += "0"
    assert not vnpay.is_genuine(params, SECRET)


def test_other_secret_or_missing_hash_is_not_genuine() -> None:
    params = dict(parse_qsl(vnpay.signed_query(PARAMS, SECRET)))
    assert not vnpay.is_genuine(params, "another-secret")
    assert not vnpay.is_genuine(PARAMS, SECRET)


def test_parse_query_refuses_repeated_keys_and_empty_input() -> None:
    assert vnpay.parse_query("?vnp_A=1&vnp_B=") == {"vnp_A": "1", "vnp_B": ""}
    with pytest.raises(vnpay.MalformedQuery, match="repeated"):
        vnpay.parse_query("vnp_A=1&vnp_A=2")
    with pytest.raises(vnpay.MalformedQuery, match="no parameters"):
        vnpay.parse_query("")
    with pytest.raises(vnpay.MalformedQuery, match="too long"):
        vnpay.parse_query("a=" + "x" * vnpay.MAX_QUERY)


def test_payment_request_uses_amount_times_100_and_vietnam_time() -> None:
    request = vnpay.payment_request(
        merchant_code="DEMOSHOP",
        txn_ref="DH1",
        amount_vnd=185_600,
        order_info="x",
        return_url="https://shop.example/",
        client_ip="127.0.0.1",
        now=datetime(2026, 11, 20, 20, 30, 0),
    )
    assert request["vnp_Amount"] == "18560000"
    assert request["vnp_CreateDate"] == "20261121033000"  # UTC+7 crosses midnight
    assert request["vnp_ExpireDate"] == "20261121034500"
    assert request["vnp_Version"] == "2.1.0" and request["vnp_Command"] == "pay"
