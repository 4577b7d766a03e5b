"""The build: crawl -> plan -> render -> write, with progress and a summary.

    summary = await build_site(config, console)

Incremental unless ``--full``: the crawl reuses unchanged answers from the crawl cache and the
write stage re-renders only the pages whose inputs moved. ``--from-cache`` asks no API at all
and renders the last crawl. Build state lives in ``--cache-dir``. Commands (build, watch) parse
their settings and call ``build_site``; nothing else runs the pipeline.
"""

from __future__ import annotations

import errno
import functools
import gc
import sqlite3
import time
from collections import Counter
from collections.abc import AsyncIterator, Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import AbstractAsyncContextManager, asynccontextmanager, contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

import anyio

from generator.cache_folder import check_cache_dir, hold_cache_dir
from generator.client import ClientSettings, ClientStats, RateWindow, RequestLog
from generator.config import BuildConfig
from generator.console import Printer
from generator.crawl import pack_facts
from generator.crawl.pickled import dump_records, load_records
from generator.crawl.settings import CrawlSettings
from generator.errors import ConfigError, CrawlStopped, WriteError
from generator.interrupt import interrupt_flag
from generator.memory import leave_to_exit, release_memory
from generator.model import Catalog
from generator.plan.moments import catalog_moments
from generator.progress import BuildProgress
from generator.replay.cache import CacheUnwritable, CrawlCache
from generator.replay.crawl import crawl
from generator.replay.events import load_payloads, scope_of
from generator.replay.snapshot import (
    Snapshot,
    forget_snapshot,
    load_snapshot,
    save_snapshot,
    snapshot_key,
)
from generator.summary import Budget, BuildSummary
from generator.write.place import hold_output
from generator.write.schedule_file import Schedule, forget_schedule, save_schedule
from generator.write.target import check_output

if TYPE_CHECKING:
    import httpx
    import jinja2

    from generator.client.api import ApiClient
    from generator.plan.site_plan import Page, SitePlan
    from generator.render.theme import Theme
    from generator.write.incremental import BuildState, References
    from generator.write.place import OutputHold

# The embedded companion serves this process alone: no rate limit worth pacing for.
UNLIMITED = (RateWindow(10_000_000, 60.0),)


#: Opens the API of a build: (HTTP client whose base url ends in /public/v1, key, rate windows).
ApiAccess = tuple["httpx.AsyncClient", str, tuple[RateWindow, ...]]
Connect = Callable[[BuildConfig], AbstractAsyncContextManager[ApiAccess]]


