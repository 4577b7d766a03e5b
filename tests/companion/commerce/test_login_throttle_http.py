"""The login throttle under concurrency and from several clients, on the real companion.

Each guess is claimed before its password is verified, so many guesses at once get no more
evaluated than the limit allows; and failures count per client, so whoever knows an e-mail
locks out their own address, not the account's owner.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import replace
from datetime import datetime, timedelta
from typing import Any

import anyio
import anyio.to_thread
import httpx
import pytest
from argon2 import PasswordHasher
from fastapi import FastAPI
from sqlalchemy import func, select

from companion.app import create_app
from companion.customers.login_attempts import SWEPT_AT_ONCE
from companion.db.commerce_schema import login_attempts
from companion.logging_http import ACCESS_LOGGER
from tests.companion.commerce.conftest import PASSWORD, Store, cheap_hasher
from tests.companion.conftest import PREFIX

pytestmark = pytest.mark.anyio

EMAIL = "lan@example.vn"
ATTACKER = "203.0.113.7"
OWNER = "198.51.100.20"
GUESSES = 40
WORKERS = 5  # each hashes for at most 8 logins at once (and one client may use them all)


class HeldVerifier(PasswordHasher):
    """The hashing seam (``app.state.password_hasher``) holding every verification until each
    of ``expected`` requests has reached one or has been answered: all of them are past the
    throttle before any password is checked. Counts the verifications."""

    def __init__(self, expected: int) -> None:
        cheap = cheap_hasher()
        super().__init__(cheap.time_cost, cheap.memory_cost, cheap.parallelism)
        self.expected = expected
        self.arrived = 0
        self.answered = 0
        self.condition = threading.Condition()

    def verify(self, hash: str | bytes, password: str | bytes) -> bool:  # noqa: A002
        with self.condition:
            self.arrived += 1
            self.condition.notify_all()
            # A guard against a hang, not a timing: the wait ends as soon as all are in.
            if not self.condition.wait_for(self.all_in, timeout=30):
                raise AssertionError("the requests never all got past the throttle")
        return bool(super().verify(hash, password))

    def all_in(self) -> bool:
        return self.arrived + self.answered >= self.expected

    def answer(self) -> None:
        with self.condition:
            self.answered += 1
            self.condition.notify_all()


Login = Callable[..., Awaitable[httpx.Response]]


@pytest.fixture
async def workers(store: Store) -> AsyncIterator[Callable[..., list[FastAPI]]]:
    """More apps (workers) on the store's database, each with its own pool and admission."""
    made: list[FastAPI] = []

    def make(count: int, **overrides: Any) -> list[FastAPI]:
        settings = replace(store.app.state.services.settings, migrate=False, **overrides)
        apps = [create_app(settings, clock=store.clock) for _ in range(count)]
        made.extend(apps)
        return apps

    limiter = anyio.to_thread.current_default_thread_limiter()
    tokens = limiter.total_tokens
    limiter.total_tokens = 100  # 40 held verifications must not take every thread
    yield make
    limiter.total_tokens = tokens
    for app in made:
        app.state.services.engine.dispose()


def login_from(store: Store, app: FastAPI, address: str) -> Login:
    client = httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app, client=(address, 40000)), base_url="http://test"
    )

    async def login(password: str, email: str = EMAIL) -> httpx.Response:
        return await client.post(
            f"{PREFIX}/customer/login",
            json={"email": email, "password": password},
            headers={"X-Service-Key": store.key},
        )

    return login


async def register(store: Store, email: str = EMAIL) -> None:
    body = {"email": email, "password": PASSWORD, "full_name": "Lan"}
    await store.ok("POST", "/customer/register", status=201, json=body)


async def test_concurrent_wrong_passwords_get_at_most_the_limit_evaluated(
    store: Store, workers: Callable[..., list[FastAPI]]
) -> None:
    await register(store)
    held = HeldVerifier(GUESSES)
    apps = workers(
        WORKERS,
        admission_limit=10,
        admission_wait=60.0,
        hashing_lane=8,
        hashing_wait=60.0,
        hashing_per_client=GUESSES,
    )
    for app in apps:
        app.state.password_hasher = held
    logins = [login_from(store, app, ATTACKER) for app in apps]
    statuses: list[int] = []

    async def guess(n: int) -> None:
        response = await logins[n % WORKERS](f"wrong password {n}")
        statuses.append(response.status_code)
        held.answer()

    async with anyio.create_task_group() as group:
        for n in range(GUESSES):
            group.start_soon(guess, n)
    assert held.arrived <= 5  # the limit: no more guesses than that were evaluated
    assert statuses.count(401) == held.arrived
    assert statuses.count(429) == GUESSES - held.arrived


async def test_an_attacker_locks_out_their_own_client_not_the_owner(store: Store) -> None:
    await register(store)
    attacker = login_from(store, store.app, ATTACKER)
    owner = login_from(store, store.app, OWNER)
    for n in range(5):
        assert (await attacker(f"wrong password {n}")).status_code == 401
    assert (await owner(PASSWORD)).status_code == 200
    refused = await attacker(PASSWORD)  # even the right password, from the attacker's client
    assert refused.status_code == 429 and refused.json()["code"] == "login_throttled"
    assert int(refused.headers["Retry-After"]) == 900


