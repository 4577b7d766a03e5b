"""docs/benchmarks.md: each benchmark writes its own section, the others stay as they are.

A section starts at its heading (``## `` and the benchmark's fixed title; the run's date may
follow on the heading line) and runs to the next ``## ``. A benchmark with no section yet gets
one at the end of the document.
"""

from __future__ import annotations

import os
import platform
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DOC = REPO / "docs" / "benchmarks.md"


def write_section(text: str, heading: str, path: Path = DOC) -> None:
    """``text`` in place of the section that starts with ``heading``, else at the end."""
    old = path.read_text(encoding="utf-8") if path.exists() else ""
    found = 0 if old.startswith(heading) else old.find("\n" + heading) + 1
    if found == 0 and not old.startswith(heading):
        path.write_text(old.rstrip("\n") + "\n\n" + text.rstrip("\n") + "\n", encoding="utf-8")
        return
    at = found
    after = old.find("\n## ", at + len(heading))
    rest = old[after + 1 :] if after >= 0 else ""
    path.write_text(old[:at] + text.rstrip("\n") + "\n" + ("\n" + rest if rest else ""), "utf-8")


def machine() -> str:
    """The machine a run measured: CPUs, memory, Python and kernel."""
    memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 1024**3
    cpu = platform.processor() or platform.machine()
    return (
        f"{len(os.sched_getaffinity(0))} CPUs ({cpu}), {memory:.1f} GiB memory, "
        f"Python {platform.python_version()}, {platform.system()} {platform.release()}"
    )
