"""Each worker keeps the store of a key it has seen, and forgets it before the first request
after a revocation, made in this process or elsewhere."""

from __future__ import annotations

import pytest
from sqlalchemy import update

from companion.db.engine import make_engine
from companion.db.schema import api_keys
from companion.keys.cache import KeyCache
from companion.keys.everywhere import end_everywhere
from companion.keys.lifecycle import revocations, revoke_key
from companion.tenant import Tenant
from tests.companion.conftest import Api

pytestmark = pytest.mark.anyio

SHOP = Tenant(store_id=1, key_id=7)


class Ticks:
    """A monotonic clock moved by hand."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_a_cached_key_expires_after_its_lifetime() -> None:
    ticks = Ticks()
    cache = KeyCache(ttl=5.0, monotonic=ticks, trusted=lambda: True)
    cache.put("digest", SHOP, cache.generation())
    ticks.now += 4.9
    assert cache.get("digest") == SHOP
    ticks.now += 0.1
    assert cache.get("digest") is None


def test_keys_are_kept_only_while_revocations_elsewhere_are_seen() -> None:
    trusted = [True]
    cache = KeyCache(monotonic=Ticks(), trusted=lambda: trusted[0])
    cache.put("digest", SHOP, cache.generation())
    assert cache.get("digest") == SHOP
    trusted[0] = False  # the listener's connection is down: every key is looked up
    assert cache.get("digest") is None
    cache.put("digest", SHOP, cache.generation())
    trusted[0] = True
    assert cache.get("digest") is None


def test_a_revocation_in_this_process_empties_every_cache() -> None:
    cache = KeyCache(monotonic=Ticks(), trusted=lambda: True)
    cache.put("digest", SHOP, cache.generation())
    assert cache.get("digest") == SHOP
    revocations.bump()
    assert cache.get("digest") is None


def test_a_lookup_that_raced_a_revocation_is_not_kept() -> None:
    cache = KeyCache(monotonic=Ticks(), trusted=lambda: True)
    seen = cache.generation()
    revocations.bump()  # while the key was being looked up
    cache.put("digest", SHOP, seen)
    assert cache.get("digest") is None


def test_the_cache_stays_bounded() -> None:
    cache = KeyCache(max_keys=10, monotonic=Ticks(), trusted=lambda: True)
    for i in range(25):
        cache.put(f"digest {i}", SHOP, cache.generation())
    assert cache.get("digest 24") == SHOP
    assert cache.get("digest 0") is None
    assert sum(cache.get(f"digest {i}") is not None for i in range(25)) <= 10


async def test_a_revocation_by_another_process_is_seen_by_the_next_request(api: Api) -> None:
    """Another process (the keys command, another worker) ends the key: on SQLite it only
    changes the row, which the worker sees before its next request; on PostgreSQL the command
    waits until the worker's listener forgot every key (tests/companion/keys/test_listener.py)."""
    services = api.app.state.services
    assert (await api.get("/store")).status_code == 200
    assert (await api.get("/store")).status_code == 200  # kept now: no database round trip
    other = make_engine(services.settings.database, pooled=False)
    try:
        with other.connect() as conn:
            (key_id,) = conn.execute(api_keys.select().with_only_columns(api_keys.c.id)).scalars()
        _, said = end_everywhere(
            other, lambda conn: revoke_key(conn, key_id, now=api.clock.now()), wait=10
        )
    finally:
        other.dispose()
    assert said.missing == ()
    if services.engine.dialect.name == "postgresql":
        assert said.confirmed == said.listening >= 1
    assert (await api.get("/store")).status_code == 401


async def test_a_key_edited_by_hand_on_sqlite_is_seen_by_the_next_request(api: Api) -> None:
    engine = api.app.state.services.engine
    if engine.dialect.name != "sqlite":
        pytest.skip("on PostgreSQL, the key commands tell the workers (a notification else)")
    assert (await api.get("/store")).status_code == 200
    assert (await api.get("/store")).status_code == 200
    other = make_engine(api.app.state.services.settings.database, pooled=False)
    try:
        with other.begin() as conn:
            conn.execute(update(api_keys).values(revoked_at=api.clock.now()))
    finally:
        other.dispose()
    assert (await api.get("/store")).status_code == 401


async def test_a_revocation_through_another_engine_of_this_process_is_immediate(
    api: Api,
) -> None:
    assert (await api.get("/store")).status_code == 200
    other = make_engine(api.app.state.services.settings.database)
    try:
        with other.begin() as conn:
            (key_id,) = conn.execute(api_keys.select().with_only_columns(api_keys.c.id)).scalars()
            assert revoke_key(conn, key_id, now=api.clock.now())
    finally:
        other.dispose()
    assert (await api.get("/store")).status_code == 401
