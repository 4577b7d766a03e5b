"""Read routes in one thread hop: the connection opened in the route's own thread call, with the
same parameters, validation and OpenAPI document as the plain route."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Annotated

import httpx
import pytest
from fastapi import APIRouter, FastAPI, Query
from sqlalchemy import Connection, event, text
from starlette.responses import JSONResponse

from companion.clock import SystemClock
from companion.db.engine import make_engine
from companion.deps import ReadDb, Services
from companion.ratelimit.memory import InMemoryRateLimiter
from companion.routes.merge import add_routes
from companion.routes.read.one_hop import in_one_thread
from companion.settings import CompanionSettings

pytestmark = pytest.mark.anyio


def build(folder: Path, *, one_hop: bool) -> tuple[FastAPI, list[int]]:
    """An app with one read route; also the threads its connections were checked out in."""
    engine = make_engine(str(folder / "one.db"))
    checked_out: list[int] = []
    event.listen(engine, "checkout", lambda *_: checked_out.append(threading.get_ident()))
    leaf = APIRouter()

    @leaf.get("/echo/{n}", summary="Echo")
    def echo(n: int, db: ReadDb, limit: Annotated[int, Query(ge=1, le=5)] = 2) -> JSONResponse:
        # A plain JSON answer, as the catalogue's routes give: no response model to validate.
        assert isinstance(db, Connection)
        n_read = db.execute(text("SELECT :n"), {"n": n}).scalar()
        return JSONResponse({"n": n_read, "limit": limit, "thread": threading.get_ident()})

    app = FastAPI()
    app.state.services = Services(
        settings=CompanionSettings(),
        engine=engine,
        clock=SystemClock(),
        limiter=InMemoryRateLimiter(SystemClock(), ()),
    )
    if one_hop:
        add_routes(app.router, leaf, endpoint_of=in_one_thread)
    else:
        add_routes(app.router, leaf)
    return app, checked_out


async def test_one_thread_call_per_request_instead_of_three(
    tmp_path: Path, thread_calls: list[str]
) -> None:
    calls = thread_calls
    for one_hop, hops in ((True, 1), (False, 3)):
        app, checked_out = build(tmp_path, one_hop=one_hop)
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
            calls.clear()
            answer = (await client.get("/echo/7", params={"limit": 3})).json()
            assert answer["n"] == 7 and answer["limit"] == 3
            assert len(calls) == hops, calls
            assert answer["thread"] == checked_out[-1]
            refused = await client.get("/echo/7", params={"limit": 9})
            assert refused.status_code == 422


def test_the_openapi_document_does_not_change(tmp_path: Path) -> None:
    assert build(tmp_path, one_hop=True)[0].openapi() == build(tmp_path, one_hop=False)[0].openapi()


def test_routes_without_a_read_connection_are_left_as_they_are() -> None:
    def plain(n: int) -> int:
        return n

    async def asynchronous(db: ReadDb) -> None:
        return None

    assert in_one_thread(plain) is plain
    assert in_one_thread(asynchronous) is asynchronous
