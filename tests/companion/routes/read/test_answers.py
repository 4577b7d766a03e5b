"""The read routes send exactly what their response models make: the same fields, in the same
order, as the same bytes (entity tags and kept answers depend on them)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from pydantic import BaseModel

from companion.schemas.envelope import Envelope
from companion.schemas.read import Category, ProductCard, ProductDetail, Store
from tests.companion.conftest import Api

pytestmark = pytest.mark.anyio


def assert_model_bytes(model: type[BaseModel], raw: bytes) -> None:
    assert model.model_validate_json(raw).model_dump_json().encode() == raw


@pytest.fixture
def catalogue(api: Api) -> dict[str, Any]:
    shop = api.shop
    brand = shop.brand("Việt Tiến")
    category = shop.category("Áo")
    now = api.clock.now()
    sale = shop.flash_sale(now - timedelta(hours=1), now + timedelta(hours=1), 15)
    shirt = shop.product("Áo sơ mi “Hè”", slug="ao-so-mi", brand_id=brand, category_id=category)
    shop.put_on_sale(sale, shirt)
    shop.variant(shirt, "M", stock=0)
    shop.image(shirt, "/1.jpg", "Mặt trước")
    shop.product("Quần", slug="quan", price=None, url="")
    shop.category("Áo thun", parent_id=category, url="")
    return {"shirt": shirt, "category": category}


async def test_list_card_detail_and_store_answers_match_their_models(
    api: Api, catalogue: dict[str, Any]
) -> None:
    answers: list[tuple[type[BaseModel], str]] = [
        (Envelope[ProductCard], "/products"),
        (Envelope[ProductCard], "/products?sort=price_desc&limit=1"),
        (ProductDetail, "/products/by-slug/ao-so-mi"),
        (ProductDetail, "/products/by-slug/quan"),
        (ProductDetail, f"/products/{catalogue['shirt']}"),
        (Store, "/store"),
        (Envelope[Category], "/categories"),
        (Envelope[Category], f"/categories?parent={catalogue['category']}"),
    ]
    for model, endpoint in answers:
        path, _, query = endpoint.partition("?")
        params = dict(part.split("=") for part in query.split("&") if part)
        response = await api.get(path, **params)
        assert response.status_code == 200, response.text
        assert response.headers["content-type"] == "application/json"
        assert_model_bytes(model, response.content)
    detail = (await api.get("/products/by-slug/ao-so-mi")).json()
    assert detail["in_stock"] is False and detail["brand"]["name"] == "Việt Tiến"
    assert detail["effective_price"] < detail["price"]
    children = (await api.get("/categories", parent=str(catalogue["category"]))).json()
    assert [c["name"] for c in children["items"]] == ["Áo thun"]
