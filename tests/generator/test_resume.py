"""A first build that stops before its crawl is done keeps what it fetched, and the next build
continues from there to the output a build that never stopped writes.

Stopped on purpose (``--max-requests``: exit status 75, one line), interrupted and killed
outright (SIGKILL at random points: every answer received before survives) against the companion
on loopback, which counts the requests of every run. The demo store is small, so its list
pages, which a resumed crawl asks again, are a larger share of its requests than in a large
store (docs/benchmarks.md has the figures at 300, 3,000 and 10,000 products)."""

from __future__ import annotations

import functools
import hashlib
import os
import random
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from generator.cli import main
from generator.client import ClientSettings
from tests.support.counting_companion import DEMO_KEY, CountingCompanion, counting_companion

#: Whole builds in subprocesses: in `make test`, not the inner loop.
pytestmark = pytest.mark.slow

PRODUCTS = "40"
#: Requests a resumed crawl may repeat, per stop, as a share of a one-go crawl's: its list
#: pages, 13 % of this small store's crawl (the killed build below holds the issue's 2 %).
REPEATED_PER_STOP = 0.20


def build_args(base: Path, name: str, *extra: str) -> list[str]:
    return [
        "build",
        "--out", str(base / name / "out"),
        "--cache-dir", str(base / name / "cache"),
        "--demo-products", PRODUCTS,
        "--xstore", str(base / "no-xstore.json"),
        *extra,
    ]  # fmt: skip


def snapshot(folder: Path) -> dict[str, str]:
    return {
        path.relative_to(folder).as_posix(): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }


def requests_of(text: str) -> int:
    """The requests a run sent, from its summary or its stop line."""
    found = re.search(r"API requests\s+(\d+)", text) or re.search(
        r"stopped after ([\d,]+) requests", text
    )
    assert found is not None, text
    return int(found.group(1).replace(",", ""))


@pytest.fixture(scope="module")
def one_go(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, str], int, float]:
    """The output, request count and seconds of a first build that was never stopped."""
    base = tmp_path_factory.mktemp("one-go")
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "generator", *build_args(base, "whole")],
        capture_output=True,
        text=True,
        env=_environment(),
        check=True,
    )
    return snapshot(base / "whole" / "out"), requests_of(done.stdout), time.monotonic() - started


def _environment() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith("STOREFRONT_")}


@pytest.fixture(autouse=True)
def _no_environment_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in [name for name in os.environ if name.startswith("STOREFRONT_")]:
        monkeypatch.delenv(name)


