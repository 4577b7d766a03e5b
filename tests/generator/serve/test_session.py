"""The same-origin session endpoints of `storefront serve`, over the real companion.

``embedded_stack`` (what the command serves) on a small demo store in a SQLite file, driven
through httpx.ASGITransport with the cookies a browser would keep.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest

from generator.serve.stack import embedded_stack
from session_service.session import forwarded, forwarded_segments

ORIGIN = "http://shop.test"
SAME_ORIGIN = {"Origin": ORIGIN}
ACCOUNT = {"email": "lan@example.vn", "password": "mat-khau-dai", "full_name": "Lan"}


def _stack(tmp_path: Path, *, rate_per_minute: int | None = None) -> httpx.AsyncClient:
    out = tmp_path / "out"
    out.mkdir(exist_ok=True)
    (out / "index.html").write_text("<!doctype html><title>home</title>", encoding="utf-8")
    app = embedded_stack(
        out,
        database=str(tmp_path / "companion.sqlite3"),
        public_url=ORIGIN,
        seed_products=12,
        rate_per_minute=rate_per_minute,
    )
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url=ORIGIN)


@pytest.fixture
async def browser(tmp_path: Path) -> AsyncIterator[httpx.AsyncClient]:
    async with _stack(tmp_path) as client:
        yield client


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def _register(browser: httpx.AsyncClient) -> httpx.Response:
    return await browser.post("/session/register", json=ACCOUNT, headers=SAME_ORIGIN)


async def _variant_ids(browser: httpx.AsyncClient) -> list[int]:
    products = (await browser.get("/session/api/products", params={"limit": 12})).json()["items"]
    ids = []
    for product in products:
        variants = (await browser.get(f"/session/api/products/{product['id']}/variants")).json()
        ids += [v["id"] for v in variants["items"] if v["in_stock"] and v["price"] is not None]
    return ids


@pytest.mark.anyio
async def test_login_keeps_the_token_in_an_httponly_cookie_and_never_in_the_body(
    browser: httpx.AsyncClient,
) -> None:
    assert (await _register(browser)).status_code == 201
    browser.cookies.clear()
    answer = await browser.post(
        "/session/login",
        json={"email": ACCOUNT["email"], "password": ACCOUNT["password"]},
        headers=SAME_ORIGIN,
    )
    assert answer.status_code == 200
    assert answer.json()["customer"]["email"] == ACCOUNT["email"]
    assert "token" not in answer.text
    cookie = next(h for h in answer.headers.get_list("set-cookie") if "service_customer=" in h)
    assert "HttpOnly" in cookie and "SameSite=Lax" in cookie and "Path=/" in cookie
    me = await browser.get("/session/api/customer/me")
    assert me.status_code == 200 and me.json()["email"] == ACCOUNT["email"]


@pytest.mark.anyio
async def test_guest_cart_is_merged_into_the_customer_cart_at_login(
    browser: httpx.AsyncClient,
) -> None:
    variant = (await _variant_ids(browser))[0]
    cart = await browser.put(
        "/session/api/cart/items",
        json={"items": [{"variant_id": variant, "quantity": 2}]},
        headers=SAME_ORIGIN,
    )
    assert cart.status_code == 200
    browser.cookies.set("service_cart", cart.json()["token"], domain="shop.test")
    answer = await _register(browser)
    kept = next(h for h in answer.headers.get_list("set-cookie") if "service_cart=" in h)
    assert "HttpOnly" not in kept
    token = browser.cookies["service_cart"]
    merged = await browser.get("/session/api/cart", params={"token": token})
    assert merged.json()["item_count"] == 2


@pytest.mark.anyio
async def test_cross_origin_write_is_refused(browser: httpx.AsyncClient) -> None:
    answer = await browser.post(
        "/session/login", json={"email": "x@example.vn", "password": "x"},
        headers={"Origin": "https://evil.example"},
    )  # fmt: skip
    assert answer.status_code == 403
    assert answer.json()["code"] == "cross_origin"
    missing = await browser.put("/session/api/cart/items", json={"items": []})
    assert missing.status_code == 403


@pytest.mark.anyio
async def test_form_encoded_write_is_refused(browser: httpx.AsyncClient) -> None:
    answer = await browser.post(
        "/session/login", data={"email": "x@example.vn", "password": "x"}, headers=SAME_ORIGIN
    )
    assert answer.status_code == 415
    assert answer.json()["code"] == "json_required"


@pytest.mark.anyio
async def test_customer_login_is_not_forwarded_so_no_script_sees_a_token(
    browser: httpx.AsyncClient,
) -> None:
    await _register(browser)
    answer = await browser.post(
        "/session/api/customer/login",
        json={"email": ACCOUNT["email"], "password": ACCOUNT["password"]},
        headers=SAME_ORIGIN,
    )
    assert answer.status_code == 404
    assert "eyJ" not in answer.text


@pytest.mark.anyio
async def test_guest_is_null_not_an_error_and_logout_clears_both_cookies(
    browser: httpx.AsyncClient,
) -> None:
    assert (await browser.get("/session/me")).json() == {"customer": None}
    await _register(browser)
    assert (await browser.get("/session/me")).json()["customer"]["full_name"] == "Lan"
    out = await browser.post("/session/logout", json={}, headers=SAME_ORIGIN)
    assert out.status_code == 204
    cleared = out.headers.get_list("set-cookie")
    assert any(c.startswith("service_customer=") and "Max-Age=0" in c for c in cleared)
    assert any(c.startswith("service_cart=") and "Max-Age=0" in c for c in cleared)
    assert (await browser.get("/session/me")).json() == {"customer": None}
    assert (await browser.get("/session/api/customer/me")).status_code == 401


@pytest.mark.anyio
async def test_forged_token_is_cleared_from_the_cookie(browser: httpx.AsyncClient) -> None:
    browser.cookies.set("service_customer", "forged.token.value", domain="shop.test")
    answer = await browser.get("/session/api/customer/orders")
    assert answer.status_code == 401
    assert any(
        c.startswith("service_customer=") and "Max-Age=0" in c
        for c in answer.headers.get_list("set-cookie")
    )


@pytest.mark.anyio
async def test_paths_outside_the_api_are_not_forwarded(browser: httpx.AsyncClient) -> None:
    for path in ("/session/api/%2e%2e/%2e%2e/sandbox/vnpay/pay", "/session/api/a\\b"):
        answer = await browser.get(path)
        assert answer.status_code == 404, path
        assert answer.json()["code"] == "not_found", path


@pytest.mark.anyio
async def test_rate_limit_answer_reaches_the_browser_with_retry_after(tmp_path: Path) -> None:
    async with _stack(tmp_path, rate_per_minute=1) as browser:
        first = await browser.get("/session/api/store")
        second = await browser.get("/session/api/store")
    assert first.status_code == 200
    assert second.status_code == 429
    assert int(second.headers["retry-after"]) > 0
    assert second.json()["status"] == 429


@pytest.mark.anyio
async def test_bad_json_is_one_clear_problem_not_a_500(browser: httpx.AsyncClient) -> None:
    answer = await browser.post(
        "/session/login",
        content=b"{not json",
        headers={**SAME_ORIGIN, "Content-Type": "application/json"},
    )
    assert answer.status_code == 400
    assert answer.json()["code"] == "invalid_json"


LOGIN_SPELLINGS = (
    "/session/api/customer/%6Cogin",
    "/session/api/customer/log%69n",
    "/session/api/%63ustomer/login",
    "/session/api/customer%2Flogin",
    "/session/api/customer%2flogin",
    "/session/api/customer/login/",
    "/session/api/v1/customer/login",
    "/session/api/customer/%2e/login",
)


@pytest.mark.anyio
@pytest.mark.parametrize("path", LOGIN_SPELLINGS)
async def test_no_spelling_of_the_login_path_is_forwarded(
    browser: httpx.AsyncClient, path: str
) -> None:
    await _register(browser)
    credentials = {"email": ACCOUNT["email"], "password": ACCOUNT["password"]}
    answer = await browser.post(path, json=credentials, headers=SAME_ORIGIN)
    assert answer.status_code == 404, answer.text
    assert "eyJ" not in answer.text and "token" not in answer.text


@pytest.mark.anyio
async def test_only_the_paths_the_islands_use_are_forwarded(browser: httpx.AsyncClient) -> None:
    for path in ("/session/api/customer/register", "/session/api/admin", "/session/api/x/y"):
        answer = await browser.post(path, json={}, headers=SAME_ORIGIN)
        assert answer.status_code == 404, path
        assert answer.json()["code"] in ("not_found", "use_session_login"), path


@pytest.mark.anyio
async def test_a_deeply_nested_body_is_a_400_problem(browser: httpx.AsyncClient) -> None:
    body = b"[" * 100_000 + b"]" * 100_000
    answer = await browser.post(
        "/session/login",
        content=body,
        headers={**SAME_ORIGIN, "Content-Type": "application/json"},
    )
    assert answer.status_code == 400
    assert answer.headers["content-type"].startswith("application/problem+json")


@pytest.mark.anyio
async def test_a_write_from_another_scheme_is_refused(browser: httpx.AsyncClient) -> None:
    answer = await browser.post(
        "/session/logout",
        json={},
        headers={"Origin": SAME_ORIGIN["Origin"].replace("http:", "https:")},
    )
    assert answer.status_code == 403
    assert answer.json()["code"] == "cross_origin"


@pytest.mark.anyio
async def test_every_answer_of_serve_says_nosniff(browser: httpx.AsyncClient) -> None:
    for path in ("/", "/no-such-page", "/session/me", "/session/api/store", "/public/v1/store"):
        answer = await browser.get(path)
        assert answer.headers.get("x-content-type-options") == "nosniff", path


ISLANDS = Path(__file__).resolve().parents[3] / "site-templates" / "islands"
#: A path an island asks the API for: api('/a/b?...'), send('/a', body), beacon(`/a/${id}/b`, ...).
_ASKED = re.compile(r"\b(?:api|send|beacon)\((['`])(/[^'`?]*)")


def test_every_api_path_the_islands_ask_for_is_forwarded() -> None:
    asked = set()
    for source in ISLANDS.glob("*.js"):
        for line in source.read_text(encoding="utf-8").splitlines():
            if "base: SESSION" in line:  # the session's own endpoints, not the forwarder
                continue
            for _, path in _ASKED.findall(line):
                asked.add(re.sub(r"\$\{[^}]*\}", "1", path).rstrip("/") or "/")
    assert len(asked) > 15, asked  # the scan finds the islands' calls
    refused = [p for p in sorted(asked) if not _forwardable(p)]
    assert refused == []


def _forwardable(path: str) -> bool:
    segments = forwarded_segments(path)
    return segments is not None and forwarded(segments)