async def build_site(
    config: BuildConfig,
    console: Printer,
    *,
    connect: Connect | None = None,
    clock: Callable[[], datetime] | None = None,
) -> BuildSummary:
    """The whole build; raises a StorefrontError (previous output intact) when anything fails.

    ``connect`` opens the API (default: the configured one, or the embedded demo companion);
    ``clock`` is the wall clock (aware UTC) the rebuild moments are found against.
    """
    started = time.perf_counter()
    # The crawl's start: a moment after it may not be in what the API answered.
    begun = (clock or _utc_now)()
    check_output(config.out)  # before the crawl: a wrong --out costs no requests
    # nor a --cache-dir that is not the build's own (before anything is written there)
    check_cache_dir(config.cache_dir, out=config.out, theme=config.templates)
    _check_templates(config)  # and a template that does not parse neither
    pack_facts.forget()  # the last build's (watch): this catalog's are kept as it is read
    # The output's and the cache folder's locks from before the first request to the build's
    # end: a second build of either is refused at once, not after a crawl beside this one.
    with (
        hold_output(config.out) as hold,
        hold_cache_dir(config.cache_dir),
        _collecting_less(),
        BuildProgress(console) as progress,
        interrupt_flag(forward=True) as crawl_interrupted,
    ):
        preparing: list[Future[_Prepared]] = []
        with ThreadPoolExecutor(max_workers=1) as reader:

            def prepare() -> None:
                # Made while the crawl waits for the API; not before its first requests are
                # out (this work holds the interpreter).
                if not preparing:
                    preparing.append(reader.submit(_prepare, config))

            with _cache_errors(config.cache_dir, _UNCHANGED):
                crawled = await crawl_catalog(
                    config, progress, connect or _api, on_walk_started=prepare
                )
            crawled_at = time.perf_counter()
        if crawl_interrupted.is_set():  # a Ctrl-C whose cancellation the crawl did not see
            raise KeyboardInterrupt
        ready = preparing[0].result() if preparing else _prepare(config)
        previous = ready.previous
        if previous is not None and not previous.describes(config.out):
            console.print(
                f"the page records in {config.cache_dir} describe another output folder "
                f"({previous.out_dir}): every page is rendered again; give each output folder "
                "its own --cache-dir"
            )
        # From here the work is in this thread and then in the render's: Ctrl-C sets a flag
        # that the build looks at, rather than cancelling a task that cannot stop a thread.
        with interrupt_flag() as interrupted:
            # The catalog lives to the end of the build: the collector need not scan it again.
            gc.freeze()
            from generator.plan.facet_data import facet_files
            from generator.plan.site_plan import plan_site
            from generator.render.words import page_words
            from generator.write.incremental import save_references
            from generator.write.site import write_incremental

            planning = time.perf_counter()
            plan = plan_site(
                crawled.catalog, config.site_url, words=page_words(ready.theme.folders)
            )
            data_files = facet_files(crawled.catalog, plan)
            rendering = time.perf_counter()
            progress.rendering(len(plan.pages))

            def rendered() -> None:
                if interrupted.is_set():  # Ctrl-C: stop at this page, the output unchanged
                    raise KeyboardInterrupt
                progress.rendered()

            if interrupted.is_set():
                raise KeyboardInterrupt
            result = await anyio.to_thread.run_sync(
                lambda: write_incremental(
                    plan,
                    ready.env,
                    config.out,
                    theme_dir=ready.theme,
                    previous=previous,
                    workers=config.workers,
                    public_dir=_public_dir(config),
                    on_page=rendered,
                    before_commit=lambda: _forget_state(config.cache_dir),
                    session_url=config.session_url,
                    known_references=ready.known_references,
                    data_files=data_files,
                    carried=_carried(ready.theme),
                    hold=hold,
                )
            )
            written_at = time.perf_counter()
            _publish_search_index(crawled.catalog, plan, config, ready.theme, hold)
            indexed_at = time.perf_counter()
        # Saved only once the new output is in place: state always describes what is there.
        moments = catalog_moments(
            crawled.catalog,
            begun,
            horizon=config.schedule_horizon,
            limit=config.schedule_limit,
        )
        with _cache_errors(config.cache_dir, _IN_PLACE):
            result.state.save(config.cache_dir)
            save_schedule(config.cache_dir, Schedule(begun, moments))
            save_references(ready.compiled, result.state.template_references)
            if crawled.cache is not None:
                forget_snapshot(config.cache_dir)  # it was replayed from the crawl replaced now
                crawled.cache.save()
    warnings = result.warnings + _island_warnings(plan, config.out, ready.theme)
    # The process may end right after the build: then what it built is left to the exit.
    leave_to_exit(crawled, plan, result, previous)
    counts = result.counts
    console.print(
        f"fetched {crawled.stats.requests} answers from the API "
        f"({crawled.stats.not_modified} of them 304 Not Modified), {crawled.reused} from the crawl "
        f"cache; rendered {counts.rendered} pages, kept {counts.reused}, "
        f"deleted {counts.removed} (write phase {counts.seconds:.3f} s)"
    )
    report = result.report
    stats = crawled.stats
    return BuildSummary(
        out_dir=report.out_dir,
        pages_by_kind=Counter(page.kind for page in plan.pages),
        files=report.files,
        bytes=report.bytes,
        sitemap_files=report.sitemap_files,
        requests=stats.requests,
        retries=stats.retries,
        rate_limited=stats.rate_limited,
        waited_seconds=stats.limiter_wait_seconds + stats.retry_after_wait_seconds,
        skipped=plan.skipped,
        unusable_urls=plan.unusable_urls,
        seconds=time.perf_counter() - started,
        source=_source(config),
        budget=crawled.budget,
        rendered=counts.rendered,
        kept=counts.reused,
        deleted=counts.removed,
        warnings=warnings,
        moments=moments,
        phases=(
            ("crawl", crawled_at - started),
            ("plan", rendering - planning),
            ("render and write", written_at - rendering),
            ("search index", indexed_at - written_at),
        ),
    )


