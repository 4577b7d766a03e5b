"""`storefront session`'s app (``service_app``) in front of the real companion, in process.

The companion on a small demo store in a SQLite file, reached through httpx.ASGITransport; the
shopper's browser is an httpx client on another ASGITransport whose ``client`` address says
where the connection comes from (a shopper, or a configured proxy).
"""

from __future__ import annotations

import gc
import json
import logging
from collections.abc import AsyncIterator
from dataclasses import replace
from pathlib import Path

import anyio
import httpx
import pytest
from argon2 import PasswordHasher
from starlette.types import ASGIApp
from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware

from companion.app import create_app
from companion.seed.demo import DEMO_KEY, seed_demo
from companion.session_mount import with_session
from companion.settings import CompanionSettings
from generator.serve.service import (
    SETTINGS_VARIABLE,
    SessionSettings,
    app_from_env,
    service_app,
    settings_from_env,
    settings_to_env,
)
from tests.support.bodies import CHUNK, FedBody, call, upload_until_answered
from tests.support.loopback import loopback_socket, serving_on

SITE = "https://shop.test"
SERVICE = "http://session.internal:8002"
ACCOUNT = {"email": "mai@example.vn", "password": "mat-khau-dai", "full_name": "Mai"}
PROXY = "10.1.2.3"
ORIGIN = {"Origin": SITE}
SHOPPER = "203.0.113.9"
#: Paths the forwarder never reaches: answers that carry the JWT, what belongs to /session/,
#: and writes the islands never make (a password change).
BLOCKED = ("customer/login", "customer/register", "customer/me/password")


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def companion(tmp_path: Path) -> httpx.ASGITransport:
    app = create_app(CompanionSettings(database=str(tmp_path / "c.sqlite3"), public_url=SITE))
    seed_demo(app.state.services.engine, products=8)
    return httpx.ASGITransport(app=app)


def _service(
    companion: httpx.ASGITransport,
    *,
    origins: tuple[str, ...] = (SITE,),
    proxies: tuple[str, ...] = (),
    peer: str = SHOPPER,
) -> httpx.AsyncClient:
    settings = SessionSettings(
        api_url="http://api.internal/public/v1",
        key=DEMO_KEY,
        allowed_origins=origins,
        trusted_proxies=proxies,
    )
    app = service_app(settings, transport=companion)
    transport = httpx.ASGITransport(app=app, client=(peer, 40000))
    return httpx.AsyncClient(transport=transport, base_url=SERVICE)


@pytest.fixture
async def service(companion: httpx.ASGITransport) -> AsyncIterator[httpx.AsyncClient]:
    async with _service(companion) as client:
        yield client


def spellings(path: str) -> list[str]:
    """Every way to write ``path`` that decodes to it: each character percent-encoded in turn
    (upper and lower case hex), each "/" as %2F and %2f, and the whole path encoded."""
    found = set()
    for n, char in enumerate(path):
        for code in (f"%{ord(char):02X}", f"%{ord(char):02x}"):
            found.add(path[:n] + code + path[n + 1 :])
    found.add("".join(f"%{ord(c):02X}" for c in path))
    found.add(path.replace("/", "%2F"))
    return sorted(found - {path})


@pytest.mark.anyio
@pytest.mark.parametrize("blocked", BLOCKED)
async def test_every_spelling_of_a_blocked_path_is_refused(
    service: httpx.AsyncClient, blocked: str
) -> None:
    assert (
        await service.post("/session/register", json=ACCOUNT, headers={"Origin": SITE})
    ).status_code in (201, 409)
    credentials = {"email": ACCOUNT["email"], "password": ACCOUNT["password"]}
    for spelling in [blocked, *spellings(blocked)]:
        answer = await service.post(
            "/session/api/" + spelling, json=credentials, headers={"Origin": SITE}
        )
        assert answer.status_code == 404, (spelling, answer.text)
        assert "token" not in answer.text and "eyJ" not in answer.text, spelling
    assert len(spellings(blocked)) > len(blocked)  # the spellings were really tried


@pytest.mark.anyio
async def test_a_write_from_an_origin_of_another_scheme_is_refused(
    service: httpx.AsyncClient,
) -> None:
    for origin in (SITE.replace("https:", "http:"), SITE + ":8443", "https://evil.test"):
        answer = await service.post("/session/logout", json={}, headers={"Origin": origin})
        assert answer.status_code == 403, origin
        assert answer.json()["code"] == "cross_origin"
    allowed = await service.post("/session/logout", json={}, headers={"Origin": SITE + ":443"})
    assert allowed.status_code == 204


