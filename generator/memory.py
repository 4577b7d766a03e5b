"""Memory the build no longer needs, given back to the system: ``release_memory()``; and what a
process about to end keeps rather than free: ``leave_to_exit(...)``.

CPython keeps small objects in arenas of its own, returned to the system only once empty, and
everything larger (a product's pack, long texts, the tables of large dicts and lists) in the C
library's heap, which keeps what is freed for later. A full crawl frees most of what it built
(its catalog is copied once crawled, ``pipeline.crawl_catalog``); asking the C library to trim
then returns those pages, so the render and its workers (forked from the build, each copying the
pages it touches) do not start from the crawl's peak. glibc only (``malloc_trim``); elsewhere
nothing happens.

A build that returns frees its catalog, plan and records one object at a time, a noticeable part
of a rebuild of a large store. When the process ends right after it (`storefront build` ends
without finalizing anything, ``cli.quick_exit``), the build leaves them to the exit instead.
"""

from __future__ import annotations

import functools
import gc
from collections.abc import Callable

#: Objects kept until the process ends (``leave_to_exit``), once it is known to end at once.
_LEFT: list[object] = []
_ending: list[bool] = []


def ending_soon() -> None:
    """Say that the process ends once its command returns, freeing nothing one by one."""
    _ending.append(True)


def leave_to_exit(*objects: object) -> None:
    """Keep ``objects`` until the process ends when ``ending_soon`` was said (they would be
    freed for nothing); otherwise leave them to be freed as usual."""
    if _ending:
        _LEFT.extend(objects)


def release_memory() -> None:
    """Collect what cycles hold, then return the C heap's free pages to the system."""
    gc.collect()
    trim = _malloc_trim()
    if trim is not None:
        trim(0)


@functools.cache
def _malloc_trim() -> Callable[[int], int] | None:
    """The C library's ``malloc_trim``, found among the process's own symbols (no search)."""
    # Imported here: only a build that crawled gives memory back (ctypes takes ~10 ms to import).
    import ctypes

    try:
        trim: Callable[[int], int] = ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError):  # not glibc
        return None
    return trim
