"""Render many pages across processes, in order: ``render_many(plan, pages, env, workers)``.

Rendering is pure CPU (Jinja), so threads do not help; a pool of forked processes does. The plan
and the Jinja environment (templates already compiled) are handed to the workers by ``fork``
itself - set in ``_shared`` just before the pool starts and cleared after - so nothing large is
pickled per task: a task is a range of indexes, its answer the rendered pages. Results come back
in input order, so the output is byte-for-byte the single-process output.

Small jobs render in this process: starting workers costs more than it saves.
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor

import jinja2

from generator.render import RenderedPage, render_recorded
from generator.site_plan import Page, SitePlan

#: Fewer pages than this render in-process.
PARALLEL_MIN_PAGES = 1_000
#: Pages per task: large enough to amortise the round trip, small enough to share the work.
CHUNK_PAGES = 250

Rendered = tuple[RenderedPage, tuple[str, ...]]

# Set by the parent just before forking, read by the forked workers; never set at import time.
_shared: tuple[SitePlan, Sequence[Page], jinja2.Environment] | None = None


def default_workers() -> int:
    return max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 1)


def render_many(
    plan: SitePlan,
    pages: Sequence[Page],
    env: jinja2.Environment,
    *,
    workers: int,
    min_pages: int = PARALLEL_MIN_PAGES,
    chunk: int = CHUNK_PAGES,
) -> Iterator[Rendered]:
    """Each page rendered with its link dependencies, in the order given."""
    if workers <= 1 or len(pages) < min_pages or not _can_fork():
        for page in pages:
            yield render_recorded(plan, page, env)
        return
    for name in {page.template for page in pages}:
        env.get_template(name)  # compile once here; every worker inherits the compiled code
    global _shared
    _shared = (plan, pages, env)
    try:
        context = multiprocessing.get_context("fork")
        with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
            spans = [(start, start + chunk) for start in range(0, len(pages), chunk)]
            for rendered in pool.map(_render_chunk, spans):
                yield from rendered
    finally:
        _shared = None


def _render_chunk(span: tuple[int, int]) -> list[Rendered]:
    assert _shared is not None, "render workers must be forked by render_many"
    plan, pages, env = _shared
    start, stop = span
    return [render_recorded(plan, page, env) for page in pages[start:stop]]


def _can_fork() -> bool:
    return "fork" in multiprocessing.get_all_start_methods()
