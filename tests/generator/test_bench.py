"""The measuring parts of `make bench` (scripts/bench_*.py): request wall time, process memory,
and the benchmarks document."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import time
from pathlib import Path
from types import ModuleType

import anyio
import httpx
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

REPO = Path(__file__).resolve().parents[2]


def _script(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, REPO / "scripts" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up while the class is made
    spec.loader.exec_module(module)
    return module


bench_build = _script("bench_build")
bench_procs = _script("bench_procs")
bench_report = _script("bench_report")


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
        "import importlib.util, os, sys, time\n"
        "spec = importlib.util.spec_from_file_location('bench_build', sys.argv[1])\n"
        "module = importlib.util.module_from_spec(spec); spec.loader.exec_module(module)\n"
        "a = bytearray(80 * 2**20)\n"
        "pid = os.fork()\n"
        "if pid == 0:\n"
        "    b = bytearray(120 * 2**20); time.sleep(0.8); os._exit(0)\n"
        "os.waitpid(pid, 0)\n"
        "print(module.peak_rss_mb())\n"
    )
    script = str(REPO / "scripts" / "bench_build.py")
    spawned = time.monotonic()
    run = bench_procs.measured_run([sys.executable, "-c", code, script], cwd=REPO, spawned=spawned)
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
        "        t = os.times(); print(t.user + t.system, flush=True); os._exit(0)\n"
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


def test_report_prints_the_targets_beside_the_figures() -> None:
    text = bench_report.report([_row(1_000), _row(10_000)], None, repo=REPO)
    [line] = [line for line in text.splitlines() if "requests per product page" in line]
    assert line == "| full crawl: requests per product page | at most 2.2 | 2.077 | 2.077 |"
    assert "| one-product change | crawl | 1.5 | 1.5 |" in text


def test_writing_the_document_keeps_the_load_test_section(tmp_path: Path) -> None:
    doc = tmp_path / "benchmarks.md"
    load = "## Companion under load (`make loadtest`)\n\nOther figures.\n"
    doc.write_text("# Benchmarks\n\nold figures\n\n" + load, encoding="utf-8")
    bench_report.write_doc(doc, "# Benchmarks\n\nnew figures\n")
    assert doc.read_text(encoding="utf-8") == "# Benchmarks\n\nnew figures\n\n" + load


def test_each_build_waits_for_the_deletion_an_earlier_build_left_running(tmp_path: Path) -> None:
    sys.path.insert(0, str(REPO / "scripts"))  # bench imports its siblings by name
    try:
        bench = _script("bench")
    finally:
        sys.path.remove(str(REPO / "scripts"))
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
    bench = _script("bench")
    sources = [REPO / package / "__init__.py" for package in ("generator", "companion")]
    for source in sources:  # touched: whatever was compiled before is out of date now
        os.utime(source, (source.stat().st_atime, source.stat().st_mtime + 2))
    bench.compile_bytecode()
    for source in sources:
        compiled = Path(importlib.util.cache_from_source(str(source)))
        header = compiled.read_bytes()[:16]  # magic, flags, source mtime, source size
        assert header[:4] == importlib.util.MAGIC_NUMBER
        assert int.from_bytes(header[8:12], "little") == int(source.stat().st_mtime)
