"""A coupon's last use under concurrent orders: ten checkouts keep GIAM10 with one use left and
ten orders are placed at once. Every request is held at a barrier once it has priced its order
(the coupon read and judged valid) and before it writes, so all ten race for the one use on
every run, on SQLite and on PostgreSQL. Asserted as invariants: ``used_count`` never above
``usage_limit``, no discounted order and no order naming the code without its usage row."""

from __future__ import annotations

import threading
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import select, update

from companion.clock import ManualClock
from companion.commerce import ordering
from companion.db.commerce_schema import coupon_usages, coupons, orders
from companion.payments.ipn_sender import HttpIpnSender
from companion.settings import CompanionSettings
from tests.companion.commerce.conftest import Store, Template, cheap_hasher
from tests.companion.commerce.test_concurrent_orders import place_all
from tests.companion.databases import fresh_database

pytestmark = pytest.mark.anyio

BUYERS = 10
#: Seconds the barrier waits for every request: past it the requests fail, the test with them.
BARRIER_WAIT = 30


@pytest.fixture
async def store(template: Template, tmp_path: Path, clock: ManualClock) -> AsyncIterator[Store]:
    """The commerce store, admitting all ``BUYERS`` requests at once (the default admits 4:
    the others would wait outside while the barrier waits for them)."""
    from companion.app import create_app

    with fresh_database(tmp_path, template=template.database) as database:
        settings = CompanionSettings(
            database=database,
            rate_per_minute=10**6,
            rate_per_hour=10**6,
            migrate=False,
            admission_limit=BUYERS,
        )
        app = create_app(settings, clock=clock)
        app.state.password_hasher = cheap_hasher()
        app.state.ipn_sender = HttpIpnSender(httpx.ASGITransport(app=app))
        engine = app.state.services.engine
        client = httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://test")
        yield Store(app, client, clock, engine, template.key, template.store_id, template.goods)
        await client.aclose()
        engine.dispose()


@contextmanager
def priced_together(monkeypatch: pytest.MonkeyPatch, parties: int) -> Iterator[None]:
    """Each order waits, once priced and before its first write, until all are priced."""
    barrier = threading.Barrier(parties, timeout=BARRIER_WAIT)
    totals = ordering.order_totals

    def waiting(*args: Any, **kwargs: Any) -> Any:
        barrier.wait()
        return totals(*args, **kwargs)

    with monkeypatch.context() as patched:
        patched.setattr(ordering, "order_totals", waiting)
        yield


def one_use_left(store: Store, code: str) -> None:
    with store.engine.begin() as conn:
        conn.execute(
            update(coupons)
            .where(coupons.c.store_id == store.store_id, coupons.c.code == code)
            .values(usage_limit=5, used_count=4)
        )


def assert_invariants(store: Store, code: str) -> None:
    with store.engine.connect() as conn:
        coupon = conn.execute(select(coupons).where(coupons.c.code == code)).one()
        used_by = set(
            conn.execute(
                select(coupon_usages.c.order_id).where(coupon_usages.c.coupon_code == code)
            ).scalars()
        )
        placed = conn.execute(
            select(orders.c.id, orders.c.coupon_code, orders.c.discount_amount)
        ).all()
    assert coupon.used_count <= coupon.usage_limit
    assert coupon.used_count - 4 == len(used_by)
    discounted = {o.id for o in placed if o.discount_amount > 0}
    naming = {o.id for o in placed if o.coupon_code == code}
    assert discounted <= used_by, "a discounted order without its coupon's usage row"
    assert naming <= used_by, "an order names the coupon without its usage row"


@pytest.mark.parametrize("order_discounts", [True, False], ids=["extension", "spec"])
async def test_the_last_use_of_a_coupon_goes_to_one_of_ten_concurrent_orders(
    store: Store, monkeypatch: pytest.MonkeyPatch, order_discounts: bool
) -> None:
    store.app.state.order_discounts = order_discounts
    one_use_left(store, "GIAM10")
    tokens = [await store.cart((store.goods.jeans_v, 1)) for _ in range(BUYERS)]
    for token in tokens:
        kept = await store.ok(
            "POST", "/checkout", params={"cart_token": token}, json={"coupon_code": "GIAM10"}
        )
        assert kept["coupon_code"] == "GIAM10"
    quote = await store.ok(
        "GET", "/cart/quote", params={"token": tokens[0], "coupon_code": "GIAM10"}
    )
    assert quote["coupon"]["valid"]

    with priced_together(monkeypatch, BUYERS):
        responses = await place_all(store, tokens)

    assert_invariants(store, "GIAM10")
    statuses = sorted(r.status_code for r in responses)
    if order_discounts:
        # The one use priced into every order: the winner's order carries it, the others are
        # refused before anything is charged (a quote again shows the coupon used up).
        assert statuses == [201] + [409] * (BUYERS - 1), [r.text for r in responses]
        refused = [r.json() for r in responses if r.status_code == 409]
        assert {p["code"] for p in refused} == {"coupon_used_up"}
        [won] = [r.json() for r in responses if r.status_code == 201]
        assert int(won["discount_amount"]) > 0
    else:
        # As the spec says, the coupon is not priced into orders: all ten are placed at the
        # same price and the one use is counted for one of them.
        assert statuses == [201] * BUYERS, [r.text for r in responses]
        assert {r.json()["total"] for r in responses} == {"500000"}
    with store.engine.connect() as conn:
        assert (
            conn.execute(select(coupons.c.used_count).where(coupons.c.code == "GIAM10")).scalar()
            == 5
        )


async def test_a_refused_order_can_be_placed_again_without_the_used_up_coupon(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The loser's cart is left as it was: its next attempt prices the coupon as used up and
    places the order at the price its quote now shows."""
    one_use_left(store, "GIAM10")
    tokens = [await store.cart((store.goods.jeans_v, 1)) for _ in range(2)]
    for token in tokens:
        await store.ok(
            "POST", "/checkout", params={"cart_token": token}, json={"coupon_code": "GIAM10"}
        )
    with priced_together(monkeypatch, 2):
        responses = await place_all(store, tokens)
    [lost] = [r.request.url.params["cart_token"] for r in responses if r.status_code == 409]
    quote = await store.ok("GET", "/cart/quote", params={"token": lost, "coupon_code": "GIAM10"})
    assert quote["coupon"]["reason"] == "usage_limit_reached"
    order = await store.place(lost)
    assert order["total"] == quote["total"] and order["discount_amount"] == "0"
    assert_invariants(store, "GIAM10")


async def test_one_cart_placed_twice_at_once_with_the_last_use_answers_its_one_order(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The second request finds the use taken by the first, which placed the cart's order:
    it answers that order, as for any repeated place-order of a cart."""
    one_use_left(store, "GIAM10")
    token = await store.cart((store.goods.jeans_v, 1))
    await store.ok(
        "POST", "/checkout", params={"cart_token": token}, json={"coupon_code": "GIAM10"}
    )
    with priced_together(monkeypatch, 2):
        responses = await place_all(store, [token, token])
    assert sorted(r.status_code for r in responses) == [200, 201], [r.text for r in responses]
    assert len({r.json()["id"] for r in responses}) == 1
    assert_invariants(store, "GIAM10")
