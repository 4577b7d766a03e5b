"""Render (and write) many pages across processes, in order.

    write_many(plan, pages, env, folder, workers=2)   -> PageOutput per page (file written)

Rendering is pure CPU (Jinja), so threads do not help; a pool of forked processes does. The work
(the plan, the Jinja environment with its templates compiled, the pages) is handed to the workers
by ``fork`` itself - set in ``_shared`` just before the pool starts and cleared after - so nothing
large is pickled per task: a task is a range of indexes. ``write_many``'s workers write each page
into the staging folder themselves and answer only what the build records (the file's size, the
urls the page asked about, its fingerprint when asked for), not the HTML. Results come back in
input order, so the output is byte-for-byte the single-process output. A worker retires after
``PAGES_PER_WORKER`` pages' worth of work and a fresh one is forked in its place (not in a
render of at most twice that a worker), so what a worker copies of the parent's memory stays
bounded however large the store: a listing page counts for its cards, each of which copies a
memory page or two. A worker that ends in the middle of its pages (killed from outside) fails
the render with ``WorkerLost`` instead of leaving it waiting.

Each process keeps its own ``{% fragment %}`` outputs (``fragments``) for the pages it renders.
Before the workers fork, this process renders the all-products listing (``_cards_first``, up
to ``CARDS_AHEAD`` cards): every worker then inherits each listed product's card rendered, where
a worker that retires after a few listings would render most of its cards again, once for
each worker generation that meets them. Small jobs run in this process: starting workers costs more
than it saves.
"""

from __future__ import annotations

import gc
import mmap
import multiprocessing
import os
from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass
from multiprocessing.pool import IMapIterator
from pathlib import Path
from typing import Any, TypeVar

import jinja2

from generator.errors import WorkerLost
from generator.plan.site_plan import Page, ProductListing, SitePlan
from generator.render.fragments import FragmentCache
from generator.render.pages import render_recorded
from generator.write.output import WrittenPage, write_page

#: Fewer pages than this render in-process.
PARALLEL_MIN_PAGES = 1_000
#: Pages per task (in weight, ``_weight``): large enough to amortise the round trip, small
#: enough to share the work.
CHUNK_PAGES = 250
#: Pages (in weight) a worker takes before a fresh one, forked from this process again, takes
#: its place.
#: A worker copies the memory pages of this process it touches (reference counts are writes),
#: and every page it renders touches its own objects, spread across the heap: kept for the
#: whole render, a large store's workers would grow to a copy of the catalog each.
PAGES_PER_WORKER = 2000

T = TypeVar("T")

#: How often a render waiting for pages checks that the workers rendering them still live.
WATCH_SECONDS = 1.0

# Set by the parent just before forking, read by the forked workers; never set at import time:
# what renders one page, and which process renders each span (see ``_in_order``).
_shared: tuple[Callable[[int], Any], Any, Sequence[int]] | None = None


@dataclass(frozen=True, slots=True)
class PageOutput:
    """One page written: its file, the urls whose href it asked, its fingerprint if asked."""

    written: WrittenPage
    urls: tuple[str, ...]
    fingerprint: str | None


def write_many(
    plan: SitePlan,
    pages: Sequence[Page],
    env: jinja2.Environment,
    folder: Path,
    *,
    workers: int,
    fingerprint: Callable[[Page], str] | None = None,
    min_pages: int = PARALLEL_MIN_PAGES,
    chunk: int = CHUNK_PAGES,
) -> Generator[PageOutput, None, None]:
    """Each page rendered and written under ``folder``, in the order given; with
    ``fingerprint``, each page's fingerprint is computed in the same worker. Closing it stops
    the workers."""
    fragments = FragmentCache()
    folders: set[str] = set()  # folders this process already made

    def one(index: int) -> PageOutput:
        page = pages[index]
        rendered, urls = render_recorded(plan, page, env, fragments)
        written = write_page(folder, rendered, made=folders)
        return PageOutput(written, urls, fingerprint(page) if fingerprint is not None else None)

    processes = _prepared(env, pages, workers, min_pages)
    if processes <= 1:
        return _in_order(one, [], range(len(pages)), 1, [], None)
    weights = [_weight(page) for page in pages]
    # Only for workers that retire: one that renders all its pages keeps every card it rendered.
    retire = _retiring(len(_spans(weights, chunk)), processes, chunk) is not None
    first = _cards_first(pages) if retire else []
    taken = set(first)
    rest = [index for index in range(len(pages)) if index not in taken]
    spans = _spans([weights[index] for index in rest], chunk)
    return _in_order(one, first, rest, processes, spans, _retiring(len(spans), processes, chunk))


def _cards_first(pages: Sequence[Page]) -> list[int]:
    """The listing pages that between them show every listed product's card: rendered in this
    process before the workers fork, so that each card is rendered once and every worker
    inherits it, instead of once in each worker whose pages show it (a worker retires after a
    few listings' worth of cards). The all-products listing first, which shows each product
    once; then any other listing page most of whose cards it did not show; up to
    ``CARDS_AHEAD`` cards."""
    listings = [
        (index, cards)
        for index, page in enumerate(pages)
        if (cards := getattr(page.subject, "products", ()))
    ]
    listings.sort(key=lambda listing: type(pages[listing[0]].subject) is not ProductListing)
    seen: set[int] = set()
    first = []
    for index, cards in listings:
        if len(seen) >= CARDS_AHEAD:
            break
        new = [id(card) for card in cards if id(card) not in seen]
        if 2 * len(new) > len(cards):
            first.append(index)
            seen.update(new)
    return sorted(first)