def _carried(theme: Theme) -> tuple[str, ...]:
    """What a whole new output takes over from the last one until a later stage writes it:
    the search index, so search keeps working between the swap and the index's write."""
    from generator.search_index.store import FOLDER

    return (FOLDER,) if theme.settings.search.index else ()


def _publish_search_index(
    catalog: Catalog, plan: SitePlan, config: BuildConfig, theme: Theme, hold: OutputHold
) -> None:
    """The product index the islands search (``search_index``), unless the theme turns it off
    (its search then asks the API); ``hold``: the output's lock, held since the write stage."""
    from generator.search_index.store import remove_search_index, write_search_index
    from generator.write.output import staging_folder

    search = theme.settings.search
    if not search.index:
        remove_search_index(config.out)
        return
    # Under the output's lock, each file staged where a killed build's leftovers are cleared.
    with _index_errors(), staging_folder(config.out, hold=hold) as (scratch, _):
        write_search_index(
            catalog,
            plan,
            config.out,
            config.cache_dir,
            scratch=scratch,
            synonyms=search.synonyms,
            full=config.full,
        )


@contextmanager
def _index_errors() -> Iterator[None]:
    """The index's stage fails after the pages are in place: its one line says so, whether a
    disk filled (the output's or the cache's) or the output cannot be written."""
    try:
        yield
    except WriteError as exc:
        reason = str(exc).split("; ", 1)[0]  # without what it says of the previous output
        raise WriteError(f"search index not updated: {reason}; {_INDEX}") from None
    except OSError as exc:
        if exc.errno not in _NO_ROOM:
            raise
        where = f" {exc.filename}" if exc.filename else ""
        raise WriteError(
            f"search index not updated: cannot write{where} ({exc.strerror}); {_INDEX}"
        ) from None


def _island_warnings(plan: SitePlan, out: Path, theme: Theme) -> tuple[str, ...]:
    """What the islands read that the theme's pages lack (``island_markup``): one page of each
    type is read back from the output, as the same template made every page of its type."""
    import lxml.html

    from generator.plan.paths import output_file
    from generator.render.island_markup import load_islands, markup_gaps

    islands = load_islands(theme)
    if not islands:
        return ()
    first: dict[str, Page] = {}
    for page in plan.pages:
        first.setdefault(page.kind, page)
    found: list[str] = []
    for kind, page in first.items():
        try:
            doc = lxml.html.document_fromstring((out / output_file(page.path)).read_bytes())
        except (OSError, ValueError):
            continue  # a page that cannot be read back: the audit says so
        shown = kind.replace("_", "-")  # as the page's <body class="page-..."> says it
        found += [gap.text(shown, page.path) for gap in markup_gaps(doc, islands)]
    return tuple(found)


def _check_templates(config: BuildConfig) -> None:
    from generator.render.template_check import PARSED_TEMPLATES, check_templates
    from generator.render.theme import Theme

    check_templates(Theme.of(config.templates), config.cache_dir / PARSED_TEMPLATES)


def _utc_now() -> datetime:
    return datetime.now(UTC)


def _forget_state(cache_dir: Path) -> None:
    """The records of the output about to be replaced: none must describe the new one."""
    from generator.write.incremental import BuildState

    BuildState.forget(cache_dir)
    forget_schedule(cache_dir)


_UNCHANGED = "the previous output is unchanged: free some space and build again"
_IN_PLACE = "the new output is in place; the next build fetches and renders everything again"
_INDEX = "the new pages are in place and the next build writes the index again"
#: A write that fails for want of room: a full disk, a quota, a file size limit.
_NO_ROOM = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG})


