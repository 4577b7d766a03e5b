"""Password hashing in its own bounded lane: a few hashes at once per worker, a bounded wait
outside the admission gate, and a per-client limit, so logins cannot take the worker from
carts and checkouts. The hashing seam (``app.state.password_hasher``) holds each hash until the
test lets it go."""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from typing import Any

import anyio
import httpx
import pytest
from argon2 import PasswordHasher
from fastapi import FastAPI

from companion.app import create_app
from companion.keys.lifecycle import create_key
from companion.logging_http import ACCESS_LOGGER
from tests.companion.commerce.conftest import PASSWORD, Store, cheap_hasher
from tests.companion.conftest import PREFIX
from tests.companion.test_admission import until

pytestmark = pytest.mark.anyio


class HeldHasher(PasswordHasher):
    """Hashes wait, in their worker threads, until ``release`` is set; ``inside`` counts those
    hashing now."""

    def __init__(self) -> None:
        cheap = cheap_hasher()
        super().__init__(cheap.time_cost, cheap.memory_cost, cheap.parallelism)
        self.release = threading.Event()
        self.inside = 0
        self._lock = threading.Lock()

    def hash(self, password: str | bytes, *, salt: bytes | None = None) -> str:
        with self._lock:
            self.inside += 1
        try:
            # A guard against a hang, not a timing: the test sets the event.
            if not self.release.wait(timeout=30):
                raise AssertionError("the test never let the hash go")
            return str(super().hash(password, salt=salt))
        finally:
            with self._lock:
                self.inside -= 1


@contextmanager
def releasing(held: HeldHasher) -> Iterator[None]:
    """The held hashes let go as the block ends, whether or not its assertions held."""
    try:
        yield
    finally:
        held.release.set()


@pytest.fixture
async def worker(store: Store) -> AsyncIterator[Callable[..., tuple[FastAPI, HeldHasher]]]:
    """A worker on the store's database with settings of its own and a held hasher."""
    made: list[FastAPI] = []

    def make(**overrides: Any) -> tuple[FastAPI, HeldHasher]:
        settings = replace(store.app.state.services.settings, migrate=False, **overrides)
        app = create_app(settings, clock=store.clock)
        app.state.password_hasher = held = HeldHasher()
        made.append(app)
        return app, held

    yield make
    for app in made:
        app.state.services.engine.dispose()


def client_of(app: FastAPI, address: str) -> httpx.AsyncClient:
    transport = httpx.ASGITransport(app=app, client=(address, 40000))
    return httpx.AsyncClient(transport=transport, base_url="http://test")


async def register(client: httpx.AsyncClient, key: str, email: str) -> httpx.Response:
    body = {"email": email, "password": PASSWORD, "full_name": "Lan"}
    return await client.post(
        f"{PREFIX}/customer/register", json=body, headers={"X-Service-Key": key}
    )


def lane_waiting(app: FastAPI) -> int:
    lane = getattr(app.state, "hashing_lane", None)
    return 0 if lane is None else int(lane.waiting)


def logged(caplog: pytest.LogCaptureFixture) -> list[dict[str, Any]]:
    return [json.loads(r.getMessage()) for r in caplog.records if r.name == ACCESS_LOGGER]


def other_key(store: Store) -> str:
    with store.engine.begin() as conn:
        _, key = create_key(conn, store.store_id, now=store.clock.now(), name="another")
    return key


async def test_while_the_lane_is_full_a_cart_write_on_another_key_is_served_at_once(
    store: Store, worker: Callable[..., tuple[FastAPI, HeldHasher]]
) -> None:
    # Three slots in the worker; the lane (2 by default) leaves the third to everyone else.
    app, held = worker(admission_limit=3, admission_wait=0.2)
    key = other_key(store)
    statuses: list[int] = []
    async with anyio.create_task_group() as group:
        with releasing(held):

            async def sign_up(address: str, n: int) -> None:
                response = await register(client_of(app, address), store.key, f"k{n}@example.vn")
                statuses.append(response.status_code)

            group.start_soon(sign_up, "203.0.113.1", 1)
            group.start_soon(sign_up, "203.0.113.2", 2)
            await until(lambda: held.inside == 2)
            group.start_soon(sign_up, "203.0.113.3", 3)  # a third: it waits for the lane
            await until(lambda: held.inside == 3 or lane_waiting(app) == 1)
            body = {"items": [{"variant_id": store.goods.shirt_m, "quantity": 1}]}
            cart = await client_of(app, "198.51.100.20").put(
                f"{PREFIX}/cart/items", json=body, headers={"X-Service-Key": key}
            )
            assert cart.status_code == 200, cart.text  # not 503: a slot was free for it
            assert held.inside == 2 and lane_waiting(app) == 1  # the third waits outside
    assert statuses == [201, 201, 201]


