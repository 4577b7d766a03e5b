"""The processes of `make bench`: the companion server, and measured runs of one build.

``companion_server`` runs the companion (``companion.server.serve``, what `storefront api`
runs) on a loopback port in its own process, so its imports and CPU stay out of the build's
figures. ``measured_run`` starts a command, waits for it and, while it runs, samples the
proportional set size of the whole process tree (the build and its render workers), which
counts each page shared after a fork once, and takes the CPU time of the process with its
render workers from ``wait4`` (user and system: the system share is mostly the file system's).
(The build reports its own exact peak RSS: the rusage ``wait4`` gives would include this
process's memory, carried over the exec.) ``settle_inodes`` waits until creating a file costs
what it does on a settled disk: the floor of a page's writing, which varies with the disk.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from benchmarks.processes import free_port, wait_ready

#: Seconds between two samples of the process tree's memory.
SAMPLE_SECONDS = 0.2


@dataclass(frozen=True, slots=True)
class Run:
    returncode: int
    stdout: str
    stderr: str
    spawned: float  # time.monotonic() just before the process started
    ended: float  # time.monotonic() when it had exited
    peak_tree_pss_mb: float  # the process and its descendants together, sampled
    cpu_user: float  # seconds of CPU in user space, the process and its reaped descendants
    cpu_system: float  # seconds of CPU in the kernel, likewise
    #: The kernel's high-water mark of the largest of the process and its reaped descendants.
    peak_rss_mb: float = 0.0

    @property
    def seconds(self) -> float:
        return self.ended - self.spawned


@contextmanager
def companion_server(
    database: Path, *, rate_per_minute: int, rate_per_hour: int, log: Path
) -> Iterator[str]:
    """The companion on ``database`` at a free loopback port; yields its /public/v1 url."""
    port = free_port()
    settings = {
        "database": str(database),
        "rate_per_minute": rate_per_minute,
        "rate_per_hour": rate_per_hour,
        "public_url": f"http://127.0.0.1:{port}",
    }
    code = (
        "import json, sys\n"
        "from companion.server import serve\n"
        "from companion.settings import CompanionSettings\n"
        "serve(CompanionSettings(**json.loads(sys.argv[1])), host='127.0.0.1', "
        "port=int(sys.argv[2]))\n"
    )
    with log.open("wb") as out:
        server = subprocess.Popen(
            [sys.executable, "-c", code, json.dumps(settings), str(port)],
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    base = f"http://127.0.0.1:{port}"
    try:
        wait_ready(f"{base}/health/ready", server, log=log)
        yield f"{base}/public/v1"
    finally:
        server.terminate()
        try:
            server.wait(timeout=40)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


def measured_run(
    command: Sequence[str], *, cwd: Path, spawned: float, env: Mapping[str, str] | None = None
) -> Run:
    """Run ``command`` to its end; ``spawned`` is the monotonic time the caller took just
    before, also handed to the process so it can split its own time into phases."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        process = subprocess.Popen(command, cwd=cwd, stdout=out, stderr=err, env=env)
        sampler = _TreeSampler(process.pid)
        sampler.start()
        # wait4 rather than wait: the rusage of the process includes its reaped children's.
        _, status, usage = os.wait4(process.pid, 0)
        ended = time.monotonic()
        process.returncode = os.waitstatus_to_exitcode(status)
        sampler.stop()
        out.seek(0)
        err.seek(0)
        return Run(
            returncode=process.returncode,
            stdout=out.read().decode(errors="replace"),
            stderr=err.read().decode(errors="replace"),
            spawned=spawned,
            ended=ended,
            peak_tree_pss_mb=sampler.peak_kib / 1024,
            cpu_user=usage.ru_utime,
            cpu_system=usage.ru_stime,
            peak_rss_mb=usage.ru_maxrss / 1024,  # KiB on Linux
        )


def file_create_microseconds(folder: Path, count: int = 2_000) -> float:
    """Microseconds to create (and close) one empty file in a fresh folder under ``folder``,
    the mean over ``count``. On this machine's ext4 it ranged from about 20 to 500 the same
    day: at 10,000 pages, 0.2 to 5 s of a render's writing.

    The files stay (they go with the bench's folder): deleted, they would slow the builds
    measured after them. ext4 without a journal skips, at every file it creates, each free
    inode of the group that was freed in the last minutes (``recently_deleted``): after a
    large deletion, creating a file costs a scan of all of them, for minutes."""
    probe = Path(tempfile.mkdtemp(prefix="create-probe-", dir=folder))
    started = time.perf_counter()
    for number in range(count):
        os.close(os.open(probe / f"{number}.html", os.O_WRONLY | os.O_CREAT | os.O_EXCL))
    return (time.perf_counter() - started) / count * 1e6


def settle_inodes(
    folder: Path, *, settled_us: float, limit: float, pause: float = 20.0, count: int = 2_000
) -> tuple[float, float]:
    """Wait until creating a file under ``folder`` costs at most ``settled_us`` microseconds
    (inodes freed by an earlier deletion no longer in the way), ``limit`` seconds at most;
    returns (seconds waited, the last probe's microseconds)."""
    started = time.monotonic()
    microseconds = file_create_microseconds(folder, count)
    while microseconds > settled_us and time.monotonic() - started + pause <= limit:
        time.sleep(pause)
        microseconds = file_create_microseconds(folder, count)
    return time.monotonic() - started, microseconds


class _TreeSampler:
    """Every ``SAMPLE_SECONDS``, the summed PSS of a process and all its descendants."""

    def __init__(self, root: int) -> None:
        self.root = root
        self.peak_kib = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="bench-rss", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()

    def _loop(self) -> None:
        while not self._stop.is_set():
            total = sum(_pss_kib(pid) for pid in _tree(self.root))
            self.peak_kib = max(self.peak_kib, total)
            self._stop.wait(SAMPLE_SECONDS)


def _tree(root: int) -> list[int]:
    """``root`` and its descendants, from the parent ids in /proc."""
    children: dict[int, list[int]] = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            stat = Path(entry.path, "stat").read_text()
        except OSError:
            continue
        # The command name (field 2) may hold spaces and parentheses: split after the last ")".
        parent = int(stat.rsplit(")", 1)[1].split()[1])
        children.setdefault(parent, []).append(int(entry.name))
    found, queue = [], [root]
    while queue:
        pid = queue.pop()
        found.append(pid)
        queue.extend(children.get(pid, []))
    return found


def _pss_kib(pid: int) -> int:
    try:
        text = Path(f"/proc/{pid}/smaps_rollup").read_text()
    except OSError:
        return 0  # gone, or not readable
    for line in text.splitlines():
        if line.startswith("Pss:"):
            return int(line.split()[1])
    return 0
