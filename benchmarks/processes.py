"""`storefront` commands as real processes on free loopback ports, stopped with SIGTERM.

Shared by the benchmarks and the tests (tests/support/processes.py): both start the commands a
merchant runs and wait for their health endpoint before using them.
"""

from __future__ import annotations

import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path

import httpx

#: The console script, run by this interpreter (the tree on its path, whatever is installed).
STOREFRONT = (sys.executable, "-c", "import sys; from generator.cli import main; sys.exit(main())")


class StartFailed(RuntimeError):
    """A process stopped, or did not answer, before it was ready."""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_ready(
    url: str, process: subprocess.Popen[bytes], seconds: float = 60, *, log: Path | None = None
) -> None:
    """Until ``url`` answers 200; ``StartFailed`` (with ``log``'s last lines) if ``process``
    stops first or ``seconds`` pass."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise StartFailed(f"the process stopped before {url} answered{_tail(log)}")
        try:
            if httpx.get(url, timeout=2).status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.05)
    raise StartFailed(f"{url} did not answer within {seconds:g} s{_tail(log)}")


@contextmanager
def running(
    args: Sequence[str],
    *,
    ready: str,
    log: Path,
    cwd: Path,
    env: Mapping[str, str] | None = None,
    seconds: float = 60,
) -> Iterator[subprocess.Popen[bytes]]:
    """`storefront <args>` until the block ends; ready once ``ready`` answers 200; its output
    goes to ``log``."""
    with log.open("wb") as out:
        process = subprocess.Popen(
            [*STOREFRONT, *args], cwd=cwd, stdout=out, stderr=subprocess.STDOUT, env=env
        )
    try:
        wait_ready(ready, process, seconds, log=log)
        yield process
    finally:
        stop(process)


def stop(process: subprocess.Popen[bytes]) -> None:
    """SIGTERM, as a service manager stops it; killed if it has not ended in 45 s."""
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=45)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def _tail(log: Path | None) -> str:
    if log is None or not log.exists():
        return ""
    return f": {log.read_text(errors='replace').strip().splitlines()[-3:]}"
