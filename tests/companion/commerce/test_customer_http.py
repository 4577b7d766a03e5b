"""Customer accounts over HTTP: register, login (JWT), profile, password, throttling, and the
token checks on customer endpoints (expired by the injected clock, tampered, absent)."""

from __future__ import annotations

import jwt as pyjwt
import pytest
from sqlalchemy import select

from companion.db.commerce_schema import customers, store_secrets
from tests.companion.commerce.conftest import PASSWORD, Store

pytestmark = pytest.mark.anyio

LOGIN = {"email": "lan@example.vn", "password": PASSWORD}


async def register(store: Store, **body: object) -> dict[str, object]:
    payload = {"email": "lan@example.vn", "password": PASSWORD, "full_name": "Lan", **body}
    created: dict[str, object] = await store.ok(
        "POST", "/customer/register", status=201, json=payload
    )
    return created


async def test_register_stores_an_argon2id_hash_never_the_password(store: Store) -> None:
    created = await register(store, email="  Lan@Example.VN ", phone="0901 234 567")
    assert created["email"] == "lan@example.vn" and created["points_balance"] == 0
    assert set(created) == {"id", "email", "full_name", "phone", "points_balance", "created_at"}
    with store.engine.connect() as conn:
        stored = conn.execute(select(customers.c.password_hash)).scalar_one()
    assert stored.startswith("$argon2id$") and PASSWORD not in stored


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"email": "no-at-sign"}, "email"),
        ({"password": "short"}, "password"),
        ({"password": "x" * 257}, "password"),
        ({"full_name": " "}, "full_name"),
        ({"phone": "call me"}, "phone"),
    ],
)
async def test_bad_registration_is_422_naming_the_field(
    store: Store, body: dict[str, object], field: str
) -> None:
    payload = {"email": "a@example.vn", "password": PASSWORD, "full_name": "A", **body}
    response = await store.call("POST", "/customer/register", json=payload)
    assert response.status_code == 422 and response.json()["errors"][0]["field"] == field


async def test_email_registers_once_per_store(store: Store) -> None:
    await register(store)
    again = await store.call(
        "POST",
        "/customer/register",
        json={"email": "LAN@example.vn", "password": PASSWORD, "full_name": "X"},
    )
    assert again.status_code == 409 and again.json()["code"] == "email_taken"


async def test_login_yields_a_jwt_with_a_documented_lifetime(store: Store) -> None:
    created = await register(store)
    body = await store.ok("POST", "/customer/login", json=LOGIN)
    assert body["token_type"] == "bearer" and body["expires_in"] == 7 * 24 * 3600
    assert body["customer"]["id"] == created["id"]
    claims = pyjwt.decode(body["token"], options={"verify_signature": False})
    assert set(claims) == {"sub", "store", "iat", "exp"}
    assert claims["exp"] - claims["iat"] == 7 * 24 * 3600
    with store.engine.connect() as conn:
        assert conn.execute(select(store_secrets.c.name)).scalars().all() == ["customer_jwt"]
    me = await store.ok("GET", "/customer/me", jwt=body["token"])
    assert me["id"] == created["id"]


async def test_wrong_password_and_unknown_email_answer_alike(store: Store) -> None:
    await register(store)
    wrong = await store.call(
        "POST", "/customer/login", json={**LOGIN, "password": "not the password"}
    )
    unknown = await store.call("POST", "/customer/login", json={**LOGIN, "email": "ai@example.vn"})
    assert wrong.status_code == unknown.status_code == 401
    assert wrong.json()["detail"] == unknown.json()["detail"] == "wrong e-mail or password"


async def test_repeated_failures_are_throttled(store: Store) -> None:
    await register(store)
    bad = {**LOGIN, "password": "not the password"}
    for _ in range(5):
        assert (await store.call("POST", "/customer/login", json=bad)).status_code == 401
    locked = await store.call("POST", "/customer/login", json=LOGIN)
    assert locked.status_code == 429
    assert locked.headers["Retry-After"] == "900" and locked.json()["retry_after"] == 900
    store.clock.advance(900)
    assert (await store.call("POST", "/customer/login", json=LOGIN)).status_code == 200


