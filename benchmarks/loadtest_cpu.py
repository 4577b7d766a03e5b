"""CPU time of a server's worker processes, read from /proc (Linux), for CPU per request.

The workers are the descendants of the process the load test started (uvicorn's supervisor,
which only watches them, is left out). PostgreSQL's own CPU is not counted.
"""

from __future__ import annotations

import os
from pathlib import Path

TICKS = os.sysconf("SC_CLK_TCK")


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


def cpu_seconds(pids: list[int]) -> float:
    """User plus system time of these processes (those still alive), in seconds."""
    total = 0
    for pid in pids:
        fields = _stat(pid)
        if fields is not None:
            total += int(fields[11]) + int(fields[12])  # utime, stime (fields 14 and 15)
    return total / TICKS
