"""A first build that stops before its crawl is done keeps what it fetched, and the next build
continues from there to the output a build that never stopped writes.

Stopped on purpose (``--max-requests``: exit status 75, one line) and killed outright (SIGKILL
at random points: only what the crawl had committed survives). The demo store is small, so its
list pages, which a resumed crawl asks again, are a larger share of its requests than in a
large store (docs/benchmarks.md has the figure at 10,000 products)."""

from __future__ import annotations

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

#: Whole builds in subprocesses: in `make test`, not the inner loop.
pytestmark = pytest.mark.slow

PRODUCTS = "40"
#: Requests a resumed crawl may repeat, per stop, as a share of a one-go crawl's (list pages).
REPEATED_PER_STOP = 0.10


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
    found = re.search(r"API requests\s*│\s*(\d+)", text) or re.search(
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
    for limit in (150, 250):
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


def test_a_build_killed_at_random_points_resumes_to_the_same_output(
    tmp_path: Path, one_go: tuple[dict[str, str], int, float]
) -> None:
    whole, _, seconds = one_go
    command = [sys.executable, "-m", "generator", *build_args(tmp_path, "killed")]
    rng = random.Random(2411)
    # Killed three times, each somewhere in the time a whole build took (so the points move
    # with the machine's speed), then let finish.
    for _ in range(3):
        process = subprocess.Popen(
            command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=_environment()
        )
        try:
            process.wait(timeout=rng.uniform(0.3, 0.9) * seconds)
        except subprocess.TimeoutExpired:
            os.kill(process.pid, signal.SIGKILL)
            process.wait()
    subprocess.run(command, check=True, capture_output=True, env=_environment(), timeout=300)
    assert snapshot(tmp_path / "killed" / "out") == whole
