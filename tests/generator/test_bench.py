"""The measuring parts of `make bench` (benchmarks/): request wall time, process memory, the
benchmarks document, and each entry module starting."""

from __future__ import annotations

import asyncio
import importlib.util
import os
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from benchmarks import bench, doc, loadtest
from benchmarks import build as bench_build
from benchmarks import procs as bench_procs
from benchmarks import report as bench_report
from benchmarks.loadtest_cpu import cpu_by_process_since, cpu_reading, cpu_seconds_since
from benchmarks.loadtest_http import LeanClient

REPO = Path(__file__).resolve().parents[2]


def _slow_api() -> Starlette:
    async def slow(request: Request) -> Response:
        await anyio.sleep(float(request.query_params["s"]))
        return JSONResponse({"items": ["x"] * 100})

    return Starlette(routes=[Route("/slow", slow)])


def test_request_wall_time_is_the_union_of_the_requests_in_flight() -> None:
    async def go() -> tuple[float, float, int]:
        timed = bench_build.InFlight(httpx.ASGITransport(app=_slow_api()), time.monotonic)
        async with httpx.AsyncClient(transport=timed, base_url="http://api") as http:
            started = time.monotonic()
            async with anyio.create_task_group() as tg:  # four at once: 0.3 s, not 1.2 s
                for _ in range(4):
                    tg.start_soon(http.get, "/slow?s=0.3")
            await anyio.sleep(0.4)  # nothing in flight: not request time
            answer = await http.get("/slow?s=0.2")
            assert answer.json()["items"][0] == "x"  # the body is still there for the client
            wall = time.monotonic() - started
        return timed.seconds, wall, timed.requests

    seconds, wall, requests = anyio.run(go)
    assert requests == 5
    # 0.3 + 0.2 and the overhead, which a loaded machine stretches; well under the 1.4 s of the
    # five requests one after another.
    assert 0.5 <= seconds < 1.1
    assert wall - seconds >= 0.4


def test_peak_memory_counts_the_process_and_its_children() -> None:
    # A parent holding 80 MB forks a child that adds 120 MB of its own; both wait a moment. Then
    # the parent reports its peak as a build does: the largest process, its workers included.
    code = (
        "import os, sys, time\n"
        "import benchmarks.build as module\n"
        "a = bytearray(80 * 2**20)\n"
        "pid = os.fork()\n"
        "if pid == 0:\n"
        "    b = bytearray(120 * 2**20); time.sleep(0.8); os._exit(0)\n"
        "os.waitpid(pid, 0)\n"
        "print(module.peak_rss_mb())\n"
    )
    spawned = time.monotonic()
    run = bench_procs.measured_run([sys.executable, "-c", code], cwd=REPO, spawned=spawned)
    assert run.returncode == 0, run.stderr
    # The child's own peak (80 MB shared with its parent, 120 MB its own), never the memory of
    # the process that started this one (the test runner, whatever its size).
    assert 200 <= float(run.stdout) < 260
    assert run.peak_tree_pss_mb >= 190  # both together, pages shared after the fork once
    assert run.seconds >= 0.8


def test_cpu_time_counts_the_render_workers() -> None:
    # The parent only waits while two forked workers compute, each printing the CPU time it
    # used: the run's CPU time is at least theirs (a build's render workers), not the parent's.
    code = (
        "import os, sys\n"
        "pids = []\n"
        "for _ in range(2):\n"
        "    pid = os.fork()\n"
        "    if pid == 0:\n"
        "        sum(i * i for i in range(3_000_000))\n"
        # One write each (a pipe takes it whole): print may write the number and the line's
        # end apart, and the two children's lines then mix.
        "        t = os.times(); os.write(1, f'{t.user + t.system}\\n'.encode()); os._exit(0)\n"
        "    pids.append(pid)\n"
        "for pid in pids: os.waitpid(pid, 0)\n"
    )
    run = bench_procs.measured_run([sys.executable, "-c", code], cwd=REPO, spawned=time.monotonic())
    assert run.returncode == 0, run.stderr
    workers = sum(float(line) for line in run.stdout.split())
    assert workers > 0.1
    assert run.cpu_user + run.cpu_system >= workers - 0.02  # clock ticks of rounding


def test_settling_probes_until_a_file_is_cheap_enough_and_keeps_the_probes(
    tmp_path: Path,
) -> None:
    waited, microseconds = bench_procs.settle_inodes(tmp_path, settled_us=1e9, limit=60)
    assert waited < 5 and 0 < microseconds < 1e9  # settled at once: no pause
    [probe] = tmp_path.iterdir()  # kept: deleting it would slow what is measured next
    assert len(list(probe.iterdir())) == 2_000
    # Never cheap enough: probes every pause until the limit, then gives the last figure.
    waited, microseconds = bench_procs.settle_inodes(
        tmp_path, settled_us=0, limit=0.5, pause=0.1, count=20
    )
    assert 0.3 <= waited < 5 and microseconds > 0
    assert len(list(tmp_path.iterdir())) >= 1 + 3  # a probe at once, then after each pause


