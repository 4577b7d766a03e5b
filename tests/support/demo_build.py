"""The demo store, built once per test session by the real `storefront build`.

Several test modules need it (serving it behind nginx, auditing it); the first to ask builds it
into the session's base temporary folder and later ones reuse that folder. Under pytest-xdist
the workers share one build in the run's folder (above each worker's own), made by the first
worker to ask while the others wait on a lock. A failed build fails every test that needs it,
with the command's last lines: the site is never faked.
"""

from __future__ import annotations

import fcntl
import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
DEMO_SITE_URL = "http://127.0.0.1:8000"
BUILD_TIMEOUT = 900


@contextmanager
def _locked(path: Path) -> Iterator[None]:
    with path.open("a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def build_demo_site(base: Path) -> Path:
    if os.environ.get("PYTEST_XDIST_WORKER"):
        base = base.parent  # the run's folder, shared by its workers
    # Not demo-output.lock: that is the lock the build itself takes beside its output.
    with _locked(base / "demo-build.lock"):
        return _build_once(base)


def _build_once(base: Path) -> Path:
    out = base / "demo-output"
    built, failed = base / "demo-output.built", base / "demo-output.failed"
    if built.exists():
        return out
    if failed.exists():
        pytest.fail(failed.read_text(encoding="utf-8"), pytrace=False)
    environ = {k: v for k, v in os.environ.items() if not k.startswith("STOREFRONT_")}
    command = [
        sys.executable, "-m", "generator", "build",
        "--out", str(out),
        "--cache-dir", str(base / "demo-cache"),
        "--site-url", DEMO_SITE_URL,
    ]  # fmt: skip
    result = subprocess.run(
        command,
        cwd=REPO,
        env=environ,
        capture_output=True,
        text=True,
        timeout=BUILD_TIMEOUT,
        check=False,
    )
    if result.returncode != 0 or not (out / "index.html").is_file():
        tail = "\n".join((result.stderr or result.stdout).strip().splitlines()[-15:])
        message = f"`storefront build` of the demo store failed (exit {result.returncode}):\n{tail}"
        failed.write_text(message, encoding="utf-8")
        pytest.fail(message, pytrace=False)
    built.touch()
    return out
