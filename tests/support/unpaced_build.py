"""`storefront build` against a configured API, without the spec's rate windows.

    python -m tests.support.unpaced_build --api-url URL --key KEY --site-url URL --out ...

The same flags, settings, pipeline, exit statuses and stop lines as the command; the one
difference is the client's pacing: a build against a companion whose limits are lifted (a test
server on loopback) sends as fast as the server answers, as a build of the embedded companion
does, instead of keeping to 600 requests a minute.
"""

from __future__ import annotations

import sys
from asyncio import CancelledError
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
import httpx
from rich.console import Console

from generator.cli import build_parser
from generator.config import BuildConfig, environment, resolve
from generator.errors import StorefrontError
from generator.pipeline import UNLIMITED, ApiAccess, build_site
from generator.summary import print_summary
from generator.xstore import load_descriptor


@asynccontextmanager
async def unpaced(config: BuildConfig) -> AsyncIterator[ApiAccess]:
    assert config.api_url is not None and config.api_key is not None
    timeout = httpx.Timeout(30.0, connect=10.0)
    async with httpx.AsyncClient(base_url=config.api_url, timeout=timeout) as http:
        yield http, config.api_key, UNLIMITED


def main(argv: Sequence[str]) -> int:
    args = build_parser("build").parse_args(["build", *argv])
    console = Console(stderr=True, highlight=False)
    try:
        config = resolve(args, environ=environment(), descriptor=load_descriptor(Path(args.xstore)))
        summary = anyio.run(lambda: build_site(config, console, connect=unpaced))
    except StorefrontError as exc:
        print(f"storefront build: error: {exc}", file=sys.stderr)
        return exc.exit_code
    except (KeyboardInterrupt, CancelledError):  # as the command line takes them
        print("storefront build: interrupted", file=sys.stderr)
        return 130
    print_summary(summary, Console(highlight=False))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
