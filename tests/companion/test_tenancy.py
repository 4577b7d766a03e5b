"""Which store a request reaches: by key, by Host header, or the only store; 401 otherwise."""

from __future__ import annotations

from typing import cast

import pytest
from sqlalchemy import Engine, update

from companion import tenancy
from companion.db.schema import api_keys
from companion.keys.lifecycle import create_key, list_keys, revoke_key
from companion.keys.material import hash_key
from companion.tenancy import TenancyMiddleware, host_name
from tests.companion.conftest import PREFIX, Api
from tests.companion.factory import Shop

pytestmark = pytest.mark.anyio


def second_shop(api: Api, name: str = "Cửa hàng B") -> Shop:
    return Shop(api.app.state.services.engine, api.clock.now(), name=name)


async def unkeyed(api: Api, host: str) -> tuple[int, dict[str, object]]:
    response = await api.client.get(f"{PREFIX}/store", headers={"Host": host})
    return response.status_code, response.json()


@pytest.mark.parametrize(
    ("header", "host"),
    [
        ("Shop.Example.VN:8001", "shop.example.vn"),
        ("shop.example.vn.", "shop.example.vn"),
        ("[::1]:8001", "[::1]"),
        ("localhost", "localhost"),
    ],
)
def test_host_name_drops_port_and_case(header: str, host: str) -> None:
    assert host_name(header) == host


async def test_each_key_reaches_its_own_store(api: Api) -> None:
    other = second_shop(api)
    other.product("Quần jean")
    api.shop.product("Áo thun")
    mine = await api.ok("/products")
    theirs = (await api.get("/products", key=other.key())).json()
    assert [p["name"] for p in mine["items"]] == ["Áo thun"]
    assert [p["name"] for p in theirs["items"]] == ["Quần jean"]


async def test_unknown_key_is_a_401_problem(api: Api) -> None:
    response = await api.get("/store", key="pk_live_not-a-key")
    assert response.status_code == 401
    assert response.headers["content-type"] == "application/problem+json"
    body = response.json()
    assert body["code"] == "invalid_key"
    assert body["status"] == 401
    assert "X-Service-Key" in body["detail"]


async def test_secret_key_is_not_accepted_as_publishable(api: Api) -> None:
    response = await api.get("/store", key="sk_live_abcdef")
    assert response.status_code == 401
    assert response.json()["code"] == "secret_key_refused"  # the admin API's kind, named


async def test_revoked_key_stops_working_at_once(api: Api) -> None:
    assert (await api.get("/store")).status_code == 200
    key_id = only_key_id(api)
    with api.app.state.services.engine.begin() as conn:
        assert revoke_key(conn, key_id, now=api.clock.now())
    response = await api.get("/store")
    assert response.status_code == 401
    assert response.json()["code"] == "invalid_key"


def only_key_id(api: Api) -> int:
    with api.app.state.services.engine.connect() as conn:
        (key,) = list_keys(conn, api.shop.store_id)
    return key.id


async def test_unkeyed_request_uses_the_store_linked_to_its_host(api: Api) -> None:
    other = second_shop(api, "Cửa hàng Hà Nội")
    other.host("hanoi.example.vn")
    status, body = await unkeyed(api, "HaNoi.example.vn:8443")
    assert status == 200
    assert body["name"] == "Cửa hàng Hà Nội"


async def test_unkeyed_request_from_any_host_reaches_the_only_store(api: Api) -> None:
    status, body = await unkeyed(api, "anything.local:9000")
    assert status == 200
    assert body["name"] == "Cửa hàng Mẫu"


async def test_unkeyed_request_with_unknown_host_and_several_stores_is_401(api: Api) -> None:
    second_shop(api)
    status, body = await unkeyed(api, "unknown.example")
    assert status == 401
    assert body["code"] == "key_required"
    assert "unknown.example" in str(body["detail"])


async def test_openapi_document_needs_no_key(api: Api) -> None:
    second_shop(api)  # no single-store fallback either
    response = await api.client.get(f"{PREFIX}/openapi.json", headers={"Host": "nowhere"})
    assert response.status_code == 200
    assert "/public/v1/products" in response.json()["paths"]


async def test_an_unknown_key_is_looked_up_again_and_works_once_created(api: Api) -> None:
    with api.app.state.services.engine.begin() as conn:
        info, key = create_key(conn, api.shop.store_id, now=api.clock.now(), name="later")
        assert revoke_key(conn, info.id, now=api.clock.now())
    for _ in range(2):  # its digest is kept, its store is not
        assert (await api.get("/store", key=key)).status_code == 401
    with api.app.state.services.engine.begin() as conn:
        conn.execute(update(api_keys).where(api_keys.c.id == info.id).values(revoked_at=None))
    assert (await api.get("/store", key=key)).status_code == 200


def test_key_digests_are_kept_up_to_a_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tenancy, "MAX_DIGESTS", 3)
    middleware = TenancyMiddleware(
        lambda *_: None,  # type: ignore[arg-type,return-value]
        engine=cast(Engine, None),
        prefixes=("/public/",),
        open_paths=(),
    )
    keys = [f"pk_live_{n}" for n in range(5)]
    for key in keys:
        assert middleware.digest(key) == hash_key(key)
        assert len(middleware._digests) <= 3
    assert middleware.digest("sk_live_x") is None
    assert middleware.digest("pk_live_" + "x" * 200) is None
    assert middleware.digest(keys[-1]) == hash_key(keys[-1])