def _row(products: int) -> dict[str, object]:
    row: dict[str, object] = {"products": products, "requests_per_product_page": 2.077}
    for build in ("full", "nochange", "change", "render"):
        row[f"{build}_phases"] = {"crawl": 1.5, "render and write": 2.0}
    return row


def test_report_prints_the_targets_and_the_peer_beside_the_figures() -> None:
    text = bench_report.report([_row(1_000), _row(10_000)], None, repo=REPO)
    [line] = [line for line in text.splitlines() if "requests per product page" in line]
    assert line == "| full crawl: requests per product page | at most 2.2 |  | 2.077 | 2.077 |"
    [speed] = [line for line in text.splitlines() if "whole command, pages/s" in line]
    assert speed.split(" | ")[1:3] == [
        "at least 2,500 at 10,000; 1,700 at 50,000",
        "Hugo: 2,490 at 10,000, 1,700 at 50,000",
    ]
    assert "| one-product change | crawl | 1.5 | 1.5 |" in text


def test_a_benchmark_rewrites_its_own_section_and_keeps_the_others(tmp_path: Path) -> None:
    path = tmp_path / "benchmarks.md"
    head = "# Benchmarks\n\nHow to read them.\n\n"
    load = "## Companion under load (`make loadtest`)\n\nOther figures.\n"
    old = f"{bench_report.SECTION}, run of 2026-11-25 13:47 UTC)\n\nold figures\n\n"
    path.write_text(head + old + load, encoding="utf-8")
    new = bench_report.report([_row(1_000)], None, repo=REPO)
    doc.write_section(new, bench_report.SECTION, path)
    text = path.read_text(encoding="utf-8")
    assert text.startswith(head + bench_report.SECTION + ", run of ")
    assert "old figures" not in text and "### Reading the figures" in text
    assert text.endswith("\n\n" + load)
    # A section the document does not have yet goes at its end.
    doc.write_section("## Search (run of today)\n\nfigures\n", "## Search", path)
    assert path.read_text(encoding="utf-8").endswith(
        load + "\n## Search (run of today)\n\nfigures\n"
    )


@pytest.mark.parametrize("module", ["bench", "against", "loadtest", "loadtest_paced", "export"])
def test_each_benchmark_starts_as_a_module_of_the_package(module: str) -> None:
    """What the Makefile runs (`python -m benchmarks.<module>`) imports and parses its
    arguments."""
    command = [sys.executable, "-m", f"benchmarks.{module}", "--help"]
    run = subprocess.run(command, cwd=REPO, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert "usage:" in run.stdout


def test_each_build_waits_for_the_deletion_an_earlier_build_left_running(tmp_path: Path) -> None:
    folder = tmp_path / "store"
    (folder / "out").mkdir(parents=True)
    # An ``rm -rf`` that takes its time: a sleeping Python under that name.
    pretend = ["rm", "-c", "import time; time.sleep(1.5)", "-rf", str(folder / "out.old")]
    deleting = subprocess.Popen(pretend, executable=sys.executable)
    try:
        shown = Path(f"/proc/{deleting.pid}/cmdline")
        while b"out.old" not in shown.read_bytes():  # the kernel shows it once exec is done
            time.sleep(0.01)
        assert bench._deleting_under(folder)
        assert not bench._deleting_under(tmp_path / "another")
        started = time.monotonic()
        bench._settle_disk(folder)
        assert time.monotonic() - started >= 1.0  # waited for it
        assert deleting.poll() is not None and not bench._deleting_under(folder)
    finally:
        deleting.kill()
        deleting.wait()


def test_the_bench_compiles_the_packages_as_an_install_would() -> None:
    """A build measured from process start must not compile the generator first."""
    sources = [REPO / package / "__init__.py" for package in ("generator", "companion")]
    for source in sources:  # touched: whatever was compiled before is out of date now
        os.utime(source, (source.stat().st_atime, source.stat().st_mtime + 2))
    bench.compile_bytecode()
    for source in sources:
        compiled = Path(importlib.util.cache_from_source(str(source)))
        header = compiled.read_bytes()[:16]  # magic, flags, source mtime, source size
        assert header[:4] == importlib.util.MAGIC_NUMBER
        assert int.from_bytes(header[8:12], "little") == int(source.stat().st_mtime)


def test_the_load_tests_cpu_reading_counts_each_thread_to_the_microsecond() -> None:
    """A thread that ran 30 ms between two readings shows 30 ms (a process's clock ticks are
    10 ms); one that ended between them takes nothing off the sum."""
    release = threading.Event()

    def ending() -> None:
        _spin(0.02)
        release.wait()

    ended = threading.Thread(target=ending)
    ended.start()
    time.sleep(0.05)
    before = cpu_reading([os.getpid()])  # the ending thread's 20 ms in it
    release.set()
    ended.join()
    started = time.thread_time()
    _spin(0.03)
    spun = time.thread_time() - started
    used = cpu_seconds_since(before, [os.getpid()])
    assert spun <= used < spun + 0.015  # with the readings' own time


def test_the_load_tests_cpu_reading_splits_the_cpu_by_process() -> None:
    """Each process's own CPU: the spinning one has it, the sleeping one does not."""
    code = "import time; print('up', flush=True); time.sleep(30)"
    with subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE) as sleeper:
        try:
            assert sleeper.stdout is not None and sleeper.stdout.readline() == b"up\n"  # started
            pids = [os.getpid(), sleeper.pid]
            before = cpu_reading(pids)
            _spin(0.03)
            by_process = cpu_by_process_since(before, pids)
            total = cpu_seconds_since(before, pids)
        finally:
            sleeper.kill()
    assert set(by_process) == set(pids)
    assert by_process[os.getpid()] >= 0.03
    assert by_process[sleeper.pid] < 0.005
    assert sum(by_process.values()) <= total  # read again a moment later


