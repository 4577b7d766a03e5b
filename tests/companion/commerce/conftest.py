"""A small store with a catalogue of known prices and the demo's commerce data, served by the
real companion app over httpx.ASGITransport on a real SQLite file (or PostgreSQL database) per
test.

``store.call("PUT", "/cart/items", json=...)`` goes to /public/v1 with the store's key; pass
``jwt=`` for customer calls. The sandbox gateway's IPN reaches the same app in-process.

The store is not the demo store: its gateway has its own merchant code and hash secret, and the
sandbox serves it because ``store`` asks for it by name (``opened_store`` without it does not).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, replace
from datetime import timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from argon2 import PasswordHasher
from fastapi import FastAPI
from sqlalchemy import Engine, select, update

from companion.clock import ManualClock
from companion.db.schema import variants
from companion.payments.ipn_sender import HttpIpnSender
from companion.seed.commerce import seed_commerce
from companion.settings import CompanionSettings
from tests.companion.conftest import PREFIX, START
from tests.companion.databases import fresh_database
from tests.companion.factory import Shop

ADDRESS = {
    "full_name": "Nguyễn Thị Lan",
    "phone": "0901234567",
    "email": "lan@example.vn",
    "city": "Thành phố Hồ Chí Minh",
    "province": "Quận 1",
    "ward": "Phường Sài Gòn",
    "street": "88 Lê Lợi",
}
PASSWORD = "mat-khau-du-dai"
#: The store's own sandbox gateway credentials (the demo's are for the demo store alone).
MERCHANT_CODE = "CUAHANGMAU"
HASH_SECRET = "cua-hang-mau-hash-secret-for-tests"
#: The store's site, where a payment sends the shopper back.
SITE = "https://shop.example"


@dataclass(frozen=True)
class Catalogue:
    """Ids of the store's goods; prices in VND."""

    shirt: int  # Áo thun, 200,000; variants shirt_m (stock 10), shirt_l (stock 1)
    shirt_m: int
    shirt_l: int
    jeans: int  # Quần jean, 500,000; variant untracked stock
    jeans_v: int
    dress: int  # Váy, 1,000,000, in a running 20% flash sale (800,000); stock 5
    dress_v: int
    scarf_v: int  # a product without a price: cannot be bought
    draft_v: int  # a variant of an unpublished product
    category: int
    brand: int
    article: int
    page: int
    banner: int


@dataclass
class Store:
    app: FastAPI
    client: httpx.AsyncClient
    clock: ManualClock
    engine: Engine
    key: str
    store_id: int
    goods: Catalogue

    async def call(
        self,
        method: str,
        path: str,
        *,
        jwt: str | None = None,
        headers: dict[str, str] | None = None,
        prefix: str = PREFIX,
        **kwargs: Any,
    ) -> httpx.Response:
        sent = {"X-Service-Key": self.key, **(headers or {})}
        if jwt is not None:
            sent["Authorization"] = f"Bearer {jwt}"
        return await self.client.request(method, prefix + path, headers=sent, **kwargs)

    async def ok(self, method: str, path: str, status: int = 200, **kwargs: Any) -> Any:
        response = await self.call(method, path, **kwargs)
        assert response.status_code == status, response.text
        return response.json() if response.content else None

    async def cart(self, *items: tuple[int, int], jwt: str | None = None) -> str:
        """A new cart holding ``(variant_id, quantity)`` items; its token."""
        body = {"items": [{"variant_id": v, "quantity": q} for v, q in items]}
        cart = await self.ok("PUT", "/cart/items", json=body, jwt=jwt)
        token: str = cart["token"]
        return token

    async def place(
        self,
        token: str,
        *,
        payment_method: str = "cod",
        jwt: str | None = None,
        expect: int = 201,
        **extra: Any,
    ) -> Any:
        body = {"address": ADDRESS, "payment": {"payment_method": payment_method, **extra}}
        return await self.ok(
            "POST",
            "/checkout/place-order",
            status=expect,
            params={"cart_token": token},
            json=body,
            jwt=jwt,
        )

    async def customer(self, email: str = "lan@example.vn", name: str = "Nguyễn Thị Lan") -> str:
        """Register and log in; the customer JWT."""
        await self.ok(
            "POST",
            "/customer/register",
            status=201,
            json={"email": email, "password": PASSWORD, "full_name": name},
        )
        login = await self.ok(
            "POST", "/customer/login", json={"email": email, "password": PASSWORD}
        )
        token: str = login["token"]
        return token

    def stock(self, variant_id: int) -> int | None:
        with self.engine.connect() as conn:
            value: int | None = conn.execute(
                select(variants.c.stock).where(variants.c.id == variant_id)
            ).scalar_one()
        return value

    def set_stock(self, variant_id: int, stock: int | None) -> None:
        with self.engine.begin() as conn:
            conn.execute(update(variants).where(variants.c.id == variant_id).values(stock=stock))


