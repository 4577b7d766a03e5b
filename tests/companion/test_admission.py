"""The admission gate: at most ``limit`` requests inside a worker at once; the rest wait."""

from __future__ import annotations

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


async def test_no_more_than_the_limit_are_served_at_once() -> None:
    probe = Probe()
    statuses = await crowd(AdmissionGate(probe, limit=3), "/public/v1/store", 12)
    assert statuses == [200] * 12  # the others waited, none was refused
    assert probe.most == 3


async def test_exempt_paths_are_not_held_back() -> None:
    probe = Probe()
    gate = AdmissionGate(probe, limit=1, exempt_prefixes=("/sandbox/",))
    assert await crowd(gate, "/sandbox/vnpay/complete", 5) == [200] * 5
    assert probe.most == 5
