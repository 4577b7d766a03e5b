"""The front door (companion.front_door) answers what the middleware chain answers, byte for
byte: two apps on one database and one clock, one serving kept answers at the front door, the
other with it switched off, asked the same things with their own keys of the same store."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from sqlalchemy import Connection, event, update

from companion import front_door
from companion.db.schema import products
from companion.keys.lifecycle import revoke_key
from companion.ratelimit.database import DatabaseRateLimiter
from companion.ratelimit.lease_link import LeaseLink
from tests.companion.conftest import PREFIX
from tests.companion.databases import refused_connection
from tests.companion.front_pairs import (
    MakePair,
    Pair,
    cache_hits,
    catalogue,
    key_id_of,
    key_of,
    skip_unless_notified,
    wire,
)
from tests.support.loopback import loopback_socket, serving_on

pytestmark = pytest.mark.anyio


@pytest.fixture
async def pair(make_pair: MakePair) -> Pair:
    return await make_pair()


async def test_kept_answers_are_the_chains_byte_for_byte(pair: Pair) -> None:
    for endpoint in await catalogue(pair):
        await pair.both(endpoint)  # read and kept by both
        assert not pair.last_served, "a first read cannot be served from memory"
        hits = cache_hits(pair.chain)
        await pair.both(endpoint)
        assert pair.last_served, f"{endpoint} was not served at the front door"
        assert cache_hits(pair.chain) == hits + 1  # the chain answered it from memory too


async def test_if_none_match_gets_the_same_304_and_a_stale_tag_the_same_200(pair: Pair) -> None:
    endpoint = (await catalogue(pair))[1]
    first, _ = await pair.both(endpoint)
    tag = first.headers["ETag"]
    answer, _ = await pair.both(endpoint, **{"If-None-Match": tag})
    assert answer.status_code == 304 and answer.content == b"" and pair.last_served
    answer, _ = await pair.both(endpoint, **{"If-None-Match": f'"stale", W/{tag}'})
    assert answer.status_code == 304 and pair.last_served
    answer, _ = await pair.both(endpoint, **{"If-None-Match": '"stale"'})
    assert answer.status_code == 200 and answer.content and pair.last_served


async def test_a_request_id_the_server_makes_is_on_the_answer_and_the_log(
    pair: Pair, caplog: pytest.LogCaptureFixture
) -> None:
    endpoint = (await catalogue(pair))[0]
    await pair.both(endpoint)
    caplog.set_level("INFO", logger="companion.access")
    caplog.clear()
    answer = await pair.front.client.get(
        PREFIX + endpoint, headers={"X-Service-Key": pair.front.key, "X-Request-Id": "bad id!"}
    )
    assert pair.front.door().served and answer.status_code == 200
    made = answer.headers["X-Request-Id"]
    assert made != "bad id!" and len(made) == 32
    lines = [r.getMessage() for r in caplog.records if r.name == "companion.access"]
    assert len(lines) == 1 and f'"request_id":"{made}"' in lines[0]
    assert '"method":"GET","path":"/public/v1/products","status":200' in lines[0]


async def test_the_log_lines_of_both_paths_match_but_for_time_and_duration(
    pair: Pair, caplog: pytest.LogCaptureFixture
) -> None:
    endpoint = (await catalogue(pair))[4]
    await pair.both(endpoint)
    caplog.set_level("INFO", logger="companion.access")
    caplog.clear()
    await pair.both(endpoint)
    assert pair.last_served
    fields = logged(caplog)
    assert len(fields) == 2 and fields[0] == fields[1]
    assert fields[0]["status"] == 200 and fields[0]["request_id"] == "same-request-id"


def logged(caplog: pytest.LogCaptureFixture) -> list[dict[str, Any]]:
    """The request log lines, but their time and duration."""
    lines = [r.getMessage() for r in caplog.records if r.name == "companion.access"]
    return [
        {k: v for k, v in json.loads(line).items() if k not in ("time", "duration_ms")}
        for line in lines
    ]


async def test_a_spent_limit_gets_the_same_429(
    make_pair: MakePair, caplog: pytest.LogCaptureFixture
) -> None:
    pair = await make_pair(rate_per_minute=3)
    endpoint = (await catalogue(pair))[1]
    statuses = [(await pair.both(endpoint))[0].status_code for _ in range(3)]
    assert statuses == [200, 200, 429]  # of 3 a minute, settling the apps spent one
    caplog.set_level("INFO", logger="companion.access")
    caplog.clear()
    refused, _ = await pair.both(endpoint)
    fields = logged(caplog)
    assert len(fields) == 2 and fields[0] == fields[1] and fields[0]["status"] == 429
    assert refused.status_code == 429 and refused.headers["Retry-After"]
    assert refused.json()["code"] == "rate_limited"
    assert pair.last_served


async def test_a_new_lease_is_taken_at_the_front_door(make_pair: MakePair) -> None:
    # Shared counts (several workers), leased one unit at a time at this limit: every request
    # writes its lease to the database.
    pair = await make_pair(workers=2, rate_per_minute=5)
    skip_unless_notified(pair)
    endpoint = (await catalogue(pair))[0]
    await pair.both(endpoint)
    hits = cache_hits(pair.front)
    answer, _ = await pair.both(endpoint)
    assert answer.status_code == 200 and pair.last_served
    assert cache_hits(pair.front) == hits + 1
    statuses = [(await pair.both(endpoint))[0].status_code for _ in range(3)]
    assert statuses == [200, 200, 429]  # 5 a minute: the settling request and these
    assert pair.last_served


async def test_a_lease_the_database_cannot_write_is_a_503_on_both_paths(
    make_pair: MakePair,
) -> None:
    pair = await make_pair(workers=2, rate_per_minute=5)  # every request writes its lease
    skip_unless_notified(pair)
    endpoint = (await catalogue(pair))[0]
    await pair.both(endpoint)
    refusal = refused_connection()  # the driver's own error for a closed port

    def in_statement(conn: Connection, cursor: Any, statement: str, *_: Any) -> None:
        if "rate_limit_counts" in statement:  # the database goes away as the lease is written
            raise refusal

    engines = [side.app.state.services.engine for side in (pair.front, pair.chain)]
    for side in (pair.front, pair.chain):
        limiter = side.door().limiter
        assert isinstance(limiter, DatabaseRateLimiter)
        limiter.link = None  # written through the engine, where the statement is seen
    for engine in engines:
        event.listen(engine, "before_cursor_execute", in_statement)
    try:
        answer, _ = await pair.both(endpoint)  # the same bytes from both paths
    finally:
        for engine in engines:
            event.remove(engine, "before_cursor_execute", in_statement)
    assert pair.last_served  # the front door's own lease, not the chain's
    assert answer.status_code == 503 and answer.headers["Retry-After"] == "5"
    assert answer.json()["code"] == "database_unavailable"
    assert answer.headers["X-Request-Id"] == "same-request-id"
    again, _ = await pair.both(endpoint)  # back, and nothing was counted or kept wrong
    assert again.status_code == 200 and pair.last_served


@pytest.mark.parametrize("written", ["on the event loop", "in a thread"])
async def test_a_change_while_leasing_is_read_as_the_chain_reads_it(
    make_pair: MakePair, written: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    pair = await make_pair(workers=2)
    skip_unless_notified(pair)
    endpoint = (await catalogue(pair))[1]
    await pair.both(endpoint)
    product = (await pair.front.get(endpoint)).json()
    price = product["price"] + 1000

    def change_price() -> None:
        with pair.api.app.state.services.engine.begin() as other:
            other.execute(
                update(products).where(products.c.id == product["id"]).values(price=price)
            )

    def in_statement(conn: Connection, cursor: Any, statement: str, *_: Any) -> None:
        if "rate_limit_counts" in statement:  # a lease being written: the price changes
            change_price()

    engines = [side.app.state.services.engine for side in (pair.front, pair.chain)]
    for side in (pair.front, pair.chain):  # spend the leases: the next request leases again
        limiter = side.door().limiter
        assert isinstance(limiter, DatabaseRateLimiter) and limiter.link is not None
        bucket = f"key:{(await side.get('/store')).status_code and key_of(side)}"
        while limiter.unspent(bucket):
            assert limiter.hit_at_once(bucket) is not None
        if written == "in a thread":
            limiter.link = None
        else:
            monkeypatch.setattr(limiter.link, "lease", leasing(limiter.link, change_price))
    for engine in engines:
        event.listen(engine, "before_cursor_execute", in_statement)
    try:
        hits = cache_hits(pair.front)
        answer, _ = await pair.both(endpoint)
    finally:
        for engine in engines:
            event.remove(engine, "before_cursor_execute", in_statement)
    assert pair.last_served and cache_hits(pair.front) == hits  # read, not sent from memory
    assert answer.status_code == 200 and answer.json()["price"] == price


def leasing(link: LeaseLink, before: Callable[[], None]) -> Callable[..., Awaitable[Any]]:
    """``link.lease``, ``before`` called as it starts."""
    lease = link.lease

    async def leased(*args: Any, **kwargs: Any) -> Any:
        before()
        return await lease(*args, **kwargs)

    return leased


async def test_a_revoked_key_gets_the_same_401_and_is_never_served(pair: Pair) -> None:
    endpoint = (await catalogue(pair))[0]
    await pair.both(endpoint)
    await pair.both(endpoint)
    assert pair.last_served
    with pair.api.app.state.services.engine.begin() as conn:
        for key in (pair.front.key, pair.chain.key):
            revoke_key(conn, key_id_of(conn, key), now=pair.api.clock.now())
    refused, _ = await pair.both(endpoint)
    assert refused.status_code == 401 and not pair.last_served
    assert refused.json()["code"] == "invalid_key"


async def test_a_full_worker_gets_the_same_503(make_pair: MakePair) -> None:
    pair = await make_pair(admission_queue=0)
    endpoint = (await catalogue(pair))[0]
    await pair.both(endpoint)
    gates = [side.door().gate for side in (pair.front, pair.chain)]
    taken = [0, 0]
    for i, gate in enumerate(gates):  # every slot taken, as by requests in flight
        while gate.enter_now():
            taken[i] += 1
    refused, _ = await pair.both(endpoint)
    assert refused.status_code == 503 and not pair.last_served
    assert refused.json()["code"] == "overloaded" and refused.headers["Retry-After"] == "1"
    for gate, count in zip(gates, taken, strict=True):
        for _ in range(count):
            gate.leave()
    await pair.both(endpoint)
    assert pair.last_served


async def test_paths_are_learned_once_and_forgotten_past_the_bound(
    make_pair: MakePair, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(front_door, "MAX_PATHS", 2)
    pair = await make_pair()
    endpoints = (await catalogue(pair))[:3]
    for endpoint in endpoints:
        await pair.both(endpoint)
    learned = pair.front.door()._paths
    assert len(learned) <= 2 and all(learned.values())
    for endpoint in endpoints:  # each served from memory, whichever paths were forgotten
        await pair.both(endpoint)
        assert pair.last_served, endpoint
    for _ in range(2):  # not a cached route's: never served here
        await pair.both("/pages")
        assert not pair.last_served
    assert learned.get(f"{PREFIX}/pages") is False


async def test_over_loopback_the_bytes_on_the_wire_are_the_same(pair: Pair) -> None:
    endpoints = await catalogue(pair)
    for endpoint in endpoints:  # kept by both
        await pair.both(endpoint)
    front_sock, _ = loopback_socket()
    chain_sock, _ = loopback_socket()
    with serving_on(front_sock, pair.front.app, what="front"):
        with serving_on(chain_sock, pair.chain.app, what="chain"):
            for endpoint in endpoints[:2]:
                served = pair.front.door().served
                a = wire(front_sock, endpoint, pair.front.key)
                b = wire(chain_sock, endpoint, pair.chain.key)
                assert pair.front.door().served == served + 1
                assert a == b and a.startswith(b"HTTP/1.1 200 OK\r\n")
