"""The load test's turns sent alike to a server's workers (``LeanClient.spread_over``, with
``connection_owners`` finding the worker of each connection)."""

from __future__ import annotations

import asyncio
import os

import pytest

from benchmarks.loadtest_cpu import connection_owners
from benchmarks.loadtest_http import LeanClient

pytestmark = pytest.mark.anyio

ANSWER = b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"


async def _server() -> tuple[asyncio.Server, int, list[int]]:
    """A keep-alive server answering every request: the client port of each request, in order."""
    seen: list[int] = []

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        port = writer.get_extra_info("peername")[1]
        try:
            while await reader.readuntil(b"\r\n\r\n"):
                seen.append(port)
                writer.write(ANSWER)
                await writer.drain()
        except asyncio.IncompleteReadError:  # the client closed it
            pass
        finally:
            writer.close()

    server = await asyncio.start_server(serve, "127.0.0.1", 0)
    return server, server.sockets[0].getsockname()[1], seen


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def test_each_connection_is_found_with_the_process_holding_it() -> None:
    server, port, _ = await _server()
    async with server, LeanClient(f"http://127.0.0.1:{port}", max_connections=4) as client:
        await asyncio.gather(*(client.request("GET", "/") for _ in range(4)))
        ports = client.local_ports()
        owners = connection_owners([os.getpid()])
        assert len(ports) == 4
        assert {owners.get(p) for p in ports} == {os.getpid()}
        assert connection_owners([]) == {}


async def test_requests_go_to_the_workers_alike_once_spread() -> None:
    server, port, seen = await _server()
    async with server, LeanClient(f"http://127.0.0.1:{port}", max_connections=6) as client:
        await asyncio.gather(*(client.request("GET", "/") for _ in range(6)))
        ports = sorted(client.local_ports())
        # Five connections on "worker" 1, one on "worker" 2: left to the connection last put
        # back, one after another, the requests would keep to one connection.
        owners = {p: (2 if p == ports[0] else 1) for p in ports}
        client.spread_over(owners)
        seen.clear()
        for _ in range(10):
            await client.request("GET", "/")
        by_worker = [owners[p] for p in seen]
        assert by_worker.count(1) == 5
        assert by_worker.count(2) == 5
        assert len(set(seen)) == 2  # each worker's connection last put back, in turn