def stock_catalogue(shop: Shop) -> Catalogue:
    now = shop.now
    category = shop.category("Áo")
    brand = shop.brand("Việt Tiến")
    shirt = shop.product("Áo thun cổ tròn", price=200_000, category_id=category, brand_id=brand)
    shirt_m = shop.variant(shirt, "M", stock=10)
    shirt_l = shop.variant(shirt, "L", stock=1)
    jeans = shop.product("Quần jean ống đứng", price=500_000, category_id=category)
    jeans_v = shop.variant(jeans, "30", stock=None)
    dress = shop.product("Váy hoa nhí", price=1_000_000)
    dress_v = shop.variant(dress, "S", stock=5)
    sale = shop.flash_sale(now - timedelta(hours=1), now + timedelta(hours=5), 20)
    shop.put_on_sale(sale, dress)
    scarf = shop.product("Khăn lụa", price=None)
    scarf_v = shop.variant(scarf, "Một cỡ", stock=3)
    draft = shop.product("Áo nháp", price=90_000, status="draft")
    draft_v = shop.variant(draft, "M", stock=3)
    return Catalogue(
        shirt=shirt,
        shirt_m=shirt_m,
        shirt_l=shirt_l,
        jeans=jeans,
        jeans_v=jeans_v,
        dress=dress,
        dress_v=dress_v,
        scarf_v=scarf_v,
        draft_v=draft_v,
        category=category,
        brand=brand,
        article=shop.article("Cách phối áo thun mùa hè", excerpt="Mẹo nhỏ"),
        page=shop.page("Chính sách đổi trả"),
        banner=shop.banner("Sale hè"),
    )


def cheap_hasher() -> PasswordHasher:
    """argon2id still, with test-sized cost: registering and logging in take milliseconds."""
    return PasswordHasher(time_cost=1, memory_cost=8, parallelism=1)


@dataclass(frozen=True)
class Template:
    """A database holding the store, built once per test session and copied per test.

    ``database`` is a SQLite file, or a PostgreSQL URL when the suite runs on PostgreSQL (see
    ``tests.companion.databases``); ``fresh_database(folder, template=...)`` copies it.
    """

    database: str
    key: str
    store_id: int
    goods: Catalogue


@pytest.fixture(scope="session")
def template(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Template]:
    from companion.app import create_app

    with fresh_database(tmp_path_factory.mktemp("commerce")) as database:
        app = create_app(CompanionSettings(database=database), clock=ManualClock(START))
        engine = app.state.services.engine
        shop = Shop(engine, START)
        goods = stock_catalogue(shop)
        with engine.begin() as conn:
            seed_commerce(
                conn,
                store_id=shop.store_id,
                now=START,
                merchant_code=MERCHANT_CODE,
                hash_secret=HASH_SECRET,
            )
        key = shop.key()
        engine.dispose()  # the last connection closing checkpoints the WAL into the file
        yield Template(database, key, shop.store_id, goods)


@asynccontextmanager
async def opened_store(
    template: Template, folder: Path, clock: ManualClock, **overrides: Any
) -> AsyncIterator[Store]:
    """A copy of the template's store served by an app of the given settings ``overrides``."""
    from companion.app import create_app

    with fresh_database(folder, template=template.database) as database:
        settings = CompanionSettings(
            database=database, rate_per_minute=10**6, rate_per_hour=10**6, migrate=False
        )
        app = create_app(replace(settings, **overrides), clock=clock)
        app.state.password_hasher = cheap_hasher()
        app.state.ipn_sender = HttpIpnSender(httpx.ASGITransport(app=app))
        engine = app.state.services.engine
        client = httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://test")
        try:
            yield Store(app, client, clock, engine, template.key, template.store_id, template.goods)
        finally:
            await client.aclose()
            engine.dispose()


@pytest.fixture
async def store(template: Template, tmp_path: Path, clock: ManualClock) -> AsyncIterator[Store]:
    async with opened_store(
        template, tmp_path, clock, sandbox_payments=True, site_origins=(SITE,)
    ) as opened:
        yield opened
