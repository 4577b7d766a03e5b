"""Memory a full crawl freed is given back to the system before the render starts; what a build
leaves to a process ending at once is kept until then."""

from __future__ import annotations

import platform
import sys
import weakref

import pytest

from generator import memory


def test_memory_is_given_back_where_the_c_library_can() -> None:
    memory.release_memory()  # never fails, whatever the C library
    if sys.platform.startswith("linux") and platform.libc_ver()[0] == "glibc":
        trim = memory._malloc_trim()
        assert trim is not None
        assert trim(0) in (0, 1)  # glibc: 1 when memory was released, else 0


class _Record:
    """Something a build made (weakly referenceable)."""


def test_a_process_ending_at_once_keeps_what_the_build_leaves_until_then(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(memory, "_LEFT", [])
    monkeypatch.setattr(memory, "_ending", [])
    freed, kept = _Record(), _Record()
    freed_ref, kept_ref = weakref.ref(freed), weakref.ref(kept)

    memory.leave_to_exit(freed)  # a process that goes on (watch, tests): freed as usual
    del freed
    assert freed_ref() is None

    memory.ending_soon()
    memory.leave_to_exit(kept)
    del kept
    assert kept_ref() is not None  # left to the exit
