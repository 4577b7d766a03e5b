"""Fetching GET /sitemap and each section's paths: over the real companion, and over a
scripted transport for the shapes and answers the companion does not produce."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest

from companion.app import create_app
from companion.seed.demo import seed_demo
from companion.seed.store_rows import DEMO_KEY
from companion.settings import CompanionSettings
from generator.audit.api_sections import ApiSection, fetch_api_sections
from generator.client import ManualTimer
from generator.client.api import ApiClient
from generator.errors import ApiPayloadError

pytestmark = pytest.mark.anyio

BASE = "http://api.test/public/v1/"


async def test_sections_of_the_demo_companion_match_a_direct_walk(tmp_path: Path) -> None:
    app = create_app(CompanionSettings(database=str(tmp_path / "companion.db")))
    engine = app.state.services.engine
    try:
        seed_demo(engine, products=12)
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url=BASE) as http:
            sections = await fetch_api_sections(ApiClient(http, key=DEMO_KEY))
            headers = {"X-Service-Key": DEMO_KEY}
            counts = (await http.get("sitemap", headers=headers)).json()["sections"]
            direct = {}
            for section in counts:
                paths: list[str] = []
                params: dict[str, str] = {"limit": "5"}
                while True:
                    page = (
                        await http.get(f"sitemap/{section['name']}", params=params, headers=headers)
                    ).json()
                    paths += [item["path"] for item in page["items"]]
                    if not page["has_more"]:
                        break
                    params["cursor"] = page["next_cursor"]
                direct[section["name"]] = paths
    finally:
        engine.dispose()
    assert [s.name for s in sections] == [c["name"] for c in counts]
    assert {s.name: s.declared for s in sections} == {c["name"]: c["count"] for c in counts}
    assert {s.name: list(s.paths) for s in sections} == direct
    assert sum(len(s.paths) for s in sections) > 0


def _scripted(pages: dict[str, list[httpx.Response]]) -> httpx.MockTransport:
    """Answer each path with its responses in turn (the last one repeats)."""
    calls: dict[str, int] = {}

    def handler(request: httpx.Request) -> httpx.Response:
        key = request.url.path.removeprefix("/public/v1")
        if request.url.params.get("cursor"):
            key += "?cursor=" + request.url.params["cursor"]
        answers = pages[key]
        index = calls.get(key, 0)
        calls[key] = index + 1
        return answers[min(index, len(answers) - 1)]

    return httpx.MockTransport(handler)


def _json(data: object, status: int = 200, **headers: str) -> httpx.Response:
    return httpx.Response(
        status,
        content=json.dumps(data).encode(),
        headers={"Content-Type": "application/json", **headers},
    )


async def test_cursor_pages_and_bare_string_items_are_read() -> None:
    transport = _scripted(
        {
            "/sitemap": [_json({"sections": [{"name": "products", "count": 4}]})],
            "/sitemap/products": [
                _json(
                    {
                        "items": [{"path": "/a", "updated_at": None}, "/b"],
                        "next_cursor": "2026-01-01T00:00:00|7",
                        "has_more": True,
                    }
                )
            ],
            "/sitemap/products?cursor=2026-01-01T00:00:00|7": [
                _json(
                    {
                        "items": [{"path": "/c"}, {"path": None}],
                        "next_cursor": None,
                        "has_more": False,
                    }
                )
            ],
        }
    )
    async with httpx.AsyncClient(transport=transport, base_url=BASE) as http:
        sections = await fetch_api_sections(ApiClient(http, key="pk_live_x"))
    assert sections == (ApiSection("products", 4, ("/a", "/b", "/c")),)


async def test_rate_limit_is_waited_out_then_retried() -> None:
    problem = {
        "type": "about:blank",
        "title": "Too Many Requests",
        "status": 429,
        "detail": "slow down",
        "code": "rate_limited",
        "retry_after": 7,
    }
    transport = _scripted(
        {
            "/sitemap": [
                _json(problem, 429, **{"Retry-After": "7"}),
                _json({"sections": [{"name": "pages", "count": 0}]}),
            ],
            "/sitemap/pages": [_json({"items": [], "next_cursor": None, "has_more": False})],
        }
    )
    timer = ManualTimer()
    async with httpx.AsyncClient(transport=transport, base_url=BASE) as http:
        sections = await fetch_api_sections(ApiClient(http, key="pk_live_x", timer=timer))
    assert sections == (ApiSection("pages", 0, ()),)
    assert 7 in [round(s) for s in timer.slept]


async def test_unexpected_sitemap_body_is_a_payload_error() -> None:
    transport = _scripted({"/sitemap": [_json([{"name": "products"}])]})
    async with httpx.AsyncClient(transport=transport, base_url=BASE) as http:
        with pytest.raises(ApiPayloadError, match="sections"):
            await fetch_api_sections(ApiClient(http, key="pk_live_x"))