@contextmanager
def _cache_errors(cache_dir: Path, then: str) -> Iterator[None]:
    """The build state under --cache-dir that cannot be written (a full disk, most often):
    one line saying what it means for the output, never a traceback."""
    try:
        yield
    except (sqlite3.Error, CacheUnwritable) as exc:
        reason = exc.reason if isinstance(exc, CacheUnwritable) else exc
        raise WriteError(f"{cache_dir}: cannot write the crawl cache ({reason}); {then}") from None
    except OSError as exc:
        if exc.errno not in _NO_ROOM:
            raise
        raise WriteError(
            f"{cache_dir}: cannot write the build state ({exc.strerror}); {then}"
        ) from None


@dataclass(frozen=True, slots=True)
class _Prepared:
    """What the render needs that no answer of the API changes."""

    previous: BuildState | None  # the last build's page records; None with --full
    theme: Theme
    compiled: Path  # where the theme's compiled templates are kept between builds
    env: jinja2.Environment  # over the theme, its compiled templates kept in ``compiled``
    known_references: References | None  # what the templates named, without ``previous``


def _prepare(config: BuildConfig) -> _Prepared:
    """The render's side of the build, made ready. The modules of the stages after the crawl
    are imported here: a build that crawls imports them while its first requests are out."""
    from generator.render.pages import build_environment
    from generator.render.theme import Theme
    from generator.write.incremental import BuildState, compiled_templates, load_references

    previous = None if config.full else BuildState.load(config.cache_dir)
    theme = Theme.of(config.templates)
    compiled = compiled_templates(config.cache_dir)
    env = build_environment(theme, compiled=compiled)
    known = load_references(compiled) if previous is None else None
    return _Prepared(previous, theme, compiled, env, known)


@dataclass(frozen=True, slots=True)
class Crawled:
    catalog: Catalog
    stats: ClientStats
    cache: CrawlCache | None  # prepared, to save once the output is in place; None offline
    reused: int  # answers taken from the crawl cache without a request
    budget: Budget | None = None  # the longest rate window at the crawl's end; None offline


@contextmanager
def _collecting_less() -> Iterator[None]:
    """A build creates hundreds of thousands of small records (the catalog, then the plan's
    pages) and frees almost none of them: at Python's default pace (a collection every 700
    allocations) the cycle collector scans them again and again, which costs a replay from the
    cache about half its time and the plan about a third of its own. Collect a hundred times
    less often while building; what the build freezes (the catalog, once crawled) stays out of
    the collector's scans until the build ends."""
    threshold = gc.get_threshold()
    gc.set_threshold(max(threshold[0], 70_000), *threshold[1:])
    try:
        yield
    finally:
        gc.unfreeze()
        gc.set_threshold(*threshold)