async def test_a_throttled_login_is_logged_with_its_reason(
    store: Store, caplog: pytest.LogCaptureFixture
) -> None:
    await register(store)
    attacker = login_from(store, store.app, ATTACKER)
    for n in range(5):
        await attacker(f"wrong password {n}")
    caplog.set_level(logging.INFO, logger=ACCESS_LOGGER)
    caplog.clear()  # another test may have left the access log on: only the line below
    assert (await attacker("one more")).status_code == 429
    [line] = [json.loads(r.getMessage()) for r in caplog.records if r.name == ACCESS_LOGGER]
    assert line["status"] == 429 and line["path"] == f"{PREFIX}/customer/login"
    assert line["refused"] == "login throttled: this client, this e-mail"


async def test_one_client_trying_many_emails_is_throttled_for_all_of_them(
    store: Store, workers: Callable[..., list[FastAPI]]
) -> None:
    [app] = workers(1, login_client_attempts=3)
    app.state.password_hasher = cheap_hasher()
    stuffer, shopper = login_from(store, app, ATTACKER), login_from(store, app, OWNER)
    for n in range(3):
        assert (await stuffer(PASSWORD, email=f"khach{n}@example.vn")).status_code == 401
    refused = await stuffer(PASSWORD, email="khach9@example.vn")
    assert refused.status_code == 429 and refused.json()["code"] == "login_throttled"
    assert (await shopper(PASSWORD, email="khach9@example.vn")).status_code == 401


async def test_guesses_from_many_clients_lock_the_email_only_at_the_account_limit(
    store: Store, workers: Callable[..., list[FastAPI]], caplog: pytest.LogCaptureFixture
) -> None:
    await register(store)
    [app] = workers(1, login_attempts=2, login_account_attempts=4)
    app.state.password_hasher = cheap_hasher()
    for address in ("203.0.113.1", "203.0.113.2"):
        guesser = login_from(store, app, address)
        for n in range(3):  # the third is refused for its client: it adds nothing to the e-mail's
            expected = 401 if n < 2 else 429
            assert (await guesser(f"wrong {n}")).status_code == expected
    caplog.set_level(logging.INFO, logger=ACCESS_LOGGER)
    caplog.clear()  # another test may have left the access log on: only the line below
    locked = await login_from(store, app, OWNER)(PASSWORD)
    assert locked.status_code == 429 and locked.json()["code"] == "login_throttled"
    [line] = [json.loads(r.getMessage()) for r in caplog.records if r.name == ACCESS_LOGGER]
    assert line["refused"] == "login throttled: this e-mail"


async def test_a_successful_login_gives_its_claims_back(
    store: Store, workers: Callable[..., list[FastAPI]]
) -> None:
    await register(store)
    [app] = workers(1, login_attempts=2, login_client_attempts=2, login_account_attempts=2)
    app.state.password_hasher = cheap_hasher()
    owner = login_from(store, app, OWNER)
    for _ in range(5):  # never more than one claim outstanding: never refused
        assert (await owner(PASSWORD)).status_code == 200
    assert (await owner("wrong")).status_code == 401
    assert (await owner(PASSWORD)).status_code == 200


def counts_held(store: Store, *, lapsed_before: datetime | None = None) -> int:
    """The store's login counts (``lapsed_before``: only those whose window started by then)."""
    table = login_attempts
    query = select(func.count()).where(table.c.store_id == store.store_id)
    if lapsed_before is not None:
        query = query.where(table.c.window_started_at <= lapsed_before)
    with store.engine.connect() as conn:
        return int(conn.execute(query).scalar_one())


async def test_later_logins_sweep_lapsed_counts_and_keep_live_ones(
    store: Store, workers: Callable[..., list[FastAPI]]
) -> None:
    await register(store)
    [app] = workers(1)
    app.state.password_hasher = cheap_hasher()
    window = app.state.services.settings.login_window_seconds
    clients = [f"192.0.2.{n}" for n in range(20)]
    for address in clients:
        assert (await login_from(store, app, address)("wrong")).status_code == 401
    attacker = login_from(store, app, ATTACKER)
    for n in range(6):  # locked out at the sixth
        expected = 401 if n < 5 else 429
        assert (await attacker(f"wrong {n}")).status_code == expected
    # Each client's count and its count at the e-mail, and the e-mail's.
    assert counts_held(store) == 2 * 21 + 1

    # Within the window a new client's claim sweeps nothing, and the lock holds.
    store.clock.advance(window - 300)
    assert (await login_from(store, app, "198.51.100.1")("wrong")).status_code == 401
    assert counts_held(store) == 2 * 22 + 1
    assert (await attacker(PASSWORD)).status_code == 429

    # Past it, each new client's claim removes up to SWEPT_AT_ONCE of the lapsed counts.
    store.clock.advance(301)
    lapsed_by = store.clock.now() - timedelta(seconds=window)
    # The first clients' and the attacker's, and the e-mail's (the next claim restarts it).
    assert counts_held(store, lapsed_before=lapsed_by) == 2 * 21 + 1
    lapsed = 2 * 21
    sweeps = -(-lapsed // SWEPT_AT_ONCE)
    for n in range(sweeps):
        assert (await login_from(store, app, f"198.51.100.{10 + n}")("wrong")).status_code == 401
        left = max(0, lapsed - (n + 1) * SWEPT_AT_ONCE)
        assert counts_held(store, lapsed_before=lapsed_by) == left
    # Left: the e-mail's, the client of the window before's, and the new clients'.
    assert counts_held(store) == 1 + 2 + 2 * sweeps
    assert (await attacker(PASSWORD)).status_code == 200  # its lock lapsed with its count
