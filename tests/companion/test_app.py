"""create_app: independent apps, the OpenAPI document, the docs page."""

from __future__ import annotations

import os
from typing import Any

import pytest

from tests.companion.conftest import PREFIX, Api, MakeApi

pytestmark = pytest.mark.anyio

READ_ENDPOINTS = {
    "/article-categories", "/article-tags", "/articles", "/articles/by-slug/{slug}",
    "/articles/{article_id}/related", "/banners", "/categories", "/categories/by-slug/{slug}",
    "/categories/tree", "/categories/{category_id}", "/categories/{category_id}/breadcrumb",
    "/categories/{category_id}/subcategories", "/collections", "/collections/by-slug/{slug}",
    "/custom-variables", "/filters", "/flash-sales", "/flash-sales/{sale_id}",
    "/flash-sales/{sale_id}/products", "/menus", "/pages/by-slug/{slug}", "/pages/{page_id}",
    "/products", "/products/by-slug/{slug}", "/products/{product_id}",
    "/products/{product_id}/related", "/products/{product_id}/variants", "/promotions",
    "/routes/resolve", "/sitemap", "/sitemap/{section}", "/store",
}  # fmt: skip


async def test_openapi_document_lists_every_read_endpoint(api: Api) -> None:
    doc = (await api.client.get(f"{PREFIX}/openapi.json")).json()
    paths = {p.removeprefix(PREFIX) for p, item in doc["paths"].items() if "get" in item}
    assert READ_ENDPOINTS <= paths
    products = doc["paths"][f"{PREFIX}/products"]["get"]
    params = {p["name"] for p in products["parameters"]}
    assert params == {"limit", "cursor", "category", "collection", "ids", "q", "sort"}
    not_found = products["responses"]["404"]["content"]
    assert list(not_found) == ["application/problem+json"]
    assert doc["components"]["securitySchemes"]["ServiceKey"]["name"] == "X-Service-Key"
    assert "RateLimit-Reset" in doc["info"]["description"]


async def test_docs_page_is_served(api: Api) -> None:
    response = await api.client.get(f"{PREFIX}/docs")
    assert response.status_code == 200
    assert "text/html" in response.headers["content-type"]


async def test_two_apps_share_nothing(make_api: MakeApi) -> None:
    first = await make_api(rate_per_minute=1)
    second = await make_api(rate_per_minute=1)  # same database, its own engine and limiter
    assert first.app.state.services.engine is not second.app.state.services.engine
    assert (await first.get("/store")).status_code == 200
    if first.app.state.services.settings.database.startswith("postgresql"):
        # On PostgreSQL the apps are workers of one deployment: rate limits are counted in the
        # database on purpose (companion.ratelimit.database), so the key's minute is already used.
        assert (await second.get("/store", key=first.key)).status_code == 429
        return
    assert (await second.get("/store", key=first.key)).status_code == 200
    assert (await first.get("/store")).status_code == 429


class _CountedEnviron(dict[str, str]):
    """os.environ that remembers which names were read."""

    read: set[str]

    def __getitem__(self, name: str) -> str:
        self.read.add(name)
        return super().__getitem__(name)

    def get(self, name: str, default: Any = None) -> Any:
        self.read.add(name)
        return super().get(name, default)

    def __contains__(self, name: object) -> bool:
        self.read.add(str(name))
        return super().__contains__(name)


async def test_a_request_reads_no_telemetry_settings(
    api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert (await api.get("/store")).status_code == 200
    environ = _CountedEnviron(os.environ)
    environ.read = set()
    monkeypatch.setattr(os, "environ", environ)
    assert (await api.get("/store")).status_code == 200
    assert not {name for name in environ.read if name.startswith("OTEL")}
