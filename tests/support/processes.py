"""The companion and the session service as real processes for the tests (the process helpers
are the benchmarks', benchmarks/processes.py)."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from benchmarks.processes import free_port, running


@contextmanager
def running_companion(folder: Path, *, products: int, extra: Sequence[str] = ()) -> Iterator[str]:
    """`storefront api` on a fresh demo store in ``folder``: yields its API base url."""
    port = free_port()
    origin = f"http://127.0.0.1:{port}"
    args = ["api", "--db", str(folder / "shop.db"), "--seed", "demo"]
    args += ["--products", str(products), "--port", str(port), *extra]
    with running(args, ready=origin + "/health/ready", log=folder / "api.log", cwd=folder):
        yield origin + "/public/v1"


@contextmanager
def running_session(
    folder: Path, *, api_url: str, key: str, workers: int = 1, extra: Sequence[str] = ()
) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """`storefront session` in front of ``api_url``: yields (its origin, the process)."""
    port = free_port()
    origin = f"http://127.0.0.1:{port}"
    args = ["session", "--api-url", api_url, "--key", key, "--port", str(port)]
    args += ["--workers", str(workers), *extra]
    log = folder / f"session-{port}.log"
    with running(args, ready=origin + "/session/health", log=log, cwd=folder) as process:
        yield origin, process