#: The cards rendered in this process before the workers fork, at most (kept in memory the
#: workers share, so bounded): a larger store's workers render the rest as they meet them.
CARDS_AHEAD = 10_000


def _weight(page: Page) -> int:
    """What rendering ``page`` makes a worker copy of this process's memory, in product pages:
    a listing's cards lie scattered across the heap, and each it shows copies a memory page or
    two, where a product page copies about one."""
    return 1 + len(getattr(page.subject, "products", ())) // 2


def _retiring(spans: int, workers: int, chunk: int) -> int | None:
    """The spans a worker renders before a fresh one takes its place; None (never) when all
    the spans are at most twice the workers' shares: a fresh worker would then be forked for
    the last span or two, and its first pages cost it the copying of the memory it touches,
    which a small render does not win back."""
    share = max(1, PAGES_PER_WORKER // chunk)
    return None if spans <= 2 * workers * share else share


def _spans(weights: Sequence[int], chunk: int) -> list[tuple[int, int]]:
    """The pages cut into spans of about ``chunk`` in weight: a worker retires after as many
    spans (``PAGES_PER_WORKER // chunk``), so after about as much memory copied, whatever its
    pages."""
    spans: list[tuple[int, int]] = []
    start = 0
    total = 0
    for index, weight in enumerate(weights):
        total += weight
        if total >= chunk:
            spans.append((start, index + 1))
            start, total = index + 1, 0
    if start < len(weights):
        spans.append((start, len(weights)))
    return spans


def _prepared(env: jinja2.Environment, pages: Sequence[Page], workers: int, min_pages: int) -> int:
    """The number of processes to use; templates compiled first when there are several."""
    if workers <= 1 or len(pages) < min_pages or not _can_fork():
        return 1
    for name in {page.template for page in pages}:
        env.get_template(name)  # compile once here; every worker inherits the compiled code
    return workers


def _in_order(
    one: Callable[[int], T],
    first: Sequence[int],
    rest: Sequence[int],
    workers: int,
    spans: Sequence[tuple[int, int]],
    spans_per_worker: int | None,
) -> Generator[T, None, None]:
    """``one(index)`` for every index of ``first`` and ``rest``, in order: the ``first`` in
    this process before the workers fork, the ``rest`` (cut into ``spans`` of positions in it)
    in the workers."""
    count = len(first) + len(rest)
    if workers <= 1:
        for index in range(count):
            yield one(index)
        return
    done_here = {index: one(index) for index in first}
    global _shared
    # The workers share the parent's memory until they write to it; the garbage collector
    # would write to every object it scans (and so copy the whole heap into each worker).
    # Frozen objects are never scanned. Frozen until the end: workers are forked again as
    # they retire (``PAGES_PER_WORKER``). What was frozen before (by the build) stays so.
    frozen_before = gc.get_freeze_count() > 0
    gc.freeze()
    try:
        context = multiprocessing.get_context("fork")
        tasks = [(number, start, stop) for number, (start, stop) in enumerate(spans)]
        # Each span's slot holds the process rendering it, 0 before and after: the pool does
        # not notice a worker that ends in the middle of a span (its pages would never come).
        # An anonymous shared mapping, which forked workers share: multiprocessing's RawArray
        # would import ctypes and make a file for it.
        rendering = memoryview(mmap.mmap(-1, 4 * max(1, len(tasks)))).cast("i")
        _shared = (one, rendering, rest)
        with context.Pool(workers, maxtasksperchild=spans_per_worker) as pool:
            results = pool.imap(_run_span, tasks)
            pending: list[T] = []
            for index in range(count):
                if index in done_here:
                    yield done_here.pop(index)
                    continue
                if not pending:
                    pending = _next(results, rendering)[::-1]
                yield pending.pop()
    finally:
        if not frozen_before:
            gc.unfreeze()
        _shared = None


def _next(results: IMapIterator[list[T]], rendering: Sequence[int]) -> list[T]:
    """The next span's results, checking every ``WATCH_SECONDS`` that its workers still live."""
    while True:
        try:
            return results.next(timeout=WATCH_SECONDS)
        except multiprocessing.TimeoutError:
            for pid in rendering:
                if pid and not _alive(pid):
                    raise WorkerLost(
                        f"render worker {pid} ended in the middle of its pages (killed by the "
                        "system, out of memory?); nothing was written to the output"
                    ) from None


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)  # no signal: only whether the process is there
    except ProcessLookupError:
        return False
    except PermissionError:
        pass  # there, under another user
    return True


def _run_span(span: tuple[int, int, int]) -> list[Any]:
    assert _shared is not None, "render workers must be forked by write_many"
    one, rendering, rest = _shared
    number, start, stop = span
    rendering[number] = os.getpid()
    done = [one(rest[position]) for position in range(start, stop)]
    rendering[number] = 0
    return done


def _can_fork() -> bool:
    return "fork" in multiprocessing.get_all_start_methods()
