"""Serving with several workers: settings reach the worker processes, the CLI checks --workers,
and a real two-worker server answers, logs, and stops gracefully on SIGTERM."""

from __future__ import annotations

import json
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path

import httpx
import pytest

from companion.cli_support import shown_database
from companion.db.engine import database_url
from companion.server import SETTINGS_VARIABLE, ServeError, settings_from_env, settings_to_env
from companion.settings import CompanionSettings
from tests.companion.test_cli import run

ROOT = Path(__file__).parents[2]


def test_settings_reach_the_workers_through_the_environment() -> None:
    settings = replace(
        CompanionSettings(),
        database="postgresql://shop@db/shop",
        workers=3,
        max_body_bytes=65536,
        header_timeout=2.0,
        body_timeout=5.5,
    )
    environ = {SETTINGS_VARIABLE: settings_to_env(settings)}
    assert settings_from_env(environ) == settings


def test_a_worker_without_settings_says_how_to_start_it() -> None:
    with pytest.raises(ServeError, match="start workers with `storefront api`"):
        settings_from_env({})


def test_driverless_postgres_urls_use_psycopg() -> None:
    assert database_url("postgresql://u@h:5/db") == "postgresql+psycopg://u@h:5/db"
    assert database_url("postgres://u@h/db") == "postgresql+psycopg://u@h/db"
    assert database_url("postgresql+psycopg://u@h/db") == "postgresql+psycopg://u@h/db"


def test_printed_database_urls_hide_the_password() -> None:
    assert shown_database("postgresql://shop:s3cret@db/shop") == "postgresql://shop:***@db/shop"
    assert shown_database("shop.db") == "shop.db"


@pytest.mark.parametrize("workers", ["0", "5", "-1"])
def test_worker_count_out_of_range_is_one_line(
    workers: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run("api", "--workers", workers, "--db", "unused.db") == 2
    err = capsys.readouterr().err
    assert err == "storefront api: error: --workers must be between 1 and 4\n"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def wait_ready(base: str, server: subprocess.Popen[bytes], seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        assert server.poll() is None, "the server stopped before it was ready"
        try:
            if httpx.get(f"{base}/health/ready", timeout=2).status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.05)
    raise AssertionError(f"not ready within {seconds} s")


@contextmanager
def running_api(
    folder: Path, *, workers: int, database: str | None = None
) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """`storefront api --workers N` on a demo store in ``folder`` (or ``database``, a url);
    (base url, process).

    The process gets SIGTERM when the block ends; its output goes to ``folder/server.log``.
    """
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    command = [
        sys.executable,
        "-c",
        "import sys; from generator.cli import main; sys.exit(main(sys.argv[1:]))",
        *("api", "--db", database or str(folder / "shop.db"), "--seed", "demo"),
        *("--products", "12"),
        *("--workers", str(workers), "--port", str(port)),
    ]
    with (folder / "server.log").open("wb") as out:
        server = subprocess.Popen(command, cwd=folder, stdout=out, stderr=subprocess.STDOUT)
        try:
            wait_ready(base, server)
            yield base, server
        finally:
            if server.poll() is None:
                server.send_signal(signal.SIGTERM)
                try:
                    server.wait(timeout=45)
                except subprocess.TimeoutExpired:
                    server.kill()
                    server.wait()


def test_two_workers_serve_log_and_stop_gracefully(tmp_path: Path) -> None:
    with running_api(tmp_path, workers=2) as (base, server):
        answers = [
            httpx.get(f"{base}/public/v1/store", headers={"X-Request-Id": f"t-{i}"})
            for i in range(4)
        ]
        assert [a.status_code for a in answers] == [200] * 4
        assert [a.headers["X-Request-Id"] for a in answers] == [f"t-{i}" for i in range(4)]
        # Both workers count in the database: one budget, whichever worker answered. Each
        # reports its own view (its lease and the leases it saw, docs/companion-api.md), so the
        # values need not fall in order across workers; separate budgets would repeat 599.
        left = [int(a.headers["RateLimit-Remaining"]) for a in answers]
        assert len(set(left)) == 4 and max(left) == 599
        server.send_signal(signal.SIGTERM)
        assert server.wait(timeout=45) == 0
    text = (tmp_path / "server.log").read_text()
    lines = [json.loads(x) for x in text.splitlines() if x.startswith("{")]
    assert {line["request_id"] for line in lines} >= {f"t-{i}" for i in range(4)}
    assert text.count("Finished server process") == 2
