"""`make bench`: how many requests and how much time builds of the demo store take.

For each size (1,000 and 10,000 products; 100,000 with --large) it seeds the demo store into a
SQLite file once, then runs each build in a fresh process (so times count from process start,
imports and cache loading included) against the real companion over ASGITransport:

- full crawl (--full): requests per product page;
- no-change rebuild and one-product-change rebuild: requests and wall time;
- render throughput of --from-cache --full: pages per second of the whole command;
- peak RSS (the build and its render workers), output size;
- pacing: a crawl of the 1,000-product store under a client rate window against a companion
  enforcing the same rate: share of the allowed rate used, 429 answers seen.

Figures only, no pass/fail. The results are printed and written to docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from generator.theme import island_sizes

REPO = Path(__file__).resolve().parents[1]
SIZES = (1_000, 10_000)
#: Where the sections of other benchmarks (the companion's load test) start in benchmarks.md.
OTHER_SECTIONS = "## Companion under load"
LARGE = 100_000
#: The pacing run: the client keeps under PACING_RATE requests per PACING_WINDOW seconds, the
#: companion enforces the same rate per minute (scaled up from 600/min so the run is short).
PACING_RATE = 100
PACING_WINDOW = 1.0
PACING_SECONDS = 20.0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--large", action="store_true", help="also measure 100,000 products")
    parser.add_argument("--sizes", help="comma-separated sizes instead of 1000,10000")
    parser.add_argument("--child", help=argparse.SUPPRESS)  # JSON job for one build process
    parser.add_argument("--no-write", action="store_true", help="print only; keep the docs")
    args = parser.parse_args()
    if args.child:
        print(json.dumps(_child(json.loads(args.child))))
        return 0
    sizes = [int(s) for s in args.sizes.split(",")] if args.sizes else list(SIZES)
    if args.large:
        sizes.append(LARGE)
    rows = []
    with tempfile.TemporaryDirectory(prefix="storefront-bench-") as folder:
        for size in sizes:
            rows.append(_measure(Path(folder) / str(size), size))
            print(json.dumps(rows[-1]), flush=True)
        pacing = _pacing(Path(folder) / "pacing")
        print(json.dumps(pacing), flush=True)
    text = _report(rows, pacing)
    print(text)
    if not args.no_write:
        _write_doc(REPO / "docs" / "benchmarks.md", text)
    return 0


def _measure(folder: Path, size: int) -> dict[str, Any]:
    folder.mkdir(parents=True)
    db = folder / "store.sqlite3"
    started = time.perf_counter()
    _seed(db, size)
    seeded = time.perf_counter() - started
    common = {"db": str(db), "out": str(folder / "out"), "cache": str(folder / "cache")}
    full = _run({**common, "full": True})
    again = _run(common)
    changed = _run({**common, "change_price_of_one": True})
    render = _run({**common, "full": True, "from_cache": True})
    product_pages = full["pages_by_kind"].get("product", 0)
    return {
        "products": size,
        "seed_seconds": round(seeded, 1),
        "pages": full["pages"],
        "product_pages": product_pages,
        "full_requests": full["requests"],
        "full_seconds": full["seconds"],
        "requests_per_product_page": round(full["requests"] / max(product_pages, 1), 3),
        "nochange_requests": again["requests"],
        "nochange_share": round(again["requests"] / max(full["requests"], 1), 4),
        "nochange_seconds": again["seconds"],
        "nochange_rendered": again["rendered"],
        "change_requests": changed["requests"],
        "change_seconds": changed["seconds"],
        "change_request_seconds": changed["request_seconds"],
        "change_rendered": changed["rendered"],
        "render_seconds": render["seconds"],
        "render_pages_per_second": round(render["pages"] / render["render_seconds"]),
        "command_pages_per_second": round(render["pages"] / render["seconds"]),
        "peak_rss_mb": max(r["peak_rss_mb"] for r in (full, again, changed, render)),
        "output_mb": round(_size(folder / "out") / 1_048_576, 1),
        "bytes_per_page": round(_size(folder / "out") / max(full["pages"], 1)),
    }


def _seed(db: Path, products: int) -> None:
    from companion.app import create_app
    from companion.seed.demo import seed_demo
    from companion.settings import CompanionSettings

    app = create_app(CompanionSettings(database=str(db)))
    try:
        seed_demo(app.state.services.engine, products=products)
    finally:
        app.state.services.engine.dispose()


def _run(job: dict[str, Any]) -> dict[str, Any]:
    """One build in a fresh process; its figures as JSON."""
    command = [sys.executable, str(Path(__file__).resolve()), "--child", json.dumps(job)]
    started = time.perf_counter()
    result = subprocess.run(command, cwd=REPO, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - started
    if result.returncode != 0:
        raise SystemExit(f"bench build failed: {result.stderr.strip().splitlines()[-1:]}")
    figures: dict[str, Any] = json.loads(result.stdout.strip().splitlines()[-1])
    figures["seconds"] = round(wall, 2)  # from process start to exit
    return figures


def _child(job: dict[str, Any]) -> dict[str, Any]:
    """Inside the build process: change the store if asked, build, report."""
    import io
    from contextlib import asynccontextmanager

    import anyio
    import httpx
    from rich.console import Console

    from companion.app import create_app
    from companion.settings import CompanionSettings
    from generator.client import RateWindow
    from generator.commands.build import build_site
    from generator.config import BUNDLED_THEME, BuildConfig, _workers
    from generator.xstore import Descriptor

    windows = tuple(RateWindow(n, s) for n, s in job.get("windows", [(10_000_000, 60.0)]))
    settings = CompanionSettings(
        database=job["db"],
        rate_per_minute=job.get("rate_per_minute", 10_000_000),
        rate_per_hour=job.get("rate_per_hour", 10_000_000),
    )
    app = create_app(settings)
    if job.get("change_price_of_one"):
        _change_one_price(app)
    request_seconds = 0.0

    class Timed(httpx.AsyncBaseTransport):
        def __init__(self, inner: httpx.AsyncBaseTransport) -> None:
            self.inner = inner

        async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
            nonlocal request_seconds
            started = time.perf_counter()
            response = await self.inner.handle_async_request(request)
            await response.aread()
            request_seconds += time.perf_counter() - started
            return response

    @asynccontextmanager
    async def connect(config: BuildConfig) -> Any:
        transport = Timed(httpx.ASGITransport(app=app))
        base = "http://localhost/public/v1"
        async with httpx.AsyncClient(transport=transport, base_url=base) as http:
            yield http, "pk_live_demo", windows

    config = BuildConfig(
        api_url=None,
        api_key=None,
        site_url="https://shop.example.vn",
        out=Path(job["out"]),
        cache_dir=Path(job["cache"]),
        templates=BUNDLED_THEME,
        concurrency=8,
        demo_products=1,
        descriptor=Descriptor(),
        full=bool(job.get("full")),
        from_cache=bool(job.get("from_cache")),
        workers=_workers(None),
    )
    printed = io.StringIO()
    console = Console(file=printed, width=200)

    async def run() -> Any:
        return await build_site(config, console, connect=connect)

    summary = anyio.run(run)
    app.state.services.engine.dispose()
    text = printed.getvalue()
    rendered = _number_after(text, "rendered ")
    usage = max(
        resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
        resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss,
    )
    return {
        "pages": summary.pages,
        "pages_by_kind": dict(summary.pages_by_kind),
        "requests": summary.requests,
        "rate_limited": summary.rate_limited,
        "build_seconds": round(summary.seconds, 2),
        "request_seconds": round(request_seconds, 2),
        "render_seconds": _float_after(text, "write phase "),
        "rendered": rendered,
        "peak_rss_mb": round(usage / 1024),
    }


def _change_one_price(app: Any) -> None:
    from sqlalchemy import select

    from companion.catalog_admin import set_product_price
    from companion.db import schema

    with app.state.services.engine.begin() as conn:
        row = conn.execute(
            select(schema.products.c.id, schema.products.c.store_id, schema.products.c.price)
            .where(schema.products.c.url.is_not(None))
            .order_by(schema.products.c.id)
            .limit(1)
        ).one()
        price = (row.price or 100_000) + 1_000
        now = datetime.now(UTC).replace(tzinfo=None)
        set_product_price(conn, store_id=row.store_id, product_id=row.id, price=price, now=now)


def _pacing(folder: Path) -> dict[str, Any]:
    """A crawl under a client window against a companion enforcing the same rate."""
    folder.mkdir(parents=True)
    db = folder / "store.sqlite3"
    _seed(db, 1_000)
    per_minute = int(PACING_RATE * 60 / PACING_WINDOW)
    job = {
        "db": str(db),
        "out": str(folder / "out"),
        "cache": str(folder / "cache"),
        "full": True,
        "windows": [(PACING_RATE, PACING_WINDOW)],
        "rate_per_minute": per_minute,
        "rate_per_hour": per_minute * 60,
    }
    figures = _run(job)
    crawl_seconds = figures["build_seconds"] - figures["render_seconds"]
    allowed = crawl_seconds / PACING_WINDOW * PACING_RATE
    return {
        "rate": f"{PACING_RATE} per {PACING_WINDOW:g} s ({per_minute}/min, 10x the real limit)",
        "requests": figures["requests"],
        "crawl_seconds": round(crawl_seconds, 1),
        "share_of_allowed_rate": round(figures["requests"] / allowed, 3) if allowed else None,
        "rate_limited": figures["rate_limited"],
    }


def _number_after(text: str, marker: str) -> int:
    at = text.find(marker)
    if at < 0:
        return -1
    digits = "".join(ch for ch in text[at + len(marker) :].split(" ", 1)[0] if ch.isdigit())
    return int(digits or -1)


def _float_after(text: str, marker: str) -> float:
    at = text.find(marker)
    return float(text[at + len(marker) :].split(" ", 1)[0]) if at >= 0 else -1.0


def _size(folder: Path) -> int:
    return sum(path.stat().st_size for path in folder.rglob("*") if path.is_file())


def _islands() -> str:
    sizes = island_sizes(REPO / "site-templates")
    return f"{sum(sizes.values()):,} ({len(sizes)} files)"


def _machine() -> str:
    memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 1024**3
    cpu = platform.processor() or platform.machine()
    return (
        f"{len(os.sched_getaffinity(0))} CPUs ({cpu}), {memory:.1f} GiB memory, "
        f"Python {platform.python_version()}, {platform.system()} {platform.release()}"
    )


def _write_doc(path: Path, text: str) -> None:
    """Replace the generator's figures; keep the sections other benchmarks write after them."""
    kept = ""
    if path.exists():
        old = path.read_text(encoding="utf-8")
        at = old.find(OTHER_SECTIONS)
        kept = old[at:] if at >= 0 else ""
    path.write_text(text.rstrip("\n") + "\n\n" + kept if kept else text, encoding="utf-8")


