"""Each worker keeps the store of a key it has seen for a few seconds: revocation in this
process is still immediate; one made elsewhere takes effect within the cache's lifetime."""

from __future__ import annotations

import anyio
import pytest
from sqlalchemy import update

from companion.db.engine import make_engine
from companion.db.schema import api_keys
from companion.keys.cache import KEY_TTL_SECONDS, KeyCache
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
    cache = KeyCache(ttl=5.0, monotonic=ticks)
    cache.put("digest", SHOP, cache.generation())
    ticks.now += 4.9
    assert cache.get("digest") == SHOP
    ticks.now += 0.1
    assert cache.get("digest") is None


def test_keys_are_kept_longer_only_while_revocations_are_notified() -> None:
    ticks, notified = Ticks(), [True]
    cache = KeyCache(ttl=5.0, notified_ttl=300.0, monotonic=ticks, notified=lambda: notified[0])
    cache.put("digest", SHOP, cache.generation())
    ticks.now += 299.9
    assert cache.get("digest") == SHOP
    ticks.now += 0.1
    assert cache.get("digest") is None
    notified[0] = False  # the listening connection is down: the short lifetime again
    cache.put("digest", SHOP, cache.generation())
    ticks.now += 5.0
    assert cache.get("digest") is None


def test_a_revocation_in_this_process_empties_every_cache() -> None:
    cache = KeyCache(monotonic=Ticks())
    cache.put("digest", SHOP, cache.generation())
    revocations.bump()
    assert cache.get("digest") is None


def test_a_lookup_that_raced_a_revocation_is_not_kept() -> None:
    cache = KeyCache(monotonic=Ticks())
    seen = cache.generation()
    revocations.bump()  # while the key was being looked up
    cache.put("digest", SHOP, seen)
    assert cache.get("digest") is None


def test_the_cache_stays_bounded() -> None:
    cache = KeyCache(max_keys=10, monotonic=Ticks())
    for i in range(25):
        cache.put(f"digest {i}", SHOP, cache.generation())
    assert cache.get("digest 24") == SHOP
    assert cache.get("digest 0") is None
    assert sum(cache.get(f"digest {i}") is not None for i in range(25)) <= 10


async def test_a_revocation_by_another_process_waits_for_the_cache_or_its_notification(
    api: Api,
) -> None:
    """Another process (the keys command, another worker) only changes the row. On SQLite this
    worker answers from its cache until the entry expires (KEY_TTL_SECONDS); on PostgreSQL the
    change's notification reaches the worker, which then drops every key it kept."""
    assert KEY_TTL_SECONDS <= 5
    assert (await api.get("/store")).status_code == 200
    with api.app.state.services.engine.begin() as conn:
        conn.execute(update(api_keys).values(revoked_at=api.clock.now()))
    if api.app.state.services.engine.dialect.name != "postgresql":
        assert (await api.get("/store")).status_code == 200  # cached: no database round trip
        return
    statuses = []
    for _ in range(100):  # the notification is sent at commit, and delivered a moment later
        statuses.append((await api.get("/store")).status_code)
        if statuses[-1] == 401:
            break
        await anyio.sleep(0.01)
    assert statuses[-1] == 401, statuses


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