async def test_success_clears_earlier_failures(store: Store) -> None:
    await register(store)
    bad = {**LOGIN, "password": "not the password"}
    for _ in range(4):
        await store.call("POST", "/customer/login", json=bad)
    await store.ok("POST", "/customer/login", json=LOGIN)
    for _ in range(4):
        assert (await store.call("POST", "/customer/login", json=bad)).status_code == 401


async def test_expired_token_is_refused_by_the_injected_clock(store: Store) -> None:
    token = await store.customer()
    store.clock.advance(7 * 24 * 3600 - 1)
    assert (await store.call("GET", "/customer/me", jwt=token)).status_code == 200
    store.clock.advance(1)
    expired = await store.call("GET", "/customer/me", jwt=token)
    assert expired.status_code == 401 and expired.json()["code"] == "token_expired"
    assert expired.headers["WWW-Authenticate"] == "Bearer"


async def test_tampered_token_is_refused(store: Store) -> None:
    token = await store.customer()
    header, payload, signature = token.split(".")
    flipped = signature[:-2] + ("AA" if signature[-2:] != "AA" else "BB")
    for forged in (f"{header}.{payload}.{flipped}", f"{header}.{payload}", "garbage"):
        response = await store.call("GET", "/customer/me", jwt=forged)
        assert response.status_code == 401 and response.json()["code"] == "invalid_token"


async def test_token_forged_with_another_secret_is_refused(store: Store) -> None:
    token = await store.customer()
    claims = pyjwt.decode(token, options={"verify_signature": False})
    forged = pyjwt.encode(claims, "an attacker's secret of a decent length!!", algorithm="HS256")
    assert (await store.call("GET", "/customer/me", jwt=forged)).status_code == 401


async def test_customer_endpoints_need_the_token(store: Store) -> None:
    for path in ("/customer/me", "/customer/addresses", "/customer/me/points"):
        response = await store.call("GET", path)
        assert response.status_code == 401 and response.json()["code"] == "login_required"


async def test_profile_update(store: Store) -> None:
    token = await store.customer()
    me = await store.ok(
        "PATCH", "/customer/me", json={"full_name": "Trần Lan", "phone": "0987654321"}, jwt=token
    )
    assert (me["full_name"], me["phone"], me["email"]) == (
        "Trần Lan",
        "0987654321",
        "lan@example.vn",
    )
    kept = await store.ok("PATCH", "/customer/me", json={}, jwt=token)
    assert kept["full_name"] == "Trần Lan"
    cleared = await store.ok("PATCH", "/customer/me", json={"phone": None}, jwt=token)
    assert cleared["phone"] is None
    refused = await store.call("PATCH", "/customer/me", json={"full_name": None}, jwt=token)
    assert refused.status_code == 422 and refused.json()["errors"][0]["field"] == "full_name"


async def test_password_change(store: Store) -> None:
    token = await store.customer()
    wrong = await store.call(
        "POST",
        "/customer/me/password",
        json={"current_password": "nope-nope", "new_password": "mat-khau-moi-123"},
        jwt=token,
    )
    assert wrong.status_code == 422 and wrong.json()["errors"][0]["field"] == "current_password"
    done = await store.call(
        "POST",
        "/customer/me/password",
        json={"current_password": PASSWORD, "new_password": "mat-khau-moi-123"},
        jwt=token,
    )
    assert done.status_code == 204
    old = await store.call("POST", "/customer/login", json=LOGIN)
    assert old.status_code == 401
    await store.ok("POST", "/customer/login", json={**LOGIN, "password": "mat-khau-moi-123"})


async def test_points_list_is_empty_for_a_new_customer(store: Store) -> None:
    token = await store.customer()
    body = await store.ok("GET", "/customer/me/points", jwt=token)
    assert body == {"items": [], "next_cursor": None, "has_more": False}
