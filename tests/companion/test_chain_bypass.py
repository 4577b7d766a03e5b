"""The chain bypass (companion.chain_bypass): a kept catalogue read is answered past the chain
exactly as the chain answers it (status, headers, body, one rate-limit unit, one log line);
anything else goes down the chain untouched."""

from __future__ import annotations

import asyncio
import gc
import json
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, replace
from typing import Any

import httpx
import pytest
from starlette.types import Message

from companion.chain_bypass import ChainBypass
from companion.keys.lifecycle import revocations
from companion.logging_http import ACCESS_LOGGER, flush_request_log
from companion.ratelimit.memory import InMemoryRateLimiter
from companion.server import SETTINGS_VARIABLE, app_from_env, served_app, settings_to_env
from companion.session_mount import SessionBeside
from companion.settings import CompanionSettings
from tests.companion.conftest import PREFIX, Api, MakeApi, changes_taken_in, revoke_newest_key

pytestmark = pytest.mark.anyio


@dataclass
class Served:
    """The app as a worker serves it (``served_app``), and its chain bypass."""

    api: Api  # its client sends to the served app
    bypass: ChainBypass


Serve = Callable[..., Awaitable[Served]]


@pytest.fixture
async def serve(make_api: MakeApi) -> AsyncIterator[Serve]:
    clients: list[httpx.AsyncClient] = []

    async def make(**overrides: Any) -> Served:
        api = await make_api(**overrides)
        front = served_app(api.app, api.app.state.services.settings)
        assert isinstance(front, ChainBypass)
        client = httpx.AsyncClient(transport=httpx.ASGITransport(app=front), base_url="http://test")
        clients.append(client)
        return Served(replace(api, client=client), front)

    yield make
    for client in clients:
        await client.aclose()


@pytest.fixture
async def served(serve: Serve) -> Served:
    return await serve()


def header_names(response: httpx.Response) -> list[str]:
    return [name.decode().lower() for name, _ in response.headers.raw]


async def test_a_kept_read_is_answered_past_the_chain_as_the_chain_answers_it(
    serve: Serve,
) -> None:
    on, off = await serve(), await serve(chain_bypass=False)
    answers = []
    for api in (off.api, on.api):  # one app after the other: both watch the process's writes
        await api.ok("/store")
        await api.ok("/products", limit=5)  # read and kept
        answers.append(await api.get("/products", limit=5))
    chained, kept = answers
    assert off.bypass.served == 0
    assert on.bypass.served == 1
    assert kept.status_code == chained.status_code == 200
    assert kept.content == chained.content
    assert header_names(kept) == header_names(chained)
    same = ("etag", "content-type", "content-length", "ratelimit-limit", "ratelimit-policy")
    for name in (*same, "ratelimit-remaining"):
        assert kept.headers[name] == chained.headers[name], name
    assert kept.headers["ratelimit-remaining"] == "597"  # one unit a request, this one too


async def test_a_kept_read_names_its_answer_in_a_304(served: Served) -> None:
    api = served.api
    first = await api.get("/store")
    again = await api.client.get(
        PREFIX + "/store",
        headers={"X-Service-Key": api.key, "If-None-Match": first.headers["etag"]},
    )
    assert served.bypass.served == 1
    assert again.status_code == 304 and again.content == b""
    assert again.headers["etag"] == first.headers["etag"]
    assert "content-length" not in again.headers or again.headers["content-length"] == "0"


async def test_a_kept_read_keeps_the_callers_request_id_and_writes_one_line(
    served: Served, caplog: pytest.LogCaptureFixture
) -> None:
    api = served.api
    await api.ok("/store")
    caplog.set_level(logging.INFO, logger=ACCESS_LOGGER)
    caplog.clear()
    kept = await api.client.get(
        PREFIX + "/store", headers={"X-Service-Key": api.key, "X-Request-Id": "shop-42"}
    )
    flush_request_log()
    assert served.bypass.served == 1
    assert kept.headers.get_list("x-request-id") == ["shop-42"]
    lines = [json.loads(r.getMessage()) for r in caplog.records if r.name == ACCESS_LOGGER]
    assert [(x["request_id"], x["method"], x["path"], x["status"]) for x in lines] == [
        ("shop-42", "GET", f"{PREFIX}/store", 200)
    ]


async def test_a_revoked_key_goes_down_the_chain_and_is_refused(served: Served) -> None:
    api = served.api
    await api.ok("/store")
    await api.ok("/store")
    assert served.bypass.served == 1
    revoke_newest_key(api)
    refused = await api.get("/store")
    assert refused.status_code == 401
    assert served.bypass.served == 1


async def test_past_the_rate_limit_the_chain_answers_429(serve: Serve) -> None:
    served = await serve(rate_per_minute=3)
    api = served.api
    codes = [(await api.get("/store")).status_code for _ in range(4)]
    assert codes == [200, 200, 200, 429]
    # The first read and the refusal down the chain; a limiter that leases one unit at a time
    # (a small limit, shared by workers) waits for each, so all go down the chain.
    leases = not isinstance(api.app.state.services.limiter, InMemoryRateLimiter)
    assert served.bypass.served == (0 if leases else 2)


