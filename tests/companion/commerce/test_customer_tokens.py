"""The customer JWT: HS256 with sub, store, iat, exp; expiry judged by the injected clock."""

from __future__ import annotations

from datetime import datetime, timedelta

import jwt
import pytest

from companion.clock import epoch_seconds
from companion.customers.tokens import TokenRejected, issue_token, read_token

SECRET = "s" * 48
NOW = datetime(2026, 11, 20, 3, 0, 0)


def issued(lifetime: int = 3600) -> str:
    return issue_token(SECRET, customer_id=7, store_id=1, now=NOW, lifetime_seconds=lifetime).token


def test_token_carries_exactly_the_documented_claims() -> None:
    token = issue_token(SECRET, customer_id=7, store_id=1, now=NOW, lifetime_seconds=60)
    claims = jwt.decode(token.token, SECRET, algorithms=["HS256"], options={"verify_exp": False})
    assert claims == {
        "sub": "7",
        "store": 1,
        "iat": int(epoch_seconds(NOW)),
        "exp": int(epoch_seconds(NOW)) + 60,
    }
    assert token.expires_at == NOW + timedelta(seconds=60)
    assert jwt.get_unverified_header(token.token)["alg"] == "HS256"


def test_valid_token_names_its_customer() -> None:
    assert read_token(issued(), SECRET, store_id=1, now=NOW + timedelta(seconds=3599)) == 7


def test_token_expires_by_the_injected_clock() -> None:
    with pytest.raises(TokenRejected) as caught:
        read_token(issued(), SECRET, store_id=1, now=NOW + timedelta(seconds=3600))
    assert caught.value.code == "token_expired"


def test_tampered_payload_is_rejected() -> None:
    header, _, signature = issued().split(".")
    forged_claims = jwt.encode({"sub": "8", "store": 1, "iat": 0, "exp": 10**10}, "x" * 48)
    forged = f"{header}.{forged_claims.split('.')[1]}.{signature}"
    with pytest.raises(TokenRejected) as caught:
        read_token(forged, SECRET, store_id=1, now=NOW)
    assert caught.value.code == "invalid_token"


def test_token_signed_with_another_secret_is_rejected() -> None:
    with pytest.raises(TokenRejected):
        read_token(issued(), "another" * 8, store_id=1, now=NOW)


def test_unsigned_token_is_rejected() -> None:
    unsigned = jwt.encode({"sub": "7", "store": 1, "iat": 0, "exp": 10**10}, None, algorithm="none")
    with pytest.raises(TokenRejected):
        read_token(unsigned, SECRET, store_id=1, now=NOW)


def test_token_of_another_store_is_rejected() -> None:
    with pytest.raises(TokenRejected, match="not valid for this store"):
        read_token(issued(), SECRET, store_id=2, now=NOW)


def test_token_without_required_claims_is_rejected() -> None:
    partial = jwt.encode({"sub": "7", "store": 1}, SECRET, algorithm="HS256")
    with pytest.raises(TokenRejected):
        read_token(partial, SECRET, store_id=1, now=NOW)