@pytest.mark.anyio
async def test_a_refused_origin_or_body_type_is_logged_with_its_reason(
    companion: httpx.ASGITransport, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="companion.access")
    caplog.clear()
    app = _limited(companion)
    foreign = {**WRITE, "origin": "https://evil.test"}
    assert (await call(app, "POST", "/session/logout", foreign, FedBody(2))).status == 403
    plain = {**WRITE, "content-type": "text/plain"}
    assert (await call(app, "POST", "/session/logout", plain, FedBody(2))).status == 415
    assert [line["refused"] for line in _refusals(caplog)] == ["cross_origin", "json_required"]


@pytest.mark.anyio
async def test_writes_from_the_allowed_site_get_secure_cookies_behind_a_cdn(
    service: httpx.AsyncClient,
) -> None:
    """A CDN (Netlify, Cloudflare) sends the service its own Host: the allowed origin decides,
    and the https site's cookies are Secure."""
    answer = await service.post("/session/register", json=ACCOUNT, headers={"Origin": SITE})
    assert answer.status_code == 201, answer.text
    cookie = next(c for c in answer.headers.get_list("set-cookie") if "service_customer=" in c)
    assert "Secure" in cookie and "HttpOnly" in cookie
    # The test client talks plain http to the service, so it keeps no Secure cookie: send it
    # back as the shopper's browser (on https) does.
    jwt = cookie.split(";", 1)[0].split("=", 1)[1]
    service.cookies.clear()
    me = await service.get("/session/me", headers={"Cookie": f"service_customer={jwt}"})
    assert me.json()["customer"]["email"] == ACCOUNT["email"]


@pytest.mark.anyio
async def test_writes_behind_a_configured_proxy_succeed_and_forged_headers_do_not(
    companion: httpx.ASGITransport,
) -> None:
    """No allow-list: the origin is the one the request names, X-Forwarded-* from a trusted
    proxy included; the same headers from anyone else are ignored."""
    forwarded = {
        "Origin": SITE,
        "X-Forwarded-Proto": "https",
        "X-Forwarded-Host": "shop.test",
        "X-Forwarded-For": SHOPPER,
    }
    async with _service(companion, origins=(), proxies=("10.0.0.0/8",), peer=PROXY) as proxied:
        answer = await proxied.post("/session/register", json=ACCOUNT, headers=forwarded)
        assert answer.status_code == 201, answer.text
        cookie = next(c for c in answer.headers.get_list("set-cookie") if "service_customer=" in c)
        assert "Secure" in cookie
        cart = await proxied.put("/session/api/cart/items", json={"items": []}, headers=forwarded)
        assert cart.status_code == 200, cart.text
    async with _service(companion, origins=(), proxies=("10.0.0.0/8",), peer=SHOPPER) as direct:
        forged = await direct.post("/session/logout", json={}, headers=forwarded)
        assert forged.status_code == 403
    async with _service(companion, origins=(), proxies=(), peer=PROXY) as untrusted:
        forged = await untrusted.post("/session/logout", json={}, headers=forwarded)
        assert forged.status_code == 403


@pytest.mark.anyio
async def test_health_and_nothing_outside_session(service: httpx.AsyncClient) -> None:
    health = await service.get("/session/health")
    assert health.status_code == 200 and health.json()["status"] == "ok"
    assert set(health.json()) == {"status", "budget"}
    for path in ("/", "/public/v1/store", "/sessionx", "/index.html"):
        answer = await service.get(path)
        assert answer.status_code == 404, path
        assert answer.headers["content-type"].startswith("application/problem+json")
    assert (await service.get("/session/api/store")).status_code == 200


@pytest.mark.anyio
async def test_a_body_over_the_limit_is_refused_before_it_is_read(
    service: httpx.AsyncClient,
) -> None:
    body = b'{"items": [' + b" " * (300 * 1024) + b"]}"
    answer = await service.put(
        "/session/api/cart/items",
        content=body,
        headers={"Origin": SITE, "Content-Type": "application/json"},
    )
    assert answer.status_code == 413
    assert answer.json()["code"] == "body_too_large"


LIMIT = 64 * 1024
HUGE = 200 * 1024 * 1024
WRITE = {"host": "session.internal", "origin": SITE, "content-type": "application/json"}


def _limited(companion: httpx.ASGITransport, **limits: float) -> ASGIApp:
    settings = SessionSettings(
        api_url="http://api.internal/public/v1", key=DEMO_KEY, allowed_origins=(SITE,)
    )
    return service_app(replace(settings, **limits), transport=companion)


