"""PostgreSQL: `keys revoke` returns only once every worker's listener forgot the keys it kept,
stepped in order with the listener held inside its forgetting; a worker that does not confirm in
time is named. (On SQLite the worker reads the database file before each request:
tests/companion/keys/test_cache.py.)"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import Engine

from companion.db.engine import make_engine
from companion.db.migrate import upgrade
from companion.keys.cache import KeyCache
from companion.keys.everywhere import Confirmation, end_everywhere
from companion.keys.lifecycle import Generation, create_key, list_keys, revoke_key, rotate_key
from companion.keys.listener import RevocationListener
from companion.tenant import Tenant
from tests.companion.conftest import START
from tests.companion.databases import fresh_database, postgres_server
from tests.companion.factory import Shop

pytestmark = pytest.mark.skipif(not postgres_server(), reason="PostgreSQL's listeners")

SHOP = Tenant(store_id=1, key_id=1)


class HeldGeneration(Generation):
    """A worker's revocation counter whose move waits for the test once it has begun."""

    def __init__(self) -> None:
        super().__init__()
        self.entered = threading.Event()
        self.release = threading.Event()
        self.held = False

    def bump(self, *_args: object) -> None:
        if self.held:
            self.entered.set()
            assert self.release.wait(30)
        super().bump()


@pytest.fixture
def engine(tmp_path: Path) -> Iterator[Engine]:
    with fresh_database(tmp_path) as database:
        engine = make_engine(database, pooled=False)
        upgrade(engine)
        yield engine
        engine.dispose()


def conninfo(engine: Engine) -> str:
    return engine.url.set(drivername="postgresql").render_as_string(hide_password=False)


def revoke_in_background(
    engine: Engine, key_id: int, wait: float
) -> tuple[threading.Thread, list[Confirmation]]:
    said: list[Confirmation] = []

    def revoke() -> None:
        said.append(
            end_everywhere(engine, lambda conn: revoke_key(conn, key_id, now=START), wait=wait)[1]
        )

    thread = threading.Thread(target=revoke)
    thread.start()
    return thread, said


def test_the_command_returns_only_after_the_worker_forgot_its_keys(engine: Engine) -> None:
    shop = Shop(engine, START)
    with engine.begin() as conn:
        info, _ = create_key(conn, shop.store_id, now=START)
    generation = HeldGeneration()
    listener = RevocationListener(conninfo(engine), generation=generation)
    try:
        assert listener.connected
        cache = KeyCache(trusted=lambda: listener.connected, generation=generation)
        cache.put("digest", SHOP, cache.generation())
        assert cache.get("digest") == SHOP
        generation.held = True

        thread, said = revoke_in_background(engine, info.id, wait=30)
        assert generation.entered.wait(30)  # the listener is forgetting, not yet done
        assert thread.is_alive() and not said  # so the command has not returned
        assert cache.get("digest") == SHOP
        generation.release.set()
        thread.join(30)
        assert said == [Confirmation(listening=1, confirmed=1, closed=0)]
        assert cache.get("digest") is None  # forgotten before the command returned
    finally:
        generation.release.set()
        listener.close()


def test_a_worker_that_does_not_confirm_in_time_is_named(engine: Engine) -> None:
    shop = Shop(engine, START)
    with engine.begin() as conn:
        info, _ = create_key(conn, shop.store_id, now=START)
    generation = HeldGeneration()
    listener = RevocationListener(conninfo(engine), generation=generation)
    try:
        generation.held = True
        thread, said = revoke_in_background(engine, info.id, wait=0.5)
        thread.join(30)
        assert generation.entered.is_set()
        assert len(said) == 1 and said[0].confirmed == 0 and len(said[0].missing) == 1
    finally:
        generation.release.set()
        listener.close()


def test_kept_keys_are_not_trusted_once_the_listener_is_closed(engine: Engine) -> None:
    listener = RevocationListener(conninfo(engine))
    assert listener.connected
    listener.close()  # returns once its thread has ended
    assert not listener.connected


def test_rotation_ends_the_old_key_for_every_listener(engine: Engine) -> None:
    shop = Shop(engine, START)
    with engine.begin() as conn:
        old, _ = create_key(conn, shop.store_id, now=START, name="web")
    generation = Generation()
    listener = RevocationListener(conninfo(engine), generation=generation)
    try:
        before = generation.value
        rotated, said = end_everywhere(
            engine, lambda conn: rotate_key(conn, old.id, now=START), wait=30
        )
        assert rotated is not None and said == Confirmation(1, 1, 0)
        assert generation.value > before
        info, key = rotated
        with engine.connect() as conn:
            keys = {k.id: k for k in list_keys(conn)}
        assert keys[old.id].revoked_at is not None and keys[info.id].revoked_at is None
        assert (info.store_id, info.name, key[:12]) == (shop.store_id, "web", info.prefix[:12])
        again, said = end_everywhere(
            engine, lambda conn: rotate_key(conn, old.id, now=START), wait=30
        )
        assert again is None and said == Confirmation(0, 0, 0)  # nothing ended, no one waited
    finally:
        listener.close()
