"""Memory a full crawl freed is given back to the system before the render starts."""

from __future__ import annotations

import platform
import sys

from generator import memory


def test_memory_is_given_back_where_the_c_library_can() -> None:
    memory.give_back()  # never fails, whatever the C library
    if sys.platform.startswith("linux") and platform.libc_ver()[0] == "glibc":
        trim = memory._malloc_trim()
        assert trim is not None
        assert trim(0) in (0, 1)  # glibc: 1 when memory was released, else 0
