"""`storefront build`: crawl -> normalize -> render -> write -> sitemap, with a summary."""

from __future__ import annotations

import argparse
import functools
import gc
import time
from collections import Counter
from collections.abc import AsyncIterator, Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import AbstractAsyncContextManager, asynccontextmanager, contextmanager
from dataclasses import dataclass
from pathlib import Path

import anyio
import httpx
from rich.console import Console

from generator.cache_crawl import CrawlCache
from generator.client import ApiClient, ClientSettings, ClientStats, RateWindow
from generator.config import BuildConfig, add_setting_flags, environment, resolve
from generator.crawl import crawl
from generator.crawl_settings import CrawlSettings
from generator.errors import ConfigError
from generator.incremental import BuildState, compiled_templates
from generator.incremental_write import write_incremental
from generator.memory import give_back, leave_to_exit
from generator.model import Catalog, PackedProduct
from generator.progress import BuildProgress
from generator.render import build_environment
from generator.site_plan import FramesAhead, plan_site
from generator.summary import BuildSummary, print_summary
from generator.xstore import load_descriptor

# The embedded companion serves this process alone: no rate limit worth pacing for.
UNLIMITED = (RateWindow(10_000_000, 60.0),)


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "build",
        help="build the static storefront",
        description="Crawl the store's public API and write the static storefront. "
        "With no API url the embedded companion serves the demo store.",
    )
    add_setting_flags(parser)
    parser.add_argument(
        "--xstore",
        default="xstore.json",
        help="deployment descriptor to read (default: xstore.json; missing is fine)",
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    console = Console(stderr=True, highlight=False)
    descriptor = load_descriptor(Path(args.xstore))
    for warning in descriptor.warnings:
        console.print(f"[yellow]warning:[/yellow] {warning}")
    config = resolve(args, environ=environment(), descriptor=descriptor)
    summary = anyio.run(build_site, config, console)
    print_summary(summary, Console(highlight=False))
    return 0


#: Opens the API of a build: (HTTP client whose base url ends in /public/v1, key, rate windows).
ApiAccess = tuple[httpx.AsyncClient, str, tuple[RateWindow, ...]]
Connect = Callable[[BuildConfig], AbstractAsyncContextManager[ApiAccess]]


async def build_site(
    config: BuildConfig, console: Console, *, connect: Connect | None = None
) -> BuildSummary:
    """The whole build; raises a StorefrontError (previous output intact) when anything fails.

    Incremental unless ``--full``: the crawl reuses unchanged details from the crawl cache and
    the writer re-renders only pages whose inputs moved (see ``incremental``). ``--from-cache``
    asks no API at all and renders the last crawl. Build state lives in ``--cache-dir``.
    """
    started = time.perf_counter()
    with _collecting_less() as keep, BuildProgress(console) as progress:
        loading: list[Future[BuildState | None]] = []
        ahead = FramesAhead()  # product pages planned while the crawl waits for the API
        with ThreadPoolExecutor(max_workers=1) as reader:

            def load_state() -> None:
                # The last build's records are read while the crawl waits for the API; not
                # before its first requests are out (unpickling holds the interpreter).
                if not config.full and not loading:
                    loading.append(reader.submit(BuildState.load, config.cache_dir))

            crawled = await crawl_catalog(
                config,
                progress,
                connect or _api,
                meanwhile=load_state,
                # A whole render plans every page anyway, together after the crawl.
                on_product=None if config.full else ahead.add,
                keep=keep,
            )
        previous = loading[0].result() if loading else None
        keep()  # the catalog lives to the end of the build
        plan = plan_site(crawled.catalog, config.site_url, ahead=ahead)
        ahead.frames.clear()  # in the plan now
        env = build_environment(config.templates, compiled=compiled_templates(config.cache_dir))
        progress.rendering(len(plan.pages))
        result = await anyio.to_thread.run_sync(
            lambda: write_incremental(
                plan,
                env,
                config.out,
                theme_dir=config.templates,
                previous=previous,
                workers=config.workers,
                public_dir=_public_dir(config),
                on_page=progress.rendered,
                before_commit=lambda: BuildState.forget(config.cache_dir),
            )
        )
        # Saved only once the new output is in place: state always describes what is there.
        result.state.save(config.cache_dir)
        if crawled.cache is not None:
            crawled.cache.save()
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
        seconds=time.perf_counter() - started,
        source=_source(config),
    )