@pytest.mark.parametrize(
    ("headers", "query", "body"),
    [
        (None, None, None),  # no key: the store of the Host header, looked up
        ({"X-Service-Key": "sk_live_secret"}, None, None),
        ({"Authorization": "Bearer sk_live_secret"}, None, None),
        ({"Content-Type": "application/json"}, None, b"{}"),
        ({"Content-Length": "0"}, None, None),
        ({}, {"q": "a\x00b"}, None),
    ],
    ids=["no-key", "secret-key", "secret-bearer", "body", "declared-body", "nul"],
)
async def test_other_requests_go_down_the_chain(
    served: Served, headers: dict[str, str] | None, query: dict[str, str] | None, body: bytes | None
) -> None:
    api = served.api
    await api.ok("/store")
    await api.ok("/store")  # kept, and answered past the chain
    assert served.bypass.served == 1
    sent = {} if headers is None else {"X-Service-Key": api.key, **headers}
    asked = api.client.build_request(
        "GET", PREFIX + "/store", headers=sent, params=query, content=body
    )
    answer = await api.client.send(asked)
    assert served.bypass.served == 1
    assert answer.status_code in (200, 401, 422)


@pytest.mark.parametrize("method", ["HEAD", "OPTIONS", "DELETE"])
async def test_a_kept_read_in_another_method_goes_down_the_chain(
    served: Served, method: str
) -> None:
    api = served.api
    await api.ok("/store")
    await api.ok("/store")
    answer = await api.client.request(method, PREFIX + "/store", headers={"X-Service-Key": api.key})
    assert served.bypass.served == 1
    assert answer.status_code in (200, 405)


async def test_a_key_looked_up_again_gets_a_new_ticket(served: Served) -> None:
    """The bypass works out what a read's key decides once (its ticket); a key
    the worker no longer holds sends the read down the chain, which looks the key up, and the
    next read is answered past the chain for the tenant looked up anew."""
    api = served.api
    await api.ok("/store")
    await api.ok("/store")
    steps = served.bypass.parts
    assert steps is not None and len(steps.tickets) == 1 and served.bypass.served == 1
    revocations.bump()  # as when any key is revoked: every key is looked up again
    assert (await api.get("/store")).status_code == 200
    assert served.bypass.served == 1  # down the chain
    assert (await api.get("/store")).status_code == 200
    assert served.bypass.served == 2
    (ticket,) = steps.tickets.values()
    assert steps.tenancy.keys.get(ticket.digest) is ticket.tenant


async def test_one_ticket_serves_every_page_a_key_reads(served: Served) -> None:
    """A key's ticket holds nothing of the page: each page read with it is answered past the
    chain with that page's own kept answer."""
    api = served.api
    for number in range(3):
        api.shop.product(f"Áo {number}", slug=f"ao-{number}")
    changes_taken_in(api.app)
    pages = [("/store", {}), ("/products", {"limit": 5}), ("/products", {"limit": 2})]
    first = [await api.ok(path, **params) for path, params in pages]  # read and kept
    again = [await api.get(path, **params) for path, params in pages]
    steps = served.bypass.parts
    assert steps is not None and served.bypass.served == len(pages)
    assert list(steps.tickets) == [api.key.encode()]
    assert [answer.json() for answer in again] == first
    assert len({json.dumps(body, sort_keys=True) for body in first}) == len(pages)


async def test_an_error_in_its_steps_sends_the_request_down_the_chain(
    served: Served, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    api = served.api
    await api.ok("/store")
    assert served.bypass.parts is not None
    tenancy = served.bypass.parts.tenancy

    def broken(*_args: object) -> None:
        raise RuntimeError("a bug in the key check's shortcut")

    monkeypatch.setattr(tenancy, "held_key", broken)
    answer = await api.get("/store")
    assert answer.status_code == 200 and served.bypass.served == 0
    assert any("chain bypass failed" in r.getMessage() for r in caplog.records)


async def test_it_finds_the_chains_layers_as_the_app_starts(served: Served) -> None:
    """Under a server (which runs the lifespan), the first kept read needs no read before it
    down the chain to find the layers."""
    assert served.bypass.parts is None
    messages: asyncio.Queue[Message] = asyncio.Queue()
    await messages.put({"type": "lifespan.startup"})
    said: list[str] = []
    started = asyncio.Event()

    async def send(message: Message) -> None:
        said.append(message["type"])
        started.set()

    lifespan = asyncio.create_task(
        served.bypass({"type": "lifespan", "asgi": {"version": "3.0"}}, messages.get, send)
    )
    await asyncio.wait_for(started.wait(), 10)
    assert said == ["lifespan.startup.complete"]
    assert served.bypass.parts is not None
    await messages.put({"type": "lifespan.shutdown"})
    await asyncio.wait_for(lifespan, 10)


async def test_off_it_never_looks_for_the_layers(serve: Serve) -> None:
    off = await serve(chain_bypass=False)
    for _ in range(3):
        await off.api.ok("/store")
    assert off.bypass.parts is None and off.bypass.served == 0


def test_a_worker_serves_the_bypass_in_front_of_the_session_mount(
    settings: CompanionSettings, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(SETTINGS_VARIABLE, settings_to_env(settings))
    try:
        served = app_from_env()
        assert isinstance(served, ChainBypass) and served.enabled
        assert isinstance(served.app, SessionBeside)
        # The worker's start-up heap, the app in it, is out of the collector's full passes.
        assert not any(o is served for o in gc.get_objects())
        served.app.api.state.services.engine.dispose()  # type: ignore[attr-defined]
    finally:
        gc.unfreeze()  # this process builds many apps: none of them may stay frozen