def _refusals(caplog: pytest.LogCaptureFixture) -> list[dict[str, object]]:
    lines = [json.loads(r.getMessage()) for r in caplog.records if r.name == "companion.access"]
    return [line for line in lines if "refused" in line]


@pytest.mark.anyio
@pytest.mark.parametrize("path", ["/session/api/cart/items", "/session/login"])
async def test_a_chunked_body_is_refused_as_it_passes_the_limit(
    companion: httpx.ASGITransport, caplog: pytest.LogCaptureFixture, path: str
) -> None:
    caplog.set_level(logging.INFO, logger="companion.access")
    app = _limited(companion, max_body_bytes=LIMIT)
    body = FedBody(HUGE)
    answer = await call(app, "POST", path, {**WRITE, "transfer-encoding": "chunked"}, body)
    assert answer.status == 413 and json.loads(answer.body)["code"] == "body_too_large"
    assert answer.headers["connection"] == "close"
    assert LIMIT < body.pulled <= LIMIT + CHUNK
    [line] = _refusals(caplog)
    assert (line["path"], line["status"], line["refused"]) == (path, 413, "body_too_large")


@pytest.mark.anyio
async def test_a_declared_length_over_the_limit_is_never_read(
    companion: httpx.ASGITransport, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="companion.access")
    app = _limited(companion, max_body_bytes=LIMIT)
    body = FedBody(HUGE)
    headers = {**WRITE, "content-length": str(HUGE)}
    answer = await call(app, "PUT", "/session/api/cart/items", headers, body)
    assert answer.status == 413 and body.pulled == 0
    assert [line["refused"] for line in _refusals(caplog)] == ["body_too_large"]


@pytest.mark.anyio
async def test_a_body_that_stops_coming_is_answered_408(
    companion: httpx.ASGITransport, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="companion.access")
    app = _limited(companion, max_body_bytes=LIMIT, body_timeout=0.5)
    body = FedBody(LIMIT, stall_after=CHUNK)
    headers = {**WRITE, "content-length": str(LIMIT)}
    with anyio.fail_after(10):
        answer = await call(app, "PUT", "/session/api/cart/items", headers, body)
    assert answer.status == 408 and json.loads(answer.body)["code"] == "body_timeout"
    assert [line["refused"] for line in _refusals(caplog)] == ["body_timeout"]


@pytest.mark.anyio
async def test_over_loopback_a_chunked_upload_is_cut_off_at_the_limit(
    companion: httpx.ASGITransport,
) -> None:
    sock, origin = loopback_socket()
    head = (
        "PUT /session/api/cart/items HTTP/1.1\r\nHost: session.internal\r\n"
        f"Origin: {SITE}\r\nContent-Type: application/json\r\n"
        "Transfer-Encoding: chunked\r\n\r\n"
    ).encode()
    app = _limited(companion, max_body_bytes=LIMIT)
    with serving_on(sock, app, what="session service"):
        answered, sent = await anyio.to_thread.run_sync(
            upload_until_answered, sock.getsockname()[1], head, 64 * 1024 * 1024
        )
    assert answered.startswith(b"HTTP/1.1 413 "), answered[:200]
    assert b'"code":"body_too_large"' in answered
    assert sent < 32 * 1024 * 1024  # answered long before the body ended


@pytest.mark.anyio
async def test_every_request_is_logged_as_one_line_without_its_query(
    service: httpx.AsyncClient, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.INFO, logger="companion.access"):
        await service.get("/session/api/cart", params={"token": "secret-cart-token"})
    logged = [r.getMessage() for r in caplog.records if r.name == "companion.access"]
    lines = [line for line in logged if '"path":"/session/' in line]
    assert len(lines) == 1
    assert '"path":"/session/api/cart"' in lines[0] and "secret-cart-token" not in lines[0]


@pytest.mark.anyio
async def test_the_api_server_serves_the_session_on_its_own_origin(tmp_path: Path) -> None:
    settings = CompanionSettings(
        database=str(tmp_path / "api.sqlite3"), public_url="http://api.test", session_key=DEMO_KEY
    )
    api = create_app(settings)
    seed_demo(api.state.services.engine, products=4)
    transport = httpx.ASGITransport(app=with_session(api, settings))
    async with httpx.AsyncClient(transport=transport, base_url="http://api.test") as browser:
        answer = await browser.post(
            "/session/register", json=ACCOUNT, headers={"Origin": "http://api.test"}
        )
        assert answer.status_code == 201, answer.text
        assert (await browser.get("/session/me")).json()["customer"]["full_name"] == "Mai"
        assert (
            await browser.get("/public/v1/store", headers={"X-Service-Key": DEMO_KEY})
        ).is_success


