"""Webhook signatures as a subscriber checks them."""

from __future__ import annotations

import hashlib
import hmac

from companion.webhooks.signing import sign, verify

SECRET = "whsec_test"
BODY = b'{"id":"evt_1","type":"product.updated"}'


def test_signature_is_hmac_sha256_of_timestamp_dot_body() -> None:
    expected = hmac.new(SECRET.encode(), b"1700000000." + BODY, hashlib.sha256).hexdigest()
    assert sign(SECRET, BODY, timestamp=1_700_000_000) == f"t=1700000000,v1={expected}"


def test_subscriber_accepts_a_fresh_genuine_delivery() -> None:
    header = sign(SECRET, BODY, timestamp=1_700_000_000)
    assert verify(SECRET, BODY, header, now=1_700_000_100)


def test_tampered_body_or_other_secret_is_refused() -> None:
    header = sign(SECRET, BODY, timestamp=1_700_000_000)
    assert not verify(SECRET, BODY.replace(b"updated", b"deleted"), header, now=1_700_000_000)
    assert not verify("whsec_other", BODY, header, now=1_700_000_000)


def test_replayed_old_delivery_is_refused() -> None:
    header = sign(SECRET, BODY, timestamp=1_700_000_000)
    assert not verify(SECRET, BODY, header, now=1_700_000_000 + 301)


def test_malformed_headers_are_refused() -> None:
    for header in ("", "v1=abc", "t=abc,v1=abc", "t=1,t=2,v1=abc", "garbage"):
        assert not verify(SECRET, BODY, header, now=1)
