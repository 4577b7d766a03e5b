"""CPU time of a server's worker processes, read from /proc (Linux), for CPU per request.

The workers are the descendants of the process the load test started (uvicorn's supervisor,
which only watches them, is left out). PostgreSQL's own CPU is not counted.

Each thread's run time is read in nanoseconds (``/proc/PID/task/TID/schedstat``): a process's
``utime`` and ``stime`` come in clock ticks of 10 ms, cut off at each reading, which made the CPU
of one worker over a ten-second turn (about 130 ms) wrong by up to 15%. A thread's time counts
from the first reading that saw it; one that ended between two readings takes its time in
between with it (anyio's worker threads end after ten idle seconds, so those did little).
"""

from __future__ import annotations

import os
from pathlib import Path

TICKS = os.sysconf("SC_CLK_TCK")

#: Nanoseconds each thread had run, by (process id, thread id).
CpuReading = dict[tuple[int, int], int]


def _stat(pid: int) -> list[str] | None:
    try:
        raw = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    # The command name, in parentheses, may hold spaces: split after its closing one.
    return raw[raw.rindex(")") + 2 :].split()


def descendants(root: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and (fields := _stat(int(entry.name))) is not None:
            children.setdefault(int(fields[1]), []).append(int(entry.name))
    found: list[int] = []
    todo = list(children.get(root, []))
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo.extend(children.get(pid, []))
    return found


def _thread_nanoseconds(pid: int, tid: int) -> int | None:
    task = Path(f"/proc/{pid}/task/{tid}")
    try:
        return int((task / "schedstat").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        pass
    try:  # a kernel without schedstat: the thread's ticks
        raw = (task / "stat").read_text()
    except OSError:
        return None
    fields = raw[raw.rindex(")") + 2 :].split()
    return (int(fields[11]) + int(fields[12])) * 1_000_000_000 // TICKS


def cpu_reading(pids: list[int]) -> CpuReading:
    """How long each thread of these processes (those still alive) has run."""
    reading: CpuReading = {}
    for pid in pids:
        try:
            tids = [int(name) for name in os.listdir(f"/proc/{pid}/task")]
        except OSError:
            continue
        for tid in tids:
            ran = _thread_nanoseconds(pid, tid)
            if ran is not None:
                reading[(pid, tid)] = ran
    return reading


def cpu_seconds_since(before: CpuReading, pids: list[int]) -> float:
    """Seconds of CPU these processes used since ``before`` was read."""
    return sum(cpu_by_process_since(before, pids).values())


def cpu_by_process_since(before: CpuReading, pids: list[int]) -> dict[int, float]:
    """Seconds of CPU each of these processes used since ``before`` was read."""
    used: dict[int, int] = {}
    for (pid, tid), ran in cpu_reading(pids).items():
        used[pid] = used.get(pid, 0) + ran - before.get((pid, tid), 0)
    return {pid: nanoseconds / 1e9 for pid, nanoseconds in used.items()}


def connection_owners(pids: list[int]) -> dict[int, int]:
    """The worker process holding each TCP connection to these processes, by the client's
    port (IPv4 and IPv6, from /proc): a load generator's connection and the worker its
    request goes to."""
    owners: dict[int, int] = {}  # socket inode -> process
    for pid in pids:
        try:
            fds = os.listdir(f"/proc/{pid}/fd")
        except OSError:
            continue
        for fd in fds:
            try:
                target = os.readlink(f"/proc/{pid}/fd/{fd}")
            except OSError:
                continue
            if target.startswith("socket:["):
                owners[int(target[8:-1])] = pid
    found: dict[int, int] = {}
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            owner = owners.get(int(fields[9]))
            if owner is not None:  # the worker's end: its remote port is the client's
                found[int(fields[2].rsplit(":", 1)[1], 16)] = owner
    return found
