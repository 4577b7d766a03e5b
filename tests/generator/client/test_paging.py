"""Cursor walks: opaque cursors sent back verbatim, the envelope checked, loops refused."""

from __future__ import annotations

import httpx
import pytest

from generator.client import ManualTimer, parse_page
from generator.client.api import ApiClient
from generator.errors import ApiPayloadError
from tests.support.fakeapi import KEY, FakeApi, Quirks, small_store

pytestmark = pytest.mark.anyio


def api_client(fake: FakeApi) -> ApiClient:
    return ApiClient(fake.client(), key=KEY, timer=fake.timer)


async def test_tricky_cursors_arrive_verbatim_and_every_item_is_read() -> None:
    fake = FakeApi(small_store(products=10), Quirks(tricky_cursors=True, max_limit=3))
    items = [item async for item in api_client(fake).items("/products", {"limit": 100})]
    assert [item["id"] for item in items if isinstance(item, dict)] == list(range(1, 11))
    sent = [entry.params.get("cursor") for entry in fake.requests_to("/products")]
    assert sent == [
        None,
        "2026-11-20 03:04:05+07:00|3:a b",
        "2026-11-20 03:04:05+07:00|6:a b",
        "2026-11-20 03:04:05+07:00|9:a b",
    ]
    assert all(entry.status == 200 for entry in fake.log)


async def test_cursor_is_url_encoded_on_the_wire() -> None:
    seen: list[bytes] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request.url.raw_path)
        more = b"cursor" not in request.url.raw_path
        return httpx.Response(
            200, json={"items": [1], "next_cursor": "a|b:c+d e" if more else None, "has_more": more}
        )

    http = httpx.AsyncClient(transport=httpx.MockTransport(handler), base_url="http://t/public/v1")
    pages = [page async for page in ApiClient(http, key="k", timer=ManualTimer()).pages("/x")]
    assert len(pages) == 2
    assert seen[1] == b"/public/v1/x?cursor=a%7Cb%3Ac%2Bd+e"


async def test_repeated_cursor_stops_with_a_payload_error() -> None:
    fake = FakeApi(small_store(products=10), Quirks(max_limit=3, repeat_cursor={"/products"}))
    with pytest.raises(ApiPayloadError, match=r"^GET /products\?.*repeats an earlier cursor"):
        _ = [item async for item in api_client(fake).items("/products", {"limit": 3})]
    assert len(fake.requests_to("/products")) == 2


async def test_walk_stops_when_has_more_is_false_even_with_a_cursor() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, json={"items": [1, 2], "next_cursor": "x", "has_more": False})

    http = httpx.AsyncClient(transport=httpx.MockTransport(handler), base_url="http://t/public/v1")
    items = [i async for i in ApiClient(http, key="k", timer=ManualTimer()).items("/x")]
    assert items == [1, 2]


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (
            {"next_cursor": None, "has_more": False},
            "the list envelope.s items is null, not an array",
        ),
        ({"items": {}, "has_more": False}, "the list envelope.s items is an object, not an array"),
        ({"items": [], "next_cursor": 5.5, "has_more": True}, "next_cursor is a number"),
        ({"items": [], "next_cursor": None, "has_more": "no"}, "has_more is a string"),
        ("text", "expected a list envelope"),
    ],
)
def test_a_wrongly_shaped_envelope_names_the_endpoint_and_the_problem(
    body: object, message: str
) -> None:
    with pytest.raises(ApiPayloadError, match=f"^GET /products: {message}"):
        parse_page(body, endpoint="GET /products")


def test_missing_has_more_follows_the_cursor_and_a_bare_array_is_one_page() -> None:
    page = parse_page({"items": [1], "next_cursor": "c"}, endpoint="e")
    assert (page.has_more, page.next_cursor) == (True, "c")
    bare = parse_page([1, 2], endpoint="e")
    assert (bare.items, bare.has_more) == ((1, 2), False)
