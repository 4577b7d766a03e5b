"""add_routes: a router's routes copied into another, flat, with the same OpenAPI document as
include_router gives, and the same answers."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
from fastapi import APIRouter, Depends, FastAPI, Header
from fastapi.routing import APIRoute
from pydantic import BaseModel

from companion.app import create_app
from companion.routes.merge import add_routes
from companion.settings import CompanionSettings

pytestmark = pytest.mark.anyio


class Item(BaseModel):
    id: int
    name: str


def needs_header(x_token: str = Header()) -> None:
    """A router-level dependency: the merged routes must still require it."""


def build(merge: bool) -> FastAPI:
    leaf = APIRouter(tags=["items"])

    @leaf.get("/items/{item_id}", summary="One item", responses={404: {"description": "No"}})
    def item(item_id: int) -> Item:
        return Item(id=item_id, name="Áo")

    @leaf.post("/items", status_code=201)
    def create(body: Item) -> Item:
        return body

    middle = APIRouter(dependencies=[Depends(needs_header)], responses={401: {"description": "?"}})
    app = FastAPI()
    if merge:
        add_routes(middle, leaf, tags=["shop"])
        add_routes(app.router, middle, prefix="/v1")
        add_routes(app.router, middle, prefix="/alias", include_in_schema=False)
    else:
        middle.include_router(leaf, tags=["shop"])
        app.include_router(middle, prefix="/v1")
        app.include_router(middle, prefix="/alias", include_in_schema=False)
    return app


def test_the_openapi_document_is_the_same_as_with_include_router() -> None:
    assert build(merge=True).openapi() == build(merge=False).openapi()


async def test_merged_routes_answer_like_included_ones() -> None:
    for merge in (True, False):
        transport = httpx.ASGITransport(app=build(merge))
        async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
            found = await client.get("/alias/items/3", headers={"x-token": "t"})
            assert found.json() == {"id": 3, "name": "Áo"}
            assert (await client.get("/v1/items/3")).status_code == 422  # the header is required
            made = await client.post(
                "/v1/items", json={"id": 1, "name": "x"}, headers={"x-token": "t"}
            )
            assert made.status_code == 201


def test_the_companion_routes_form_one_flat_list(tmp_path: Path) -> None:
    app = create_app(CompanionSettings(database=f"{tmp_path}/flat.db"))
    api_routes = [r for r in app.router.routes if isinstance(r, APIRoute)]
    assert len(api_routes) > 100
    assert all(type(r).__name__ in ("APIRoute", "Route") for r in app.router.routes)
    app.state.services.engine.dispose()