async def test_a_request_past_the_lanes_wait_is_refused_with_503(
    store: Store,
    worker: Callable[..., tuple[FastAPI, HeldHasher]],
    caplog: pytest.LogCaptureFixture,
) -> None:
    app, held = worker(hashing_lane=2, hashing_wait=0.05)
    statuses: list[int] = []
    async with anyio.create_task_group() as group:
        with releasing(held):

            async def sign_up(address: str, n: int) -> None:
                response = await register(client_of(app, address), store.key, f"k{n}@example.vn")
                statuses.append(response.status_code)

            group.start_soon(sign_up, "203.0.113.1", 1)
            group.start_soon(sign_up, "203.0.113.2", 2)
            await until(lambda: held.inside == 2)
            caplog.set_level(logging.INFO, logger=ACCESS_LOGGER)
            with anyio.fail_after(5):  # refused once its wait is over, the lane still full
                refused = await register(client_of(app, "203.0.113.3"), store.key, "k3@example.vn")
            assert refused.status_code == 503
            assert refused.headers["content-type"] == "application/problem+json"
            assert refused.headers["Retry-After"] == "1" and refused.json()["code"] == "overloaded"
            assert held.inside == 2
    assert statuses == [201, 201]
    [line] = [line for line in logged(caplog) if line["status"] == 503]
    assert line["refused"] == "hashing lane full (no turn within 0.05 s)"


async def test_a_waiting_request_gets_the_lane_once_a_hash_is_done(
    store: Store, worker: Callable[..., tuple[FastAPI, HeldHasher]]
) -> None:
    app, held = worker(hashing_lane=1, hashing_wait=30.0)
    statuses: list[int] = []
    async with anyio.create_task_group() as group:
        with releasing(held):

            async def sign_up(address: str, n: int) -> None:
                response = await register(client_of(app, address), store.key, f"k{n}@example.vn")
                statuses.append(response.status_code)

            group.start_soon(sign_up, "203.0.113.1", 1)
            await until(lambda: held.inside == 1)
            group.start_soon(sign_up, "203.0.113.2", 2)
            await until(lambda: lane_waiting(app) == 1)
            assert held.inside == 1
    assert statuses == [201, 201]
    assert lane_waiting(app) == 0


async def test_one_client_cannot_take_more_of_the_lane_than_its_share(
    store: Store,
    worker: Callable[..., tuple[FastAPI, HeldHasher]],
    caplog: pytest.LogCaptureFixture,
) -> None:
    app, held = worker(hashing_lane=2, hashing_per_client=1)
    statuses: list[int] = []
    async with anyio.create_task_group() as group:
        with releasing(held):

            async def sign_up(address: str, n: int) -> None:
                response = await register(client_of(app, address), store.key, f"k{n}@example.vn")
                statuses.append(response.status_code)

            group.start_soon(sign_up, "203.0.113.1", 1)
            await until(lambda: held.inside == 1)
            caplog.set_level(logging.INFO, logger=ACCESS_LOGGER)
            with anyio.fail_after(5):  # answered at once, the client's first still hashing
                again = await client_of(app, "203.0.113.1").post(
                    f"{PREFIX}/customer/login",
                    json={"email": "k1@example.vn", "password": PASSWORD},
                    headers={"X-Service-Key": store.key},
                )
            assert again.status_code == 429 and again.headers["Retry-After"] == "1"
            assert again.json()["code"] == "rate_limited"
            group.start_soon(sign_up, "203.0.113.2", 2)  # another client still gets the lane
            await until(lambda: held.inside == 2)
    assert statuses == [201, 201]
    [line] = [line for line in logged(caplog) if line["status"] == 429]
    assert line["refused"] == "hashing: this client's share is in use"
