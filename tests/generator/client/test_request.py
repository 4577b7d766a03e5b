"""The single request: headers sent, JSON and ETag returned, bad answers mapped to our errors."""

from __future__ import annotations

import httpx
import pytest

from generator.client.request import send_get
from generator.errors import ApiPayloadError, ApiStatusError, ApiUnreachable, RateLimited

pytestmark = pytest.mark.anyio

BASE = "http://api.test/public/v1"


def client_for(handler: httpx.MockTransport) -> httpx.AsyncClient:
    return httpx.AsyncClient(transport=handler, base_url=BASE)


def answer(response: httpx.Response) -> httpx.MockTransport:
    return httpx.MockTransport(lambda request: response)


async def test_sends_key_under_the_api_base_and_returns_json_and_etag() -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json={"name": "Shop"}, headers={"ETag": '"v1"'})

    async with client_for(httpx.MockTransport(handler)) as http:
        response = await send_get(http, "/store", key="pk_live_x", headers={"If-None-Match": "a"})
    assert seen[0].url.path == "/public/v1/store"
    assert seen[0].headers["X-Service-Key"] == "pk_live_x"
    assert seen[0].headers["If-None-Match"] == "a"
    assert (response.data, response.etag, response.not_modified) == (
        {"name": "Shop"},
        '"v1"',
        False,
    )


async def test_not_modified_answer_has_no_body() -> None:
    async with client_for(answer(httpx.Response(304, headers={"ETag": '"v1"'}))) as http:
        response = await send_get(http, "/store", key="k", headers={"If-None-Match": '"v1"'})
    assert response.not_modified and response.data is None and response.etag == '"v1"'


async def test_problem_json_detail_and_code_name_the_endpoint() -> None:
    problem = {"status": 404, "code": "not_found", "detail": "product 3 was not found"}
    async with client_for(answer(httpx.Response(404, json=problem))) as http:
        with pytest.raises(ApiStatusError) as caught:
            await send_get(http, "/products/3", key="k", params={"x": "1"})
    assert caught.value.status == 404
    assert str(caught.value) == (
        "GET /products/3?x=1: HTTP 404: not_found: product 3 was not found"
    )


async def test_error_without_json_uses_the_reason_phrase() -> None:
    async with client_for(answer(httpx.Response(502, text="<html>bad gateway</html>"))) as http:
        with pytest.raises(ApiStatusError, match=r"GET /store: HTTP 502: Bad Gateway$"):
            await send_get(http, "/store", key="k")


@pytest.mark.parametrize(
    ("response", "seconds"),
    [
        (httpx.Response(429, headers={"Retry-After": "7"}, json={"retry_after": 99}), 7.0),
        (httpx.Response(429, json={"retry_after": 12}), 12.0),
        (httpx.Response(429, text="slow down"), 60.0),
        (
            httpx.Response(
                429,
                headers={
                    "Retry-After": "Fri, 20 Nov 2026 03:04:35 GMT",
                    "Date": "Fri, 20 Nov 2026 03:04:05 GMT",
                },
            ),
            30.0,
        ),
        (httpx.Response(429, headers={"Retry-After": "soon"}, json={"retry_after": "4"}), 4.0),
    ],
)
async def test_rate_limited_carries_retry_after(response: httpx.Response, seconds: float) -> None:
    async with client_for(answer(response)) as http:
        with pytest.raises(RateLimited) as caught:
            await send_get(http, "/products", key="k")
    assert (caught.value.status, caught.value.retry_after) == (429, seconds)
    assert caught.value.endpoint == "GET /products"


async def test_success_that_is_not_json_is_a_payload_error() -> None:
    page = httpx.Response(200, text="<html>hi</html>", headers={"Content-Type": "text/html"})
    async with client_for(answer(page)) as http:
        with pytest.raises(
            ApiPayloadError, match=r"^GET /menus: the answer is not JSON \(text/html"
        ):
            await send_get(http, "/menus", key="k")


@pytest.mark.parametrize(
    "failure",
    [httpx.ConnectError("refused"), httpx.ReadTimeout("slow")],
    ids=["connect", "timeout"],
)
async def test_transport_failure_is_unreachable(failure: Exception) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        raise failure

    async with client_for(httpx.MockTransport(handler)) as http:
        with pytest.raises(ApiUnreachable, match=r"^GET /store: ") as raised:
            await send_get(http, "/store", key="k")
    # The endpoint is a path: the message names the host that did not answer.
    assert http.base_url.netloc.decode() in str(raised.value)


async def test_no_key_sends_no_key_header() -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json={})

    async with client_for(httpx.MockTransport(handler)) as http:
        await send_get(http, "/store", key="")
    assert "X-Service-Key" not in seen[0].headers
