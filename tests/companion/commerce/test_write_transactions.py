"""Write routes: one thread call each (companion.routes.one_hop), the customer's token checked
with the route's own transaction, refusals that leave nothing written, a route failing after a
write rolled back."""

from __future__ import annotations

import threading

import httpx
import pytest
from fastapi import APIRouter, FastAPI
from sqlalchemy import Connection, event, func, select

from companion.db.commerce_schema import carts
from companion.deps import Db
from companion.errors_http import install_error_handling
from companion.problems import conflict
from tests.companion.commerce.conftest import Store

pytestmark = pytest.mark.anyio


async def test_a_cart_write_and_an_order_take_one_thread_call_each(
    store: Store, thread_calls: list[str]
) -> None:
    hops = thread_calls
    goods = store.goods
    jwt = await store.customer()
    hops.clear()
    token = await store.cart((goods.shirt_m, 2), jwt=jwt)
    assert len(hops) == 1, hops  # companion.routes.one_hop; FastAPI alone: four or more
    hops.clear()
    order = await store.place(token, jwt=jwt)
    assert len(hops) == 1, hops
    assert order["current_status"] == "pending" and store.stock(goods.shirt_m) == 8


async def test_the_customer_is_checked_with_the_routes_own_connection(store: Store) -> None:
    """A wrong or missing token is refused as before; the check and the route share one
    connection, checked out once, in the route's thread."""
    threads: list[int] = []
    event.listen(store.engine, "checkout", lambda *_: threads.append(threading.get_ident()))
    missing = await store.call("GET", "/customer/orders")
    assert missing.status_code == 401 and missing.json()["code"] == "login_required"
    wrong = await store.call("GET", "/customer/orders", jwt="not.a.token")
    assert wrong.status_code == 401 and wrong.json()["code"] == "invalid_token"
    jwt = await store.customer()
    threads.clear()
    await store.cart((store.goods.shirt_m, 1), jwt=jwt)
    assert len(threads) == 1 and threads[0] != threading.get_ident()


async def test_refusals_answer_as_before_and_leave_no_cart(store: Store) -> None:
    goods = store.goods
    with store.engine.connect() as conn:
        before = conn.execute(select(func.count()).select_from(carts)).scalar_one()
    too_many = {"items": [{"variant_id": goods.shirt_l, "quantity": 5}]}
    refused = await store.call("PUT", "/cart/items", json=too_many)
    assert refused.status_code == 422  # refused by the route, in its transaction
    assert refused.json()["errors"][0]["message"] == "only 1 of Áo thun cổ tròn in stock"
    invalid = await store.call("PUT", "/cart/items", json={"items": "none"})
    assert invalid.status_code == 422  # refused by validation, before any transaction
    assert invalid.json()["errors"][0]["field"] == "items"
    with store.engine.connect() as conn:
        assert conn.execute(select(func.count()).select_from(carts)).scalar_one() == before


async def test_a_route_that_fails_after_writing_is_rolled_back(store: Store) -> None:
    router = APIRouter()

    @router.post("/fails")
    def fails(db: Db) -> None:
        db.execute(carts.delete())
        raise conflict("late", "refused after writing")

    @router.post("/thread")
    def thread(db: Db) -> dict[str, int]:
        assert isinstance(db, Connection)
        return {"thread": threading.get_ident()}

    app = FastAPI()
    app.state.services = store.app.state.services
    install_error_handling(app)
    app.include_router(router)
    with store.engine.connect() as conn:
        before = conn.execute(select(func.count()).select_from(carts)).scalar_one()
    await store.cart((store.goods.shirt_m, 1))
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app), base_url="http://t"
    ) as client:
        failed = await client.post("/fails")
        assert failed.status_code == 409 and failed.json()["code"] == "late"
        assert (await client.post("/thread")).json()["thread"] != threading.get_ident()
    with store.engine.connect() as conn:
        assert conn.execute(select(func.count()).select_from(carts)).scalar_one() == before + 1
