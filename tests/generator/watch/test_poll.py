"""The content poll sees a merchant's change in the first list pages, and only then."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import anyio
import pytest

from companion.webhooks.events import Entity
from generator.client.api import ApiClient
from generator.errors import ApiUnreachable
from generator.watch.poll import content_digest, poll_content
from tests.support.incremental_store import DemoStore, config_for


@pytest.fixture
def store(tmp_path: Path) -> Iterator[DemoStore]:
    demo = DemoStore(tmp_path, products=3)
    yield demo
    demo.close()


def digests(store: DemoStore, change: Callable[[], None]) -> tuple[str, str, str]:
    """The digest before, again unchanged, and after calling ``change``."""

    async def go() -> tuple[str, str, str]:
        async with store.connect(config_for(Path("."))) as (http, key, windows):
            client = ApiClient(http, key=key)
            before = await content_digest(client)
            again = await content_digest(client)
            change()
            after = await content_digest(client)
        return before, again, after

    return anyio.run(go)


def test_digest_changes_when_a_price_changes(store: DemoStore) -> None:
    product = store.ids(Entity.PRODUCT)[0]
    before, again, after = digests(store, lambda: store.set_price(product, 123_000))
    assert before == again
    assert after != before


def test_digest_changes_when_a_category_is_renamed(store: DemoStore) -> None:
    category = store.ids(Entity.CATEGORY)[0]
    before, _, after = digests(
        store, lambda: store.update(Entity.CATEGORY, category, {"name": "Renamed"})
    )
    assert after != before


def run_poll(answers: list[str | Exception]) -> tuple[list[str], list[str]]:
    triggered: list[str] = []
    reported: list[str] = []
    pending = list(answers)

    async def digest() -> str:
        answer = pending.pop(0) if pending else "same"
        if isinstance(answer, Exception):
            raise answer
        return answer

    async def go() -> None:
        with anyio.move_on_after(0.3):
            await poll_content(digest, every=0.01, trigger=triggered.append, report=reported.append)

    anyio.run(go)
    return triggered, reported


def test_poll_triggers_once_per_change_and_not_at_start() -> None:
    triggered, _ = run_poll(["a", "a", "b", "b", "same"])
    assert triggered == ["content changed", "content changed"]


def test_unreachable_api_is_reported_and_polling_goes_on() -> None:
    down = ApiUnreachable("connection refused", endpoint="GET /products")
    triggered, reported = run_poll(["a", down, "a", "b"])
    assert len(reported) == 1 and reported[0].startswith("content poll failed: ")
    assert triggered.count("content changed") >= 1


def test_poll_waits_while_a_build_runs() -> None:
    """A build spends the key's requests and reads the content itself: no digest meanwhile,
    and the change it made while paused is still seen after."""
    asked: list[str] = []
    triggered: list[str] = []
    building = True

    async def digest() -> str:
        asked.append("digest")
        return "before" if len(asked) == 1 else "after"

    async def go() -> None:
        nonlocal building
        async with anyio.create_task_group() as tg:
            tg.start_soon(
                lambda: poll_content(
                    digest,
                    every=0.01,
                    trigger=triggered.append,
                    report=lambda line: None,
                    paused=lambda: building,
                )
            )
            await anyio.sleep(0.2)
            assert asked == []  # paused the whole time
            building = False
            await anyio.sleep(0.2)
            tg.cancel_scope.cancel()

    anyio.run(go)
    assert len(asked) >= 2 and triggered == ["content changed"]