def test_the_limits_reach_the_workers_through_the_environment() -> None:
    settings = SessionSettings(
        api_url="http://api.internal/public/v1",
        key=None,
        allowed_origins=(SITE,),
        max_body_bytes=LIMIT,
        header_timeout=2.0,
        body_timeout=5.5,
    )
    environ = {SETTINGS_VARIABLE: settings_to_env(settings)}
    assert settings_from_env(environ) == settings


def test_a_worker_freezes_its_start_up_heap(monkeypatch: pytest.MonkeyPatch) -> None:
    settings = SessionSettings(api_url="http://api.internal/public/v1", key=None)
    monkeypatch.setenv(SETTINGS_VARIABLE, settings_to_env(settings))
    try:
        app = app_from_env()
        # Out of the collector's full passes: a request never waits while they walk it.
        assert gc.get_freeze_count() > 0
        assert not any(o is app for o in gc.get_objects())
    finally:
        gc.unfreeze()  # this process builds many apps: none of them may stay frozen


@pytest.mark.anyio
async def test_the_service_starts_and_stops_as_a_lifespan_says() -> None:
    # Its request log writes the lines still waiting as it stops (uvicorn's lifespan "on").
    app = service_app(SessionSettings(api_url="http://api.internal/public/v1", key=None))
    asked = [{"type": "lifespan.startup"}, {"type": "lifespan.shutdown"}]
    said: list[str] = []

    async def receive() -> dict[str, str]:
        return asked.pop(0)

    async def send(message: dict[str, str]) -> None:
        said.append(message["type"])

    await app({"type": "lifespan", "asgi": {"version": "3.0"}}, receive, send)
    assert said == ["lifespan.startup.complete", "lifespan.shutdown.complete"]


def as_uvicorn_serves(api: ASGIApp) -> ASGIApp:
    """The API as uvicorn serves it: X-Forwarded-For believed from loopback (its default
    FORWARDED_ALLOW_IPS), where the session service runs beside it."""
    return ProxyHeadersMiddleware(api, trusted_hosts="127.0.0.1")


async def guess_then_log_in(attacker: httpx.AsyncClient, owner: httpx.AsyncClient) -> None:
    """Five wrong passwords from one shopper's address lock that address out, not the owner."""
    wrong = {"email": ACCOUNT["email"], "password": "not her password"}
    right = {"email": ACCOUNT["email"], "password": ACCOUNT["password"]}
    for _ in range(5):
        assert (
            await attacker.post("/session/login", json=wrong, headers=ORIGIN)
        ).status_code == 401
    assert (await attacker.post("/session/login", json=right, headers=ORIGIN)).status_code == 429
    answer = await owner.post("/session/login", json=right, headers=ORIGIN)
    assert answer.status_code == 200, answer.text


@pytest.mark.anyio
async def test_logins_through_the_session_service_are_throttled_by_shopper(
    tmp_path: Path,
) -> None:
    api = create_app(CompanionSettings(database=str(tmp_path / "c.sqlite3"), public_url=SITE))
    seed_demo(api.state.services.engine, products=4)
    api.state.password_hasher = PasswordHasher(time_cost=1, memory_cost=8, parallelism=1)
    companion = httpx.ASGITransport(app=as_uvicorn_serves(api))
    async with (
        _service(companion, peer="203.0.113.66") as attacker,
        _service(companion, peer=SHOPPER) as owner,
    ):
        assert (await owner.post("/session/register", json=ACCOUNT, headers=ORIGIN)).is_success
        await guess_then_log_in(attacker, owner)


@pytest.mark.anyio
async def test_logins_through_the_api_servers_own_session_are_throttled_by_shopper(
    tmp_path: Path,
) -> None:
    settings = CompanionSettings(
        database=str(tmp_path / "api.sqlite3"), public_url=SITE, session_key=DEMO_KEY
    )
    api = create_app(settings)
    seed_demo(api.state.services.engine, products=4)
    api.state.password_hasher = PasswordHasher(time_cost=1, memory_cost=8, parallelism=1)
    served = as_uvicorn_serves(with_session(api, settings))

    def browser(address: str) -> httpx.AsyncClient:
        transport = httpx.ASGITransport(app=served, client=(address, 40000))
        return httpx.AsyncClient(transport=transport, base_url=SITE)

    async with browser("203.0.113.66") as attacker, browser(SHOPPER) as owner:
        assert (await owner.post("/session/register", json=ACCOUNT, headers=ORIGIN)).is_success
        await guess_then_log_in(attacker, owner)
