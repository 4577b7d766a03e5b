"""`storefront watch`: build, serve like `storefront serve`, and rebuild on every change.

Changes are the theme folder and xstore.json (watchfiles) and the store's content: with a
webhook secret, the companion's signed content-change webhook at ``/_storefront/webhook`` on the
served port (see ``watch.webhook``); without one, a digest of the first list pages polled every
``--poll`` seconds; and the clock, at the moments each build recorded (``watch.schedule``).
Every trigger goes into one queue, so a burst is one rebuild. Open tabs
reload after each good build and show the error of a failed one; the watcher keeps running
either way.
"""

from __future__ import annotations

import argparse
import socket
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from functools import partial
from pathlib import Path
from typing import TextIO

import anyio
import httpx
import uvicorn
from anyio.streams.memory import MemoryObjectReceiveStream
from rich.console import Console
from starlette.types import ASGIApp

from companion.embedding import browsable_origin
from generator.client import ClientSettings
from generator.client.api import ApiClient
from generator.config import (
    WATCH_SETTINGS,
    BuildConfig,
    WatchConfig,
    add_setting_flags,
    environment,
    resolve,
    resolve_watch,
)
from generator.errors import ConfigError
from generator.pipeline import UNLIMITED, ApiAccess, Connect
from generator.plan.paths import base_path
from generator.serve.api_proxy import serve_log_config
from generator.serve.app import SameOrigin, mounted
from generator.serve.listen import listening_socket
from generator.serve.stack import embedded_stack, proxy_stack
from generator.watch.loop import Rebuilder, run_rebuilds, trigger_sender, watch_files
from generator.watch.poll import content_digest, poll_content
from generator.watch.reload import LiveReload, ReloadBroadcaster, ReloadEndpoint
from generator.watch.schedule import ScheduledRebuilds
from generator.watch.webhook import WEBHOOK_PATH, WebhookReceiver, WithWebhook
from generator.xstore import load_descriptor

_TIMEOUT = httpx.Timeout(30.0, connect=10.0)
_NO_LIMIT = 10_000_000


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "watch",
        help="build, serve, and rebuild on theme, xstore.json and content changes",
        description="Build the site, serve it with the API on one origin (as `storefront "
        "serve` does) and rebuild incrementally when the theme folder or xstore.json changes "
        "or the store's content changes: on the companion's signed webhook at "
        f"{WEBHOOK_PATH} when --webhook-secret is set, otherwise by polling the first list "
        "pages every --poll seconds. Each build records when its pages change by time alone "
        "(a flash sale's start or end, a banner's end, within --schedule-horizon) and watch "
        "rebuilds then, --schedule-delay seconds later. Open pages reload after a good build "
        "and show the error of a failed one.",
    )
    add_setting_flags(parser)
    add_setting_flags(parser, WATCH_SETTINGS)
    parser.add_argument(
        "--xstore",
        default="xstore.json",
        help="deployment descriptor to read and watch (default: xstore.json; missing is fine)",
    )
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on")
    parser.add_argument("--port", type=int, default=8000, help="port (default: 8000)")
    parser.add_argument(
        "--poll",
        type=float,
        default=10.0,
        help="seconds between content polls, when no webhook secret is set; 0 turns polling "
        "off (default: 10)",
    )
    parser.add_argument(
        "--db",
        default=None,
        help="database of the embedded companion (default: companion.sqlite3 in --cache-dir; "
        "seeded with the demo store when new)",
    )
    parser.set_defaults(func=run)


def watch_console(file: TextIO | None = None) -> Console:
    """Where watch says what it does (standard error): its lines as they are, never cut at 80
    columns when they go to a file or a CI log (rich's width without a terminal)."""
    return Console(file=file, stderr=file is None, highlight=False, emoji=False, soft_wrap=True)


def run(args: argparse.Namespace) -> int:
    if args.poll < 0:
        raise ConfigError(f"--poll: expected seconds >= 0, got {args.poll}")
    console = watch_console()
    xstore = Path(args.xstore)
    descriptor = load_descriptor(xstore)
    for warning in descriptor.warnings:
        console.print(f"[yellow]warning:[/yellow] {warning}")
    config = resolve(args, environ=environment(), descriptor=descriptor)
    watch_config = resolve_watch(args, environ=environment())

    def load_config() -> BuildConfig:
        # xstore.json is read again at each rebuild: an edit to it takes effect.
        return resolve(args, environ=environment(), descriptor=load_descriptor(xstore))

    listening = listening_socket(args.host, args.port)  # before the first build: one line
    broadcaster = ReloadBroadcaster()
    site, connect = _stack(args, config)
    rebuilder = Rebuilder(load_config, console, broadcaster, connect)
    watched = [config.templates] + ([xstore] if xstore.is_file() else [])
    console.print(
        f"Watching {', '.join(str(p) for p in watched)}; serving {config.out} and the API at "
        f"http://{args.host}:{args.port}{base_path(config.site_url)}/ (Ctrl+C stops)"
    )
    if watch_config.webhook_secret:
        console.print(
            f"Content changes: the signed webhook at http://{args.host}:{args.port}"
            f"{WEBHOOK_PATH} (no polling)"
        )
    elif args.poll > 0:
        console.print(f"Content changes: first list pages polled every {args.poll:g} s")
    try:
        with listening:
            anyio.run(
                partial(_watch, site, rebuilder, config, watch_config, watched, args, listening)
            )
    except KeyboardInterrupt:
        return 0
    except BaseExceptionGroup as group:
        # Ctrl-C: the server re-raises it as it stops, inside the task group that runs it.
        if group.split(KeyboardInterrupt)[1] is None:
            return 0
        raise
    return 0


