"""Two companion apps on one database and one clock, one serving kept answers at the front
door, the other with it switched off: what the front door's tests ask both."""

from __future__ import annotations

import socket
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, replace
from typing import Any

import httpx
import pytest
from sqlalchemy import Connection, select

from companion.app import create_app
from companion.clock import ManualClock
from companion.db.schema import api_keys
from companion.front_door import CompanionApp, FrontDoor
from companion.keys.material import hash_key
from companion.settings import CompanionSettings
from tests.companion.conftest import PREFIX, Api, MakeApi

REQUEST_ID = {"X-Request-Id": "same-request-id"}


@dataclass
class Side:
    app: CompanionApp
    client: httpx.AsyncClient
    key: str

    async def get(self, endpoint: str, **headers: str) -> httpx.Response:
        sent = {"X-Service-Key": self.key, **REQUEST_ID, **headers}
        return await self.client.get(PREFIX + endpoint, headers=sent)

    def door(self) -> FrontDoor:
        door = self.app.front_door
        assert door is not None, "the app has no front door"
        return door


@dataclass
class Pair:
    front: Side  # kept answers served at the front door
    chain: Side  # every request down the middleware chain
    api: Api
    last_served: bool = False  # the front's last answer came from the front door

    async def settle(self) -> None:
        """Each app, seeing a change by another connection, moves the process's catalogue
        version: let both see the last writes before asking."""
        for side in (self.front, self.chain):
            await side.get("/store")

    async def both(self, endpoint: str, **headers: str) -> tuple[httpx.Response, httpx.Response]:
        """The same request to both; asserts they answered the same bytes."""
        served = self.front.door().served
        a = await self.front.get(endpoint, **headers)
        b = await self.chain.get(endpoint, **headers)
        assert (a.status_code, a.headers.raw, a.content) == (
            b.status_code,
            b.headers.raw,
            b.content,
        ), endpoint
        self.last_served = self.front.door().served > served
        return a, b


MakePair = Callable[..., Awaitable[Pair]]


@asynccontextmanager
async def pairs(
    make_api: MakeApi, settings: CompanionSettings, clock: ManualClock
) -> AsyncIterator[MakePair]:
    """``make_pair``'s body: both apps with the same settings overrides
    (``make_pair(rate_per_minute=3)``), closed after."""
    chains: list[Side] = []

    async def make(**overrides: Any) -> Pair:
        api = await make_api(**overrides)
        assert isinstance(api.app, CompanionApp)
        chain_app = create_app(replace(settings, **overrides), clock=clock)
        assert isinstance(chain_app, CompanionApp)
        chain_app.serve_from_memory = False
        client = httpx.AsyncClient(
            transport=httpx.ASGITransport(app=chain_app), base_url="http://test"
        )
        chain = Side(chain_app, client, api.shop.key("chain"))
        chains.append(chain)
        return Pair(Side(api.app, api.client, api.shop.key("front")), chain, api)

    yield make
    for chain in chains:
        await chain.client.aclose()
        chain.app.state.services.engine.dispose()


async def catalogue(pair: Pair) -> list[str]:
    shop = pair.api.shop
    category = shop.category("Áo", slug="ao")
    pid = shop.product("Áo sơ mi", slug="ao-so-mi", price=250_000, category_id=category)
    shop.product("Quần", slug="quan", price=150_000)
    await pair.settle()
    return [
        "/products?limit=20",
        "/products/by-slug/ao-so-mi",
        f"/products/{pid}",
        f"/products/{pid}/variants",
        "/categories",
        "/store",
    ]


def wire(sock: socket.socket, endpoint: str, key: str) -> bytes:
    """The raw answer to one GET, its Date header taken out (the second it was sent)."""
    port = sock.getsockname()[1]
    with socket.create_connection(("127.0.0.1", port), timeout=10) as conn:
        conn.sendall(
            f"GET {PREFIX}{endpoint} HTTP/1.1\r\nHost: shop.test\r\nX-Service-Key: {key}\r\n"
            f"X-Request-Id: wire\r\nConnection: close\r\n\r\n".encode()
        )
        raw = b""
        while chunk := conn.recv(65536):
            raw += chunk
    head, _, body = raw.partition(b"\r\n\r\n")
    lines = [line for line in head.split(b"\r\n") if not line.lower().startswith(b"date:")]
    return b"\r\n".join(lines) + b"\r\n\r\n" + body


def cache_hits(side: Side) -> int:
    return side.door().cache.hits


def skip_unless_notified(pair: Pair) -> None:
    if pair.api.app.state.services.engine.dialect.name == "sqlite":
        pytest.skip("SQLite's change feed takes any write, a lease's too, for a catalogue change")


def key_of(side: Side) -> int:
    with side.app.state.services.engine.connect() as conn:
        return key_id_of(conn, side.key)


def key_id_of(conn: Connection, key: str) -> int:
    query = select(api_keys.c.id).where(api_keys.c.key_hash == hash_key(key))
    return int(conn.execute(query).scalar_one())