def _report(rows: list[dict[str, Any]], pacing: dict[str, Any]) -> str:
    lines = [
        "# Benchmarks",
        "",
        "Written by `make bench` (`scripts/bench.py`); figures only, no pass/fail. Every build",
        "runs in a fresh process against the real companion (in-process, over ASGITransport),",
        "on the demo store; times are wall seconds from process start to exit.",
        "",
        f"- Date: {datetime.now(UTC):%Y-%m-%d %H:%M} UTC",
        f"- Machine: {_machine()}",
        "",
        "| figure | " + " | ".join(f"{r['products']:,} products" for r in rows) + " |",
        "|---|" + "---|" * len(rows),
    ]
    figures = [
        ("pages", "pages"),
        ("full crawl: requests", "full_requests"),
        ("full crawl: requests per product page", "requests_per_product_page"),
        ("full build: seconds", "full_seconds"),
        ("no-change rebuild: requests", "nochange_requests"),
        ("no-change rebuild: share of the full crawl's requests", "nochange_share"),
        ("no-change rebuild: seconds", "nochange_seconds"),
        ("no-change rebuild: pages rendered", "nochange_rendered"),
        ("one-product change: requests", "change_requests"),
        ("one-product change: seconds", "change_seconds"),
        (
            "one-product change: request time, summed over concurrent requests",
            "change_request_seconds",
        ),
        ("one-product change: pages rendered", "change_rendered"),
        ("`--from-cache --full`: seconds", "render_seconds"),
        ("`--from-cache --full`: render phase, pages/s", "render_pages_per_second"),
        ("`--from-cache --full`: whole command, pages/s", "command_pages_per_second"),
        ("peak RSS, MB (largest of the four builds)", "peak_rss_mb"),
        ("output, MB", "output_mb"),
        ("output bytes per page", "bytes_per_page"),
    ]
    for label, key in figures:
        lines.append(f"| {label} | " + " | ".join(str(r[key]) for r in rows) + " |")
    lines += [
        "",
        "Pacing (1,000 products, full crawl under a client rate window against a companion",
        f"enforcing the same rate): rate {pacing['rate']}; {pacing['requests']} requests in",
        f"{pacing['crawl_seconds']} s of crawl; share of the allowed rate used: "
        f"{pacing['share_of_allowed_rate']}; 429 answers: {pacing['rate_limited']}.",
        "",
        f"Islands (cart, checkout, account, listing JS): {_islands()} bytes gzipped in all,",
        "each file compressed on its own as a server sends it (target: under 12 KB).",
        "",
        "## Reading the figures",
        "",
        "- The render throughput is far below the issue's target (2,500 pages/s at 10,000",
        "  products): Jinja macro calls dominate the per-page cost and have not been optimised",
        "  yet. The render phase includes fingerprinting, writing and the swap.",
        "- A one-product change asks every category and collection product page and every",
        "  route resolution again (they are versioned by a digest of all list pages, so any",
        "  product change moves them); its time is mostly those requests and the list walk.",
        "- The pacing run uses a rate ten times the real 600/min so that it ends in seconds.",
        "- 100,000 products (`make bench BENCH_ARGS=--large`) has not been recorded yet.",
        "",
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