async def crawl_catalog(
    config: BuildConfig,
    progress: BuildProgress,
    connect: Connect,
    *,
    on_walk_started: Callable[[], None] | None = None,
) -> Crawled:
    """The catalog: from the API (reusing the crawl cache unless --full) or, with
    --from-cache, from the last crawl alone; ``on_walk_started`` as ``crawl`` has it."""
    settings = CrawlSettings(
        concurrency=config.concurrency,
        max_retry_after=config.max_retry_after,
        related_products=config.related_products,
    )
    # A rebuild handed events replays the list pages they cannot move (not with --full).
    scope = (
        scope_of(load_payloads(config.event))
        if config.event is not None and not config.full
        else None
    )
    crawling = functools.partial(
        crawl, observer=progress, settings=settings, on_walk_started=on_walk_started
    )
    if config.from_cache:
        # The catalog the last --from-cache build replayed from this very crawl, if kept.
        key = snapshot_key(config.cache_dir, settings)
        snapshot = load_snapshot(config.cache_dir, key) if key is not None else None
        if snapshot is not None:
            return Crawled(snapshot.catalog, ClientStats(), None, reused=snapshot.reused)
        cache = CrawlCache.open(config.cache_dir)
        if not len(cache):
            raise ConfigError(
                f"--from-cache: no crawl cache in {config.cache_dir}; "
                "run storefront build with the API once first"
            )
        catalog = await crawling(None, cache=cache)
        if key is not None:
            save_snapshot(config.cache_dir, key, Snapshot(catalog, cache.reused))
        return Crawled(catalog, ClientStats(), None, reused=cache.reused)
    cache = (
        CrawlCache.empty(config.cache_dir)
        if config.full
        else CrawlCache.open(config.cache_dir, in_background=True)
    )
    # Here: the client brings httpx (about 50 ms to import), which --from-cache never needs.
    from generator.client.api import ApiClient

    async with connect(config) as (http, key, windows):
        client = ApiClient(
            http,
            key=key,
            settings=ClientSettings(
                concurrency=config.concurrency,
                windows=windows,
                max_requests=config.max_requests,
                stop_after=config.deadline,
                max_answer_bytes=config.max_answer_bytes,
                request_deadline=config.request_deadline,
            ),
            observer=progress,
        )
        # What the last builds of this key spent counts against this one's windows.
        log = RequestLog(config.cache_dir, config.api_url or "embedded", key)
        log.restore(client.limiter)
        progress.pacing(client.limiter)
        try:
            catalog = await crawling(client, cache=cache, scope=scope)
        except CrawlStopped as stopped:
            kept = cache.keep_partial()
            raise CrawlStopped(
                f"{stopped}; {kept:,} new answers kept in {config.cache_dir}, the next build "
                "continues from them; the output is unchanged"
            ) from None
        except BaseException:
            cache.keep_partial()  # interrupted or failed: what was fetched is not lost
            raise
        finally:
            log.record(client.limiter)
        budget = _budget(client) if windows != UNLIMITED else None
    cache.prepare_save()  # what it no longer needs is freed for the plan and the render
    if cache.written_whole:
        # A whole crawl's records lie scattered among the holes its answers' decoding left, and
        # the build's memory stays that large. Copied (pickled, the crawl's objects freed, then
        # unpickled), the catalog fills those holes, and the plan and render fit beside it.
        pickled = dump_records(catalog)
        del catalog
        release_memory()
        catalog = _catalog_of(load_records(pickled))
        del pickled
    return Crawled(catalog, client.stats, cache, reused=cache.reused, budget=budget)


def _catalog_of(value: object) -> Catalog:
    assert isinstance(value, Catalog), "a catalog pickled gives a catalog"
    return value


def _budget(client: ApiClient) -> Budget | None:
    """What the client's longest rate window (the spec's hour) has counted, earlier builds'
    requests included; None without windows."""
    windows = client.limiter.windows
    if not windows:
        return None
    longest = max(windows, key=lambda window: window.seconds)
    return Budget(client.limiter.used(longest), longest.limit, longest.seconds)


def _source(config: BuildConfig) -> str:
    if config.from_cache:
        return f"the crawl cache in {config.cache_dir}"
    return config.api_url or "embedded companion (demo store)"


def _public_dir(config: BuildConfig) -> Path | None:
    """xstore.json ``publicDir``: files copied as they are to the output root, when present."""
    name = config.descriptor.public_dir
    if name is None:
        return None
    folder = Path(name)
    return folder if folder.is_dir() else None


@asynccontextmanager
async def _api(
    config: BuildConfig,
) -> AsyncIterator[tuple[httpx.AsyncClient, str, tuple[RateWindow, ...]]]:
    """The HTTP client of this build: the configured API, or the embedded demo companion."""
    import httpx  # here: only a build that asks an API needs it (about 50 ms to import)

    timeout = httpx.Timeout(30.0, connect=10.0)
    if config.api_url is not None:
        if not config.api_key:
            raise ConfigError(
                "--api-url needs a publishable key: pass --key or set STOREFRONT_API_KEY"
            )
        async with httpx.AsyncClient(base_url=config.api_url, timeout=timeout) as http:
            yield http, config.api_key, ClientSettings().windows
        return
    # Imported here: the companion (FastAPI, SQLAlchemy, Alembic) costs most of a second to
    # import, and a build against a configured API or from the cache never needs it.
    from generator.embedded import embedded_companion

    with embedded_companion(products=config.demo_products) as (app, key):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(
            transport=transport, base_url="http://localhost/public/v1", timeout=timeout
        ) as http:
            yield http, key, UNLIMITED
