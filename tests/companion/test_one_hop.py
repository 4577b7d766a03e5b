"""The one fast path (companion.routes.one_hop): a plain route, its connection and its customer
check in one thread call, with the same answers, refusals and OpenAPI document as FastAPI's
own handling of the same route."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Annotated

import httpx
import pytest
from fastapi import APIRouter, FastAPI, Query
from sqlalchemy import Connection, event, text

from companion.answer_cache.feeds import feed_for
from companion.clock import SystemClock
from companion.db.engine import make_engine
from companion.deps import Db, ReadDb, Services
from companion.ratelimit.memory import InMemoryRateLimiter
from companion.routes.customer_auth import CustomerId, OptionalCustomerId
from companion.routes.one_hop import OneHopRoute, in_one_hop
from companion.settings import CompanionSettings

pytestmark = pytest.mark.anyio


def build(folder: Path, *, one_hop: bool) -> tuple[FastAPI, list[int]]:
    """An app with one read route; also the threads its connections were checked out in."""
    engine = make_engine(str(folder / "one.db"))
    checked_out: list[int] = []
    event.listen(engine, "checkout", lambda *_: checked_out.append(threading.get_ident()))
    leaf = APIRouter(route_class=OneHopRoute) if one_hop else APIRouter()

    @leaf.get("/echo/{n}", summary="Echo")
    def echo(n: int, db: ReadDb, limit: Annotated[int, Query(le=5)] = 1) -> dict[str, int]:
        assert isinstance(db, Connection)
        db.execute(text("SELECT 1"))
        return {"n": n, "limit": limit, "thread": threading.get_ident()}

    app = FastAPI()
    settings = CompanionSettings(database=str(folder / "one.db"))
    limiter = InMemoryRateLimiter(SystemClock(), ())
    app.state.services = Services(settings, engine, SystemClock(), limiter, feed_for(engine))
    app.include_router(leaf)
    return app, checked_out


async def test_a_read_takes_one_thread_call_instead_of_several(
    tmp_path: Path, thread_calls: list[str]
) -> None:
    calls = thread_calls
    for one_hop in (True, False):
        app, checked_out = build(tmp_path, one_hop=one_hop)
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
            calls.clear()
            answer = (await client.get("/echo/7", params={"limit": 3})).json()
            assert answer["n"] == 7 and answer["limit"] == 3
            assert (len(calls) == 1) is one_hop, calls  # FastAPI alone: open, route, close
            assert answer["thread"] == checked_out[-1]
            refused = await client.get("/echo/7", params={"limit": 9})
            assert refused.status_code == 422


def test_the_openapi_document_does_not_change(tmp_path: Path) -> None:
    assert build(tmp_path, one_hop=True)[0].openapi() == build(tmp_path, one_hop=False)[0].openapi()


def test_routes_it_cannot_serve_in_one_hop_are_left_as_they_are() -> None:
    def plain(n: int) -> int:
        return n

    async def asynchronous(db: Db) -> None:
        return None

    def two_customers(db: Db, a: CustomerId, b: OptionalCustomerId) -> None:
        return None

    def two_connections(db: Db, other: ReadDb) -> None:
        return None

    for endpoint in (plain, asynchronous, two_customers, two_connections):
        assert in_one_hop(endpoint) is endpoint
