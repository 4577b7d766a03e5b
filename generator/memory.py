"""Memory the build no longer needs, given back to the system: ``give_back()``.

CPython keeps small objects in arenas of its own, returned to the system only once empty, and
everything larger (a product's pack, long texts, the tables of large dicts and lists) in the C
library's heap, which keeps what is freed for later. A full crawl frees most of what it built
(its catalog is read again from the crawl cache it wrote); asking the C library to trim then
returns those pages, so the render and its workers (forked from the build, each copying the
pages it touches) do not start from the crawl's peak. glibc only (``malloc_trim``); elsewhere
nothing happens.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import gc
from collections.abc import Callable


def give_back() -> None:
    """Collect what cycles hold, then return the C heap's free pages to the system."""
    gc.collect()
    trim = _malloc_trim()
    if trim is not None:
        trim(0)


@functools.cache
def _malloc_trim() -> Callable[[int], int] | None:
    name = ctypes.util.find_library("c")
    if name is None:
        return None
    try:
        trim: Callable[[int], int] = ctypes.CDLL(name).malloc_trim
    except (OSError, AttributeError):  # not glibc
        return None
    return trim