def test_a_build_stopped_twice_ends_as_one_that_never_stopped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], one_go: tuple[dict[str, str], int, float]
) -> None:
    whole, whole_requests, _ = one_go
    sent = 0
    for limit in (whole_requests // 4, whole_requests // 3):  # stopped twice before the end
        assert main(build_args(tmp_path, "resumed", "--max-requests", str(limit))) == 75
        err = capsys.readouterr().err
        (line,) = [line for line in err.splitlines() if "error:" in line]
        assert f"stopped after {limit} requests (--max-requests {limit})" in line
        assert (
            "answers kept" in line
            and "the next build continues from them; the output is unchanged" in line
        )
        assert not (tmp_path / "resumed" / "out").exists()
        sent += limit
    assert main(build_args(tmp_path, "resumed")) == 0
    sent += requests_of(capsys.readouterr().out)
    assert snapshot(tmp_path / "resumed" / "out") == whole
    assert sent <= whole_requests * (1 + 2 * REPEATED_PER_STOP)


def test_a_stopped_build_keeps_the_previous_output(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(build_args(tmp_path, "site")) == 0
    before = snapshot(tmp_path / "site" / "out")
    # With its crawl cache gone, the next build starts a whole crawl, and is stopped.
    for name in ("crawl.sqlite3",):
        (tmp_path / "site" / "cache" / name).unlink()
    assert main(build_args(tmp_path, "site", "--max-requests", "100")) == 75
    assert snapshot(tmp_path / "site" / "out") == before


#: A store large enough that one more walk of its lists is under 2 % of its crawl (103 of
#: 6,474 requests), the issue's figure for a resumed crawl; the test takes a minute and a half
#: (about two whole crawls of it, on two cores).
KILLED_PRODUCTS = 3000
#: Requests a crawl killed three times may ask beyond a one-go crawl's, as a share of it.
REPEATED_AT_MOST = 0.02


def loopback_build(companion: CountingCompanion, folder: Path) -> list[str]:
    """`storefront build` against ``companion``, its output and cache in ``folder``."""
    return [
        sys.executable, "-m", "tests.support.unpaced_build",
        "--api-url", companion.base_url,
        "--key", DEMO_KEY,
        "--site-url", "https://shop.example.vn",
        "--out", str(folder / "out"),
        "--cache-dir", str(folder / "cache"),
        "--xstore", str(folder / "no-xstore.json"),
    ]  # fmt: skip


def run_counted(companion: CountingCompanion, command: list[str]) -> int:
    """Run a build to its end; the requests the companion answered it."""
    before = companion.requests
    subprocess.run(command, check=True, capture_output=True, env=_environment(), timeout=300)
    return companion.requests - before


def test_a_build_killed_at_random_points_resumes_to_the_same_output_asking_little_again(
    tmp_path: Path,
) -> None:
    """Killed (SIGKILL, then an interrupt, then SIGKILL) each time some seeded share of a
    whole crawl's requests into its run, as the companion counts them, then let finish: the
    output is a one-go build's, and what the runs asked beyond a one-go build is what a
    continued crawl cannot avoid: one more walk of the lists (the run that finishes must see
    them as they are) and the answers in flight at each stop."""
    concurrency = ClientSettings().concurrency
    with counting_companion(tmp_path, products=KILLED_PRODUCTS) as companion:
        whole = run_counted(companion, loopback_build(companion, tmp_path / "one-go"))
        # What one walk of the lists costs: a rebuild with nothing changed asks just that.
        walk = run_counted(companion, loopback_build(companion, tmp_path / "one-go"))
        command = loopback_build(companion, tmp_path / "killed")
        rng = random.Random(2411)
        start = companion.requests
        stops: list[int] = []
        walks_started = 0
        progress: list[str] = []
        for sent in (signal.SIGKILL, signal.SIGINT, signal.SIGKILL):
            process = subprocess.Popen(
                command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=_environment()
            )
            at = companion.requests + int(rng.uniform(0.1, 0.35) * whole)
            companion.when_answered(at, functools.partial(os.kill, process.pid, sent))
            _, err = process.communicate(timeout=300)
            companion.cancel()
            progress.append(err.decode())
            walks_started += _walks_lists(err.decode())
            if process.returncode == 0:
                break
            assert process.returncode == (-signal.SIGKILL if sent == signal.SIGKILL else 130)
            stops.append(sent)
        else:
            finish = subprocess.run(
                command, check=True, capture_output=True, env=_environment(), timeout=300
            )
            progress.append(finish.stderr.decode())
            walks_started += _walks_lists(finish.stderr.decode())
        asked = companion.requests - start
    assert stops[:2] == [signal.SIGKILL, signal.SIGINT], stops
    # Each continued run starts with the pass that asks only what the runs before lacked.
    for shown in progress[1:]:
        phases = [line for line in shown.splitlines() if line.endswith("…")]
        assert phases and phases[0].startswith("context (continued)"), shown[-500:]
    assert snapshot(tmp_path / "killed" / "out") == snapshot(tmp_path / "one-go" / "out")
    # The first run and the one that finishes walk the lists; another walk is repeated only
    # when a stop falls within one (a continued run's first pass replays the kept lists).
    assert walks_started >= 1
    repeated = asked - whole
    assert 0 <= repeated <= (walks_started - 1) * walk + len(stops) * concurrency, (
        f"{asked} requests against {whole} for a one-go build: {repeated} repeated, "
        f"a walk of the lists is {walk}, {len(stops)} stops"
    )
    assert repeated <= REPEATED_AT_MOST * whole, f"{repeated} repeated of {whole}"


def _walks_lists(progress: str) -> int:
    """1 when a run's progress shows the crawl's own pass (not only a continued first pass)."""
    return int("\nlists…" in "\n" + progress)