def watch_app(
    site: ASGIApp, broadcaster: ReloadBroadcaster, webhook: WebhookReceiver | None
) -> ASGIApp:
    """The served app: the site with live reload, and the webhook when one is configured."""
    app: ASGIApp = LiveReload(site, ReloadEndpoint(broadcaster))
    return WithWebhook(app, webhook) if webhook is not None else app


async def _watch(
    site: ASGIApp,
    rebuilder: Rebuilder,
    config: BuildConfig,
    watch_config: WatchConfig,
    watched: list[Path],
    args: argparse.Namespace,
    listening: socket.socket,
) -> None:
    send, receive = anyio.create_memory_object_stream[str](1)
    trigger = trigger_sender(send)
    trigger("first build")

    def report(line: str) -> None:
        rebuilder.console.print(line, markup=False)

    scheduled = ScheduledRebuilds(trigger, report, delay=watch_config.schedule_delay)
    rebuilder.on_moments = scheduled.plan
    webhook = None
    if watch_config.webhook_secret:
        webhook = WebhookReceiver(
            watch_config.webhook_secret, trigger, report, collect=rebuilder.received
        )
    app = watch_app(site, rebuilder.broadcaster, webhook)
    server = uvicorn.Server(
        uvicorn.Config(
            app,
            host=args.host,
            port=args.port,
            log_level="warning",
            log_config=serve_log_config(),  # the API proxy's refusals are warnings too
            timeout_graceful_shutdown=1,
        )
    )
    poll = 0.0 if webhook is not None else args.poll
    with send, receive:
        await _serve_and_watch(
            server, listening, rebuilder, config, watched, poll, receive, trigger, scheduled
        )


async def _serve_and_watch(
    server: uvicorn.Server,
    listening: socket.socket,
    rebuilder: Rebuilder,
    config: BuildConfig,
    watched: list[Path],
    poll: float,
    receive: MemoryObjectReceiveStream[str],
    trigger: Callable[[str], None],
    scheduled: ScheduledRebuilds,
) -> None:

    async def rebuilds() -> None:
        try:
            await run_rebuilds(rebuilder, receive)
        except KeyboardInterrupt:  # Ctrl-C during a build, which stops it: the server too
            server.should_exit = True

    async with anyio.create_task_group() as tg:
        tg.start_soon(rebuilds)
        tg.start_soon(scheduled.run)
        tg.start_soon(watch_files, watched, trigger)
        if poll > 0:
            tg.start_soon(_poll, config, rebuilder, poll, trigger)
        await server.serve(sockets=[listening])
        rebuilder.broadcaster.close()
        tg.cancel_scope.cancel()


async def _poll(
    config: BuildConfig, rebuilder: Rebuilder, every: float, trigger: Callable[[str], None]
) -> None:
    connect = rebuilder.connect or _remote
    async with connect(config) as (http, key, windows):
        client = ApiClient(http, key=key, settings=ClientSettings(windows=windows))

        def report(line: str) -> None:
            rebuilder.console.print(line, markup=False)

        digest = partial(content_digest, client)
        await poll_content(
            digest,
            every=every,
            trigger=trigger,
            report=report,
            paused=lambda: rebuilder.building,
        )


def _stack(args: argparse.Namespace, config: BuildConfig) -> tuple[ASGIApp, Connect | None]:
    """The served app, and how builds and polls reach the API: the configured API (the build's
    own connection), or the companion this server runs, so its content changes are seen."""
    root = config.out.resolve()
    base = base_path(config.site_url)  # a site under a path prefix is served there
    if config.api_url is not None:
        return mounted(proxy_stack(root, api_url=config.api_url, key=config.api_key), base), None
    database = Path(args.db) if args.db else config.cache_dir / "companion.sqlite3"
    database.parent.mkdir(parents=True, exist_ok=True)
    stack = embedded_stack(
        root,
        database=str(database),
        public_url=browsable_origin(args.host, args.port) + base,
        seed_products=config.demo_products,
        # Builds and polls of this process go to it too: its rate limits must not pace them.
        rate_per_minute=_NO_LIMIT,
        rate_per_hour=_NO_LIMIT,
    )
    if not isinstance(stack, SameOrigin):  # pragma: no cover - embedded_stack's shape
        raise ConfigError("the embedded stack has no companion to build from")
    return mounted(stack, base), partial(_companion, stack.api)


@asynccontextmanager
async def _companion(companion: ASGIApp, config: BuildConfig) -> AsyncIterator[ApiAccess]:
    from companion.embedding import DEMO_KEY

    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=companion),
        base_url="http://localhost/public/v1",
        timeout=_TIMEOUT,
    ) as http:
        yield http, DEMO_KEY, UNLIMITED


@asynccontextmanager
async def _remote(config: BuildConfig) -> AsyncIterator[ApiAccess]:
    if config.api_url is None or not config.api_key:
        raise ConfigError("--api-url needs a publishable key: pass --key or set STOREFRONT_API_KEY")
    async with httpx.AsyncClient(base_url=config.api_url, timeout=_TIMEOUT) as http:
        yield http, config.api_key, ClientSettings().windows
