"""A miss asked for by several requests of a worker at once is read once: the others wait for
that reading and are answered with what it kept (``AnswerCache._after_reading``). The reading
is held open at the layer under the cache, so the requests meet by construction."""

from __future__ import annotations

import httpx
import pytest
from anyio import Event, create_task_group, fail_after, wait_all_tasks_blocked
from starlette.types import Receive, Scope, Send

from companion.answer_cache.middleware import AnswerCache
from tests.companion.conftest import Api, MakeApi, layer_of

pytestmark = pytest.mark.anyio


class HeldReading:
    """Put under the answer cache: the first ``hold`` readings wait for ``release``."""

    def __init__(self, cache: AnswerCache, hold: int = 1) -> None:
        self.inner = cache.app
        self.hold = hold
        self.paths: list[str] = []  # every reading that reached the routes
        self.entered = Event()
        self.release = Event()
        cache.app = self

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        self.paths.append(scope["path"])
        if len(self.paths) <= self.hold:
            self.entered.set()
            await self.release.wait()
        await self.inner(scope, receive, send)


async def at_once(api: Api, held: HeldReading, path: str, count: int) -> list[httpx.Response]:
    """``count`` GETs of ``path``: the first reaches the routes and is held there, then the
    others come and block, then the first is released."""
    answers: list[httpx.Response] = []

    async def get() -> None:
        answers.append(await api.get(path))

    with fail_after(20):
        async with create_task_group() as group:
            group.start_soon(get)
            await held.entered.wait()
            for _ in range(count - 1):
                group.start_soon(get)
            await wait_all_tasks_blocked()
            held.release.set()
    return answers


async def test_a_miss_asked_for_at_once_is_read_once(api: Api) -> None:
    await api.ok("/store")
    cache = layer_of(api.app, AnswerCache)
    held = HeldReading(cache)
    answers = await at_once(api, held, "/products", 4)
    assert [a.status_code for a in answers] == [200] * 4
    assert len({a.content for a in answers}) == 1
    assert held.paths == ["/public/v1/products"]
    assert cache.joined == 3


async def test_a_reading_that_keeps_nothing_lets_the_waiting_requests_read(api: Api) -> None:
    await api.ok("/store")
    cache = layer_of(api.app, AnswerCache)
    cache.read_wait = 60  # past ``at_once``'s deadline: they must be woken, not time out
    held = HeldReading(cache)
    answers = await at_once(api, held, "/products/by-slug/no-such-product", 3)
    assert [a.status_code for a in answers] == [404] * 3  # a 404 is not kept
    assert len(held.paths) == 3 and cache.joined == 0


async def test_a_request_waits_for_anothers_reading_a_bounded_time(make_api: MakeApi) -> None:
    api = await make_api()
    await api.ok("/store")
    cache = layer_of(api.app, AnswerCache)
    cache.read_wait = 0.05
    held = HeldReading(cache)
    answers: list[httpx.Response] = []

    async def get() -> None:
        answers.append(await api.get("/categories"))

    with fail_after(20):
        async with create_task_group() as group:
            group.start_soon(get)
            await held.entered.wait()
            await get()  # waits 0.05 s, then reads beside the held reading
            assert len(held.paths) == 2 and answers[0].status_code == 200
            held.release.set()
    assert [a.status_code for a in answers] == [200, 200] and cache.joined == 0
