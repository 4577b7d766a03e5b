"""A serving worker's start-up heap, kept out of the garbage collector's full passes.

A worker imports its frameworks and builds its app once: well over 100,000 tracked objects
that live as long as the process. A full collection walks every one of them, and the request
whose allocation set it off waits until it ends. Frozen once the app is built, they are left
out of every later pass; what requests make is collected as before.

Only a server's entry points call it, once per process: frozen objects are never freed, so a
process that builds and drops many apps (the tests) must not.
"""

from __future__ import annotations

import gc


def freeze_start_up() -> None:
    """Collect start-up's garbage, then freeze what is left (``gc.freeze``)."""
    gc.collect()
    gc.freeze()
