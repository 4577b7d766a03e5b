"""Every promise the demo store shows is kept when the shopper orders what it describes.

The promises are read from the data the pages show (GET /promotions, the running banners'
titles, the flash sales' prices), not from the seed's constants: a text that says "from
500.000 ₫" is checked against an order of exactly 500.000 ₫ and one just under it; "mua 2 giảm
15%" against the categories it names; "giảm đến 50%" against the page its banner leads to.
The orders are placed on the real companion (in process) holding the seeded demo store.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import AsyncIterator, Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import httpx
import pytest
from sqlalchemy import Engine, and_, or_, select

from companion.app import create_app
from companion.clock import ManualClock
from companion.db import schema as t
from companion.seed.demo import DEMO_KEY, seed_demo
from companion.settings import CompanionSettings
from tests.companion.commerce.conftest import ADDRESS
from tests.companion.conftest import PREFIX

pytestmark = pytest.mark.anyio

FREE_SHIPPING = re.compile(r"Miễn phí vận chuyển(?:.*? cho đơn từ ([\d.]+) ₫)?")
UP_TO = re.compile(r"giảm đến (\d+)%")
BUY_N = re.compile(r"^(?P<names>.+?): mua (?P<count>\d+) giảm (?P<percent>\d+)%")


@dataclass(frozen=True)
class Unit:
    variant_id: int
    price: int
    category: str


@dataclass
class Demo:
    client: httpx.AsyncClient
    engine: Engine
    clock: ManualClock

    async def ok(self, method: str, path: str, status: int = 200, **kwargs: Any) -> Any:
        response = await self.client.request(
            method, PREFIX + path, headers={"X-Service-Key": DEMO_KEY}, **kwargs
        )
        assert response.status_code == status, response.text
        return response.json()

    async def order(self, units: Iterable[Unit], shipping: str = "standard") -> tuple[Any, Any]:
        """The quote of a cart of ``units`` with ``shipping`` chosen, and the order placed."""
        counts: dict[int, int] = {}
        for unit in units:
            counts[unit.variant_id] = counts.get(unit.variant_id, 0) + 1
        items = [{"variant_id": v, "quantity": q} for v, q in counts.items()]
        token = (await self.ok("PUT", "/cart/items", json={"items": items}))["token"]
        checkout = await self.ok("POST", "/checkout", params={"cart_token": token}, json={})
        await self.ok(
            "PUT",
            f"/checkout/{checkout['checkout_id']}/shipping",
            json={"shipping_method": shipping},
        )
        quote = await self.ok("GET", "/cart/quote", params={"token": token})
        order = await self.ok(
            "POST",
            "/checkout/place-order",
            status=201,
            params={"cart_token": token},
            json={"address": ADDRESS, "payment": {"payment_method": "cod"}},
        )
        assert int(order["total"]) == int(quote["total"])
        return quote, order

    def units(self) -> list[Unit]:
        """Variants a shopper can buy at their regular price (none in a flash sale), cheapest
        first, each with its product's category."""
        v, p, c = t.variants, t.products, t.categories
        in_sale = select(t.flash_sale_products.c.product_id)
        query = (
            select(v.c.id, v.c.price, c.c.name)
            .join(p, p.c.id == v.c.product_id)
            .join(c, c.c.id == p.c.category_id)
            .where(
                p.c.status == "published",
                v.c.on_sale.is_(True),
                v.c.price.is_not(None),
                or_(v.c.stock.is_(None), v.c.stock > 5),
                and_(p.c.id.not_in(in_sale)),
            )
            .order_by(v.c.price, v.c.id)
        )
        with self.engine.connect() as conn:
            return [Unit(r.id, int(r.price), r.name) for r in conn.execute(query)]


@pytest.fixture
async def demo(settings: CompanionSettings, clock: ManualClock) -> AsyncIterator[Demo]:
    app = create_app(settings, clock=clock)
    engine = app.state.services.engine
    seed_demo(engine, products=120, now=clock.now())
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app), base_url="http://test"
    ) as client:
        yield Demo(client, engine, clock)
    engine.dispose()


async def _promises(demo: Demo) -> list[str]:
    return [p["text"] for p in (await demo.ok("GET", "/promotions"))["items"]]


def _vnd(text: str) -> int:
    return int(text.replace(".", ""))


def _cart_of(units: list[Unit], total: int) -> list[Unit]:
    """Two or three units (of different variants) whose prices add up to exactly ``total``."""
    for size in (2, 3):
        for combo in itertools.combinations(units, size):
            if sum(u.price for u in combo) == total:
                return list(combo)
    raise AssertionError(f"no cart of exactly {total} VND in the demo")


async def _shown(demo: Demo) -> list[tuple[str, str | None]]:
    """What the home page promises: the text promotions and the running banners' titles, each
    with its link."""
    shown = [(p["text"], p["link_url"]) for p in (await demo.ok("GET", "/promotions"))["items"]]
    for location in ("home_hero", "home_middle"):
        answer = await demo.ok("GET", "/banners", params={"location_code": location})
        shown += [(b["title"], b["link_url"]) for b in answer["items"]]
    return shown


