"""`storefront` commands as real processes on free loopback ports, stopped with SIGTERM."""

from __future__ import annotations

import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import httpx

#: The console script, run by this interpreter (the tree under test, whatever is installed).
STOREFRONT = (sys.executable, "-c", "import sys; from generator.cli import main; sys.exit(main())")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def wait_ready(url: str, process: subprocess.Popen[bytes], seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError(f"the process stopped before {url} answered")
        try:
            if httpx.get(url, timeout=2).status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.05)
    raise AssertionError(f"{url} did not answer within {seconds} s")


@contextmanager
def running(
    args: Sequence[str], *, ready: str, log: Path, cwd: Path
) -> Iterator[subprocess.Popen[bytes]]:
    """`storefront <args>` until the block ends; ready once ``ready`` answers 200; its output
    goes to ``log``."""
    with log.open("wb") as out:
        process = subprocess.Popen(
            [*STOREFRONT, *args], cwd=cwd, stdout=out, stderr=subprocess.STDOUT
        )
        try:
            wait_ready(ready, process)
            yield process
        finally:
            stop(process)


def stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=45)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


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