def _spin(seconds: float) -> None:
    until = time.thread_time() + seconds
    while time.thread_time() < until:
        pass


def test_the_load_tests_warm_up_reads_every_page_with_every_key_on_each_connection() -> None:
    """Each key takes its lease on every worker before the turns (a key's first request on a
    worker goes down the chain, which a turn would count): each connection, which stays with
    one worker, carries every key; every page is read ``WARM_READS`` times."""
    targets: list[str] = []
    keys_by_connection: list[set[str]] = []

    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        keys: set[str] = set()
        keys_by_connection.append(keys)
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                lines = head.split(b"\r\n")
                targets.append(lines[0].split(b" ")[1].decode())
                keys.update(
                    v.decode()
                    for n, _, v in (x.partition(b": ") for x in lines)
                    if n == b"X-Service-Key"
                )
                writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}")
        except asyncio.IncompleteReadError:  # the client closed the connection
            pass
        finally:
            writer.close()
            await writer.wait_closed()

    async def run() -> loadtest.Turn:
        server = await asyncio.start_server(answer, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        slugs = [f"p{i}" for i in range(20)]
        shop = loadtest.Shop(f"http://127.0.0.1:{port}", ["pk_a", "pk_b", "pk_c"], [], [], slugs)
        async with server, LeanClient(shop.base, max_connections=64) as client:
            turn = await loadtest.warm_up(shop, client, {"catalogue": []})
        await asyncio.sleep(0.1)  # the server's ends of the connections see them closed
        return turn

    turn = asyncio.run(run())
    # 23 pages: the list, 20 products, the categories and the store.
    assert turn.requests == len(targets) == 23 * loadtest.WARM_READS
    assert len(set(targets)) == 23
    assert len(keys_by_connection) == loadtest.WARM_AT_ONCE
    assert all(keys == {"pk_a", "pk_b", "pk_c"} for keys in keys_by_connection)


def test_the_load_test_counts_the_bytecodes_of_a_kept_read_past_and_down_the_chain(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from benchmarks import loadtest_bytecodes
    from companion import logging_http

    # Forced: the request ids run out at the first read traced of each count (they are made
    # 256 at a time), which the count must not take for a read's own code.
    traced = loadtest_bytecodes._traced
    calls = 0

    async def ids_run_out_first(app: Any, scope: dict[str, Any]) -> loadtest_bytecodes.Count:
        nonlocal calls
        if calls % loadtest_bytecodes.READS == 0:
            logging_http._new_ids._ready.clear()
        calls += 1
        return await traced(app, scope)

    monkeypatch.setattr(loadtest_bytecodes, "_traced", ids_run_out_first)
    read = loadtest_bytecodes.kept_read_bytecodes()
    past, down = read.bypass.by_function, read.chain.by_function
    assert 0 < read.bypass.total < read.chain.total
    assert read.bypass.total == sum(past.values()) and read.chain.total == sum(down.values())
    # Past the chain, the bypass's steps and no middleware's call; down it, the other way.
    assert past["companion.chain_bypass:kept_answer"] > 0
    assert not any(name.endswith(":__call__") and "tenancy" in name for name in past)
    assert (
        down["companion.tenancy:__call__"] > 0 and "companion.chain_bypass:kept_answer" not in down
    )
    assert "companion.logging_http:_uuid4_hex" not in past | down
    # Both spend a unit of the shared limit and write the request's log line.
    for count in (past, down):
        assert count["companion.ratelimit.leases:spend_headers"] > 0
        assert count["companion.logging_http:log"] > 0


def test_the_load_test_times_a_kept_read_past_the_chain_with_the_caches_cold() -> None:
    from benchmarks.loadtest_cold import cold_kept_read

    read = cold_kept_read(reads=20, rounds=1)
    # 40 reads, cold and warm: all past the chain but those taking a new lease of 32 units
    assert read.reads == 20 and 38 <= read.past_the_chain < 40
    assert 0 < read.bare_us and 0 < read.warm_us < read.companion_us
