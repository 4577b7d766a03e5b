"""The admission gate: at most ``limit`` requests inside a worker at once, reads let in before
writes, and a bounded wait answered 503 with Retry-After."""

from __future__ import annotations

from collections.abc import Callable

import anyio
import httpx
import pytest
from starlette.types import Receive, Scope, Send

from companion.admission import AdmissionGate

pytestmark = pytest.mark.anyio


class Probe:
    """An ASGI app that records how many requests are inside it at the same time."""

    def __init__(self) -> None:
        self.inside = 0
        self.most = 0

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        self.inside += 1
        self.most = max(self.most, self.inside)
        await anyio.sleep(0.02)
        self.inside -= 1
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"ok"})


class Holder:
    """An ASGI app that keeps ``/hold`` inside until ``release`` is set; records entry order."""

    def __init__(self) -> None:
        self.release = anyio.Event()
        self.entered: list[str] = []

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        self.entered.append(f"{scope['method']} {scope['path']}")
        if scope["path"] == "/hold":
            await self.release.wait()
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"ok"})


async def crowd(gate: AdmissionGate, path: str, n: int) -> list[int]:
    transport = httpx.ASGITransport(app=gate)
    statuses: list[int] = []
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:

        async def one() -> None:
            statuses.append((await client.get(path)).status_code)

        async with anyio.create_task_group() as group:
            for _ in range(n):
                group.start_soon(one)
    return statuses


async def until(condition: Callable[[], bool]) -> None:
    with anyio.fail_after(5):
        while not condition():
            await anyio.sleep(0.001)


def gate_of(app: Holder, *, queue: int = 10, max_wait: float = 30.0) -> AdmissionGate:
    """One slot: ``/hold`` takes it, every other request waits behind it."""
    return AdmissionGate(app, limit=1, queue=queue, max_wait=max_wait)


async def test_no_more_than_the_limit_are_served_at_once() -> None:
    probe = Probe()
    gate = AdmissionGate(probe, limit=3, queue=50, max_wait=30)
    statuses = await crowd(gate, "/public/v1/store", 12)
    assert statuses == [200] * 12  # the others waited, none was refused
    assert probe.most == 3


async def test_exempt_paths_are_not_held_back() -> None:
    probe = Probe()
    gate = AdmissionGate(probe, limit=1, queue=0, max_wait=30, exempt_prefixes=("/sandbox/",))
    assert await crowd(gate, "/sandbox/vnpay/complete", 5) == [200] * 5
    assert probe.most == 5


async def test_waiting_reads_are_let_in_before_waiting_writes() -> None:
    holder = Holder()
    gate = gate_of(holder)
    answers: dict[str, int] = {}
    transport = httpx.ASGITransport(app=gate)
    async with (
        httpx.AsyncClient(transport=transport, base_url="http://test") as client,
        anyio.create_task_group() as group,
    ):

        async def one(method: str, path: str) -> None:
            answers[f"{method} {path}"] = (await client.request(method, path)).status_code

        group.start_soon(one, "GET", "/hold")
        await until(lambda: holder.entered == ["GET /hold"])
        for waiting, (method, path) in enumerate(
            [("POST", "/w1"), ("GET", "/r1"), ("PUT", "/w2"), ("HEAD", "/r2")], start=1
        ):
            group.start_soon(one, method, path)
            await until(lambda n=waiting: gate.waiting == n)
        holder.release.set()
    assert holder.entered == ["GET /hold", "GET /r1", "HEAD /r2", "POST /w1", "PUT /w2"]
    assert set(answers.values()) == {200}
    assert gate.waiting == 0


async def test_a_request_beyond_the_queue_is_refused_at_once_with_503() -> None:
    holder = Holder()
    gate = gate_of(holder, queue=2)
    transport = httpx.ASGITransport(app=gate)
    statuses: list[int] = []
    async with (
        httpx.AsyncClient(transport=transport, base_url="http://test") as client,
        anyio.create_task_group() as group,
    ):

        async def one(path: str) -> None:
            statuses.append((await client.get(path)).status_code)

        group.start_soon(one, "/hold")
        await until(lambda: len(holder.entered) == 1)
        group.start_soon(one, "/a")
        group.start_soon(one, "/b")
        await until(lambda: gate.waiting == 2)
        with anyio.fail_after(5):  # answered while /hold still holds the only slot
            refused = await client.get("/public/v1/products", params={"limit": 20})
        assert refused.status_code == 503
        assert refused.headers["Retry-After"] == "1"
        assert refused.headers["content-type"] == "application/problem+json"
        body = refused.json()
        assert body["code"] == "overloaded" and body["retry_after"] == 1
        assert body["detail"].startswith("GET /public/v1/products: the server is busy")
        holder.release.set()
    assert sorted(statuses) == [200, 200, 200]
    assert holder.entered == ["GET /hold", "GET /a", "GET /b"]


async def test_a_request_that_waits_too_long_is_refused_and_frees_its_place() -> None:
    holder = Holder()
    gate = gate_of(holder, max_wait=0.05)
    transport = httpx.ASGITransport(app=gate)
    async with (
        httpx.AsyncClient(transport=transport, base_url="http://test") as client,
        anyio.create_task_group() as group,
    ):
        group.start_soon(client.get, "/hold")
        await until(lambda: len(holder.entered) == 1)
        with anyio.fail_after(5):
            late = await client.post("/cart/items")
        assert late.status_code == 503
        assert "no slot within 0.05 s" in late.json()["detail"]
        assert gate.waiting == 0
        holder.release.set()
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
        assert (await client.get("/after")).status_code == 200
    assert holder.entered == ["GET /hold", "GET /after"]


async def test_a_cancelled_waiter_leaves_the_queue_and_no_slot_is_lost() -> None:
    holder = Holder()
    gate = gate_of(holder)
    transport = httpx.ASGITransport(app=gate)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
        async with anyio.create_task_group() as group:
            group.start_soon(client.get, "/hold")
            await until(lambda: len(holder.entered) == 1)
            with anyio.move_on_after(0.05):  # a client that goes away while waiting
                await client.get("/gone")
            assert gate.waiting == 0
            holder.release.set()
        statuses = await crowd(gate, "/next", 3)
    assert statuses == [200] * 3
    assert holder.entered == ["GET /hold"] + ["GET /next"] * 3


async def test_gateway_notifications_wait_for_a_slot_however_long_the_queue() -> None:
    holder = Holder()
    gate = AdmissionGate(holder, limit=1, queue=0, max_wait=0.05, patient_prefixes=("/payments/",))
    transport = httpx.ASGITransport(app=gate)
    answers: list[int] = []
    async with (
        httpx.AsyncClient(transport=transport, base_url="http://test") as client,
        anyio.create_task_group() as group,
    ):

        async def ipn() -> None:
            answers.append((await client.get("/payments/vnpay/ipn")).status_code)

        group.start_soon(client.get, "/hold")
        await until(lambda: len(holder.entered) == 1)
        group.start_soon(ipn)
        await until(lambda: gate.waiting == 1)
        assert (await client.get("/public/v1/store")).status_code == 503  # the queue is full
        await anyio.sleep(0.2)  # four times the longest wait of any other request
        assert gate.waiting == 1 and not answers
        holder.release.set()
    assert answers == [200]
    assert holder.entered == ["GET /hold", "GET /payments/vnpay/ipn"]
