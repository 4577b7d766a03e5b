"""`storefront build`: crawl -> normalize -> render -> write -> sitemap, with a summary."""

from __future__ import annotations

import argparse
import time
from collections import Counter
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
import httpx
from rich.console import Console

from generator.client import ApiClient, ClientSettings, RateWindow
from generator.config import BuildConfig, add_setting_flags, environment, resolve
from generator.crawl import crawl
from generator.crawl_settings import CrawlSettings
from generator.embedded import embedded_companion
from generator.errors import ConfigError
from generator.progress import BuildProgress
from generator.render import RenderedPage, build_environment, render_site
from generator.site_plan import plan_site
from generator.summary import BuildSummary, print_summary
from generator.write import write_site
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


async def build_site(config: BuildConfig, console: Console) -> BuildSummary:
    """The whole build; raises a StorefrontError (previous output intact) when anything fails."""
    started = time.perf_counter()
    with BuildProgress(console) as progress:
        async with _api(config) as (http, key, windows):
            client = ApiClient(
                http,
                key=key,
                settings=ClientSettings(concurrency=config.concurrency, windows=windows),
                observer=progress,
            )
            catalog = await crawl(
                client,
                observer=progress,
                settings=CrawlSettings(concurrency=config.concurrency),
            )
            stats = client.stats
        plan = plan_site(catalog, config.site_url)
        env = build_environment(config.templates)
        progress.rendering(len(plan.pages))

        def pages_rendered() -> Iterator[RenderedPage]:
            for page in render_site(plan, env):
                progress.rendered()
                yield page

        report = await anyio.to_thread.run_sync(
            lambda: write_site(
                pages_rendered(),
                config.out,
                theme_dir=config.templates,
                public_dir=_public_dir(config),
                site_url=config.site_url,
            )
        )
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
        source=config.api_url or "embedded companion (demo store)",
    )


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
    with embedded_companion(products=config.demo_products) as (app, key):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(
            transport=transport, base_url="http://localhost/public/v1", timeout=timeout
        ) as http:
            yield http, key, UNLIMITED