async def test_free_shipping_starts_where_each_promise_says(demo: Demo) -> None:
    found = [m for text, _ in await _shown(demo) if (m := FREE_SHIPPING.search(text))]
    assert len(found) >= 2, "the demo promises free shipping (a promotion and a banner)"
    units = demo.units()
    for promise in found:
        # A promise without a threshold says free from the first đồng.
        threshold = _vnd(promise.group(1)) if promise.group(1) else units[0].price
        cart = [units[0]] if not promise.group(1) else _cart_of(units, threshold)
        quote, order = await demo.order(cart)
        assert int(quote["subtotal"]) == threshold
        assert int(order["shipping_total"]) == 0, f"{promise.group(0)!r}: {threshold} pays it"
        off = sum(int(d["amount"]) for d in quote["discount_lines"])
        assert int(order["total"]) == threshold - off
        if promise.group(1):
            under = max((u for u in units if u.price < threshold), key=lambda u: u.price)
            _, below = await demo.order([under])
            assert int(below["shipping_total"]) > 0, "and not below it"


async def _largest_saving(demo: Demo, link: str) -> float:
    """The largest saving a card shows on the collection page ``link`` leads to: its price now
    against the higher price struck through."""
    target = await demo.ok("GET", "/routes/resolve", params={"path": link})
    assert target["type"] == "collection"
    savings: list[float] = []
    cursor = None
    while True:
        params = {"collection": str(target["id"]), "limit": 100}
        answer = await demo.ok(
            "GET", "/products", params=params | ({"cursor": cursor} if cursor else {})
        )
        for card in answer["items"]:
            now = card["effective_price"] or card["price"]
            if now:
                was = max(int(p) for p in (card["compare_at_price"], card["price"], now) if p)
                savings.append(1 - int(now) / was)
        if not (cursor := answer.get("next_cursor")):
            return max(savings)


async def test_a_saving_up_to_a_percent_is_found_where_the_banner_leads(demo: Demo) -> None:
    found = [(m, link) for text, link in await _shown(demo) if (m := UP_TO.search(text))]
    assert found, "the demo promises savings up to a percent"
    # The flash sales end; a banner without an end promises as much after them.
    sales = (await demo.ok("GET", "/flash-sales"))["items"]
    after = max(datetime.fromisoformat(s["ends_at"]) for s in sales) + timedelta(days=1)
    for moment in (demo.clock.now(), after.replace(tzinfo=None)):
        demo.clock.set(moment)
        for promise, link in found:
            assert link, promise.group(0)
            largest = await _largest_saving(demo, link)
            assert largest * 100 >= int(promise.group(1)), (promise.group(0), moment, largest)


def _named(names: str, category: str) -> bool:
    """ "Áo & quần" names the categories whose name starts with "Áo" or "Quần"."""
    words = [w.strip().lower() for w in names.split("&")]
    return any(category.lower().startswith(w) for w in words)


async def test_buy_n_get_a_percent_off_the_goods_it_names(demo: Demo) -> None:
    found = [m for text in await _promises(demo) if (m := BUY_N.search(text))]
    assert found, "the demo promises a discount for buying several"
    promise = found[0]
    count, percent = int(promise["count"]), int(promise["percent"])
    units = [u for u in demo.units() if u.price < 400_000]
    named = [u for u in units if _named(promise["names"], u.category)]
    other = [u for u in units if not _named(promise["names"], u.category)]
    assert named and other
    # The cart: three of one pair of jeans and a shirt ("3 jeans and a shirt").
    jeans = next(u for u in named if u.category.lower().startswith("quần"))
    shirt = next(u for u in named if u.category.lower().startswith("áo"))
    bought = [jeans, jeans, jeans, shirt, other[0]]
    quote, order = await demo.order(bought)
    off = sum(int(d["amount"]) for d in quote["discount_lines"])
    expected = sum(u.price for u in bought if u in (jeans, shirt)) * percent // 100
    assert abs(off - expected) <= 1, (quote, expected)
    goods = sum(u.price for u in bought)
    assert int(order["total"]) == goods - off + int(order["shipping_total"])
    # One named item is not enough, and goods it does not name do not count towards it.
    single, _ = await demo.order([named[0], *other[:count]])
    assert single["discount_lines"] == []


async def test_a_flash_sale_charges_the_price_it_shows(demo: Demo) -> None:
    sale = (await demo.ok("GET", "/flash-sales"))["items"][0]
    cards = (await demo.ok("GET", f"/flash-sales/{sale['id']}/products"))["items"]
    card = next(c for c in cards if c["in_stock"] and c["effective_price"] != c["price"])
    variants = (await demo.ok("GET", f"/products/{card['id']}/variants"))["items"]
    variant = next(v for v in variants if v["in_stock"])
    quote, order = await demo.order([Unit(variant["id"], 0, "")], shipping="express")
    assert int(quote["subtotal"]) == int(variant["effective_price"]) < int(variant["price"])
    if int(variant["price"]) == int(card["price"]):
        assert int(quote["subtotal"]) == int(card["effective_price"])
    assert int(order["total"]) == int(quote["total"])