@dataclass(frozen=True, slots=True)
class Crawled:
    catalog: Catalog
    stats: ClientStats
    cache: CrawlCache | None  # settled, to save once the output is in place; None offline
    reused: int  # answers taken from the crawl cache without a request


@contextmanager
def _collecting_less() -> Iterator[Callable[[], None]]:
    """A build creates hundreds of thousands of small records (the catalog, then the plan's
    pages) and frees almost none of them: at Python's default pace (a collection every 700
    allocations) the cycle collector scans them again and again, which costs a replay from the
    cache about half its time and the plan about a third of its own. Collect a hundred times
    less often while building; and what the build calls ``keep`` for (the catalog, once
    crawled, and a rebuild's replayed products as they come) is never scanned again until the
    build ends: the plan of a large store spent almost half its time in collections scanning
    the catalog, and a rebuild's replay a second in collections of what it had replayed."""
    threshold = gc.get_threshold()
    gc.set_threshold(max(threshold[0], 70_000), *threshold[1:])
    try:
        yield gc.freeze
    finally:
        gc.unfreeze()
        gc.set_threshold(*threshold)


async def crawl_catalog(
    config: BuildConfig,
    progress: BuildProgress,
    connect: Connect,
    *,
    meanwhile: Callable[[], None] | None = None,
    on_product: Callable[[PackedProduct], None] | None = None,
    keep: Callable[[], None] | None = None,
) -> Crawled:
    """The catalog: from the API (reusing the crawl cache unless --full) or, with
    --from-cache, from the last crawl alone; ``meanwhile``, ``on_product`` and ``keep`` as
    ``crawl`` has them."""
    settings = CrawlSettings(concurrency=config.concurrency)
    # The one crawl of the build (with the API, or from the cache alone).
    crawling = functools.partial(
        crawl,
        observer=progress,
        settings=settings,
        meanwhile=meanwhile,
        on_product=on_product,
        keep=keep,
    )
    if config.from_cache:
        cache = CrawlCache.open(config.cache_dir)
        if not len(cache):
            raise ConfigError(
                f"--from-cache: no crawl cache in {config.cache_dir}; "
                "run storefront build with the API once first"
            )
        catalog = await crawling(None, cache=cache)
        return Crawled(catalog, ClientStats(), None, reused=cache.reused)
    cache = (
        CrawlCache.empty(config.cache_dir)
        if config.full
        else CrawlCache.open(config.cache_dir, in_background=True)
    )
    async with connect(config) as (http, key, windows):
        client = ApiClient(
            http,
            key=key,
            settings=ClientSettings(concurrency=config.concurrency, windows=windows),
            observer=progress,
        )
        catalog = await crawling(client, cache=cache)
    cache.settle()  # what it no longer needs is freed for the plan and the render
    written = CrawlCache.written(cache)
    if written is not None:
        # A whole crawl's records lie scattered among the holes its answers' decoding left, and
        # the build's memory stays that large. Read back from the file just written, the
        # catalog (the same records) fills those holes, and the plan and render fit beside it.
        del catalog
        give_back()
        # Not kept as it goes (``keep``): freezing would keep whatever garbage the crawl left
        # for the collector with it, for the rest of the build.
        catalog = await crawl(None, settings=settings, cache=written, on_product=on_product)
    return Crawled(catalog, client.stats, cache, reused=cache.reused)


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
