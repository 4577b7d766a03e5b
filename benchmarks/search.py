"""The search index's figures at 10,000 and 50,000 products, beside Pagefind on the same products.

    python -m benchmarks.search [--sizes 10000,50000] [--queries 20] [--no-pagefind]
    (make bench BENCH_ARGS=--search)

For each size: a generated catalogue of Vietnamese product names, brands, category paths, SKUs
and options; the index's build time (full, then after one product's price changes: the files
it rewrote), its size on disk, the bytes (gzipped, as a server sends them) a first query ("ao
th") and a filter change over its results (one brand: what a sort and the filters read of
every result, then the records of the 24 shown; a sort fetches the same; Pagefind's filter,
then its 24 first results' data) and then a query of a SKU's first letters ("sp1234") fetch,
and the median time of 20 queries in Chromium with a 4x CPU slowdown (the index served over
loopback, each query to its five records). Pagefind (pip install 'pagefind[extended]', an
optional bench dependency) indexes the same products as custom records; where it fails at a
size, that is printed and the bench goes on. Prints a table and writes it as its section of
docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import dataclasses
import gc
import gzip
import http.server
import json
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from functools import partial
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from benchmarks.doc import machine, write_section
from generator.crawl.pack import pack, unpack
from generator.model import (
    Brand,
    Catalog,
    Category,
    Product,
    ProductCard,
    SiteContext,
    Store,
    Variant,
)
from generator.search_index.store import FOLDER, write_search_index

REPO = Path(__file__).resolve().parents[1]

ISLANDS = REPO / "site-templates" / "islands"
KINDS = [
    "Áo thun", "Áo sơ mi", "Áo khoác", "Áo polo", "Áo len", "Quần jean", "Quần tây", "Quần short",
    "Váy", "Đầm", "Chân váy", "Giày thể thao", "Giày da", "Dép", "Túi xách", "Balo", "Mũ",
    "Khăn", "Thắt lưng", "Vớ",
]  # fmt: skip
WHO = ["nam", "nữ", "bé trai", "bé gái", "unisex"]
WHAT = [
    "cotton", "kẻ sọc", "thể thao", "công sở", "dáng rộng", "ôm", "in hình", "thêu hoa",
    "chống nắng", "basic", "cao cấp", "lụa", "jean", "da bò", "len dệt kim", "họa tiết",
]  # fmt: skip
COLORS = ["Đỏ", "Đen", "Trắng", "Xanh dương", "Vàng", "Hồng", "Be", "Xám"]
SIZES = ["S", "M", "L", "XL"]
BRANDS = ["Việt Tiến", "An Phước", "Canifa", "Owen", "Blue Exchange", "Ninomaxx", "Routine"]
#: Pagefind's indexing of one size, at most (seconds): past it, the bench says so and goes on.
PAGEFIND_TIMEOUT = 1200
QUERIES = [
    "ao th", "ao thun nu", "quan jean", "giay the thao", "vay cong so", "ao khoac", "balo",
    "dam lua", "tui xach da", "ao so mi nam", "quan short be trai", "mu", "khan len",
    "chong nang", "ao polo", "vo cotton", "that lung da", "ao len det kim", "dep", "do",
]  # fmt: skip


#: A shopper typing the start of a SKU ("SP" and the product's id, as every product's SKUs are).
SKU_QUERY = "sp1234"


def catalogue(count: int, seed: int = 57) -> tuple[Catalog, Any]:
    """``count`` products under 40 categories (8 roots, 4 children each), and a plan-shaped
    view of them (every product, category and collection a page)."""
    rng = random.Random(seed)
    now = datetime(2026, 12, 1, tzinfo=UTC)
    roots = [
        Category(i, None, name, f"c{i}", f"/danh-muc/c{i}", None, None, 0, None, None, None)
        for i, name in enumerate(["Thời trang nam", "Thời trang nữ", "Trẻ em", "Giày dép",
                                  "Túi ví", "Phụ kiện", "Đồ thể thao", "Đồ lót"], start=1)
    ]  # fmt: skip
    children = [
        Category(10 + 4 * r.id + j, r.id, f"{KINDS[(r.id + j) % len(KINDS)]} {WHO[j % 5]}",
                 f"c{10 + 4 * r.id + j}", f"/danh-muc/c{10 + 4 * r.id + j}",
                 None, None, 0, None, None, None)
        for r in roots for j in range(4)
    ]  # fmt: skip
    tree = tuple(dataclasses.replace(r, children=tuple(c for c in children if c.parent_id == r.id))
                 for r in roots)  # fmt: skip
    products = []
    for pid in range(1, count + 1):
        name = f"{rng.choice(KINDS)} {rng.choice(WHO)} {rng.choice(WHAT)} mã {pid}"
        price = rng.randrange(50, 3000) * 1000
        card = ProductCard(
            pid, name, f"p{pid}", f"/san-pham/p{pid}", price, price, price + 100_000,
            f"/_assets/p{pid % 50}.jpg", rng.random() > 0.1, rng.choice(children).id, None, now,
        )  # fmt: skip
        colors = rng.sample(COLORS, 2)
        variants = tuple(
            Variant(pid * 10 + n, pid, f"SP{pid}-{n}", f"{c} / {s}", (("Màu", c), ("Kích cỡ", s)),
                    price, price, None, True, 6, None)
            for n, (c, s) in enumerate((c, s) for c in colors for s in SIZES[:2])
        )  # fmt: skip
        product = Product(
            card, None, (), (card.category_id or 1,), Brand(1, rng.choice(BRANDS)), f"SP{pid}",
            None, None, now - timedelta(minutes=pid), variants,
        )  # fmt: skip
        products.append(pack(product))
    store = Store("Bench", None, None, None, None, (), "VND", "vi")
    site = SiteContext(store, (), tree, (), (), (), ())
    catalog = Catalog(site, tuple(products), (), (), (), (), (), (), ())
    pages = [SimpleNamespace(kind="product", subject=p, path=p.card.url) for p in products]
    pages += [
        SimpleNamespace(kind="category", subject=SimpleNamespace(category=c, pager=None),
                        path=c.url)
        for c in (*roots, *children)
    ]  # fmt: skip
    return catalog, SimpleNamespace(pages=pages, site=site)


def folder_size(root: Path) -> int:
    return sum(p.stat().st_size for p in root.rglob("*") if p.is_file())


def gzipped(path: Path) -> int:
    return len(gzip.compress(path.read_bytes(), 9, mtime=0))


@contextmanager
def serving(root: Path) -> Iterator[str]:
    handler = partial(_Quiet, directory=str(root))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass

    def end_headers(self) -> None:
        self.send_header("Cache-Control", "max-age=3600")
        super().end_headers()


# A filter change chooses one brand ("Canifa", a seventh of the products) among the results.
OURS_PAGE = """<!doctype html><main></main><script type=module>
import { find, light, records } from '/_assets/find.js'
window.query = async (q) => { const t = performance.now(); const ids = await find(q);
  const top = await records(ids.slice(0, 5)); window.top5 = top.map((r) => r.n)
  return [performance.now() - t, ids.length] }
window.all = async (q) => { const list = await light(await find(q))
  await records(list.filter((r) => r.b === 'Canifa').slice(0, 24).map((r) => r.id)) }
window.ready = true
</script>"""
PAGEFIND_PAGE = """<!doctype html><script type=module>
const pf = await import('/pagefind/pagefind.js'); await pf.init()
window.query = async (q) => { const t = performance.now(); const s = await pf.search(q);
  const top = await Promise.all(s.results.slice(0, 5).map((r) => r.data()));
  window.top5 = top.map((d) => d.meta.title); return [performance.now() - t, s.results.length] }
window.all = async (q) => { const s = await pf.search(q, { filters: { brand: 'Canifa' } })
  await Promise.all(s.results.slice(0, 24).map((r) => r.data())) }
window.ready = true
</script>"""


def browse(site: Path, page_html: str, queries: list[str]) -> dict[str, Any]:
    """In Chromium at a 4x CPU slowdown: the bytes (gzipped) a first query fetches, then a
    filter change (one brand; the first 24 results' records), and the median of ``queries``'
    times."""
    from playwright.sync_api import sync_playwright

    (site / "bench.html").write_text(page_html, encoding="utf-8")
    with serving(site) as origin, sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium")
        try:
            page = browser.new_page()
            fetched: list[str] = []
            page.on("request", lambda r: fetched.append(r.url.removeprefix(origin)))
            page.goto(origin + "/bench.html")
            page.wait_for_function("window.ready")
            cdp = page.context.new_cdp_session(page)
            cdp.send("Emulation.setCPUThrottlingRate", {"rate": 4})
            before = len(fetched)
            first_ms, found = page.evaluate("(q) => window.query(q)", queries[0])
            first = _bytes(site, fetched[before:])
            top5 = page.evaluate("window.top5")
            before = len(fetched)
            page.evaluate("(q) => window.all(q)", queries[0])
            change = _bytes(site, fetched[before:])
            before = len(fetched)
            page.evaluate("(q) => window.query(q)", SKU_QUERY)
            sku = _bytes(site, fetched[before:])
            times = [page.evaluate("(q) => window.query(q)", q)[0] for q in queries]
            # The same queries again, their files already fetched: the search's own work.
            warm = [page.evaluate("(q) => window.query(q)", q)[0] for q in queries]
        finally:
            browser.close()
    return {
        "first_query_kb": first / 1024,
        "change_kb": change / 1024,
        "sku_kb": sku / 1024,
        "median_ms": statistics.median(times),
        "warm_ms": statistics.median(warm),
        "first_ms": first_ms,
        "found": found,
        "top5": top5,
    }


def _bytes(site: Path, urls: list[str]) -> int:
    total = 0
    for url in dict.fromkeys(urls):
        path = site / url.split("?")[0].lstrip("/")
        if path.is_file() and not path.name.endswith(".html"):
            total += gzipped(path)
    return total


def ours(catalog: Catalog, plan: Any, work: Path) -> dict[str, Any]:
    site, cache = work / "ours", work / "ours-cache"
    (site / "_assets").mkdir(parents=True)
    cache.mkdir()
    for module in ("main.js", "find.js"):
        shutil.copy(ISLANDS / module, site / "_assets" / module)
    started = time.perf_counter()
    full = write_search_index(catalog, plan, site, cache, scratch=cache)
    full_s = time.perf_counter() - started
    # One product's price changes: the catalogue the next crawl would give.
    changed = catalog.products[len(catalog.products) // 2]
    product = unpack(changed)
    card = dataclasses.replace(product.card, effective_price=(product.card.price or 0) - 10_000)
    moved = pack(dataclasses.replace(product, card=card))
    products = tuple(moved if p is changed else p for p in catalog.products)
    plan.pages = [
        SimpleNamespace(kind="product", subject=moved, path=pg.path) if pg.subject is changed
        else pg for pg in plan.pages
    ]  # fmt: skip
    started = time.perf_counter()
    changed_catalog = dataclasses.replace(catalog, products=products)
    one = write_search_index(changed_catalog, plan, site, cache, scratch=cache)
    one_s = time.perf_counter() - started
    figures = browse(site, OURS_PAGE, QUERIES)
    return {
        "build_s": full_s,
        "one_change_s": one_s,
        "one_change_files": one.written,
        "files": full.files,
        "disk_mb": folder_size(site / FOLDER) / 2**20,
        **figures,
    }


def pagefind(catalog: Catalog, work: Path) -> dict[str, Any]:
    """Pagefind over the same products, one small page each (name as its title; brand, SKU
    and options as its text), through its CLI: its Python API's custom records went one
    request each to its service, 106 s for 1,000 products on this machine."""
    from html import escape

    from generator.crawl.pack import unpack

    site = work / "pagefind-site"
    (site / "p").mkdir(parents=True)
    for packed in catalog.products:
        product = unpack(packed)
        options = " ".join(v for variant in product.variants for _, v in variant.options)
        brand = product.brand.name if product.brand else ""
        (site / "p" / f"{product.card.id}.html").write_text(
            f"<!doctype html><html lang=vi><title>{escape(product.card.name)}</title>"
            f"<body data-pagefind-body><h1>{escape(product.card.name)}</h1>"
            f"<p>{escape(brand)} {escape(product.sku or '')} {escape(options)}</p>"
            f"<p data-pagefind-filter=brand>{escape(brand)}</p></body></html>",
            encoding="utf-8",
        )
    started = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "pagefind", "--site", str(site), "--silent"],
        check=True,
        timeout=PAGEFIND_TIMEOUT,
    )
    build_s = time.perf_counter() - started
    figures = browse(site, PAGEFIND_PAGE, QUERIES)
    files = sum(1 for p in (site / "pagefind").rglob("*") if p.is_file())
    return {
        "build_s": build_s,
        "one_change_s": build_s,  # no incremental indexing: a change indexes everything again
        "one_change_files": files,
        "files": files,
        "disk_mb": folder_size(site / "pagefind") / 2**20,
        **figures,
    }


ROWS: list[tuple[str, Callable[[dict[str, Any]], str]]] = [
    ("index build, full (s)", lambda f: f"{f['build_s']:.1f}"),
    ("after a one-product change (s)", lambda f: f"{f['one_change_s']:.2f}"),
    ("files written by that change", lambda f: f"{f['one_change_files']:,}"),
    ("files / size on disk (MB)", lambda f: f"{f['files']:,} / {f['disk_mb']:.1f}"),
    ("first query 'ao th' fetches (kB gz)", lambda f: f"{f['first_query_kb']:.1f}"),
    ("a filter or sort change fetches (kB gz)", lambda f: f"{f['change_kb']:.1f}"),
    (f"then a SKU query '{SKU_QUERY}' fetches (kB gz)", lambda f: f"{f['sku_kb']:.1f}"),
    ("median of 20 queries, 4x CPU (ms)", lambda f: f"{f['median_ms']:.1f}"),
    ("the same, files already fetched (ms)", lambda f: f"{f['warm_ms']:.1f}"),
    ("results for 'ao th'", lambda f: f"{f['found']:,}"),
    ("top five for 'ao th'", lambda f: "; ".join(f["top5"] or [])),
]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--sizes", default="10000,50000")
    parser.add_argument("--no-pagefind", action="store_true")
    parser.add_argument("--no-write", action="store_true", help="print only")
    args = parser.parse_args(argv)
    results: dict[tuple[int, str], dict[str, Any] | str] = {}
    for size in (int(s) for s in args.sizes.split(",")):
        catalog, plan = catalogue(size)
        gc.freeze()  # as a build does once its catalogue is crawled (pipeline)
        with tempfile.TemporaryDirectory(prefix="bench-search-") as folder:
            work = Path(folder)
            results[size, "ours"] = ours(catalog, plan, work)
            print(f"{size:,} products, ours: {json.dumps(results[size, 'ours'])}", flush=True)
            if not args.no_pagefind:
                try:
                    results[size, "pagefind"] = pagefind(catalog, work)
                except Exception as exc:  # noqa: BLE001 - a failure is a figure of its own
                    results[size, "pagefind"] = f"failed: {type(exc).__name__}: {exc}"[:200]
                print(f"{size:,} products, Pagefind: {results[size, 'pagefind']}", flush=True)
    text = report(results, machine())
    print()
    print(text)
    if not args.no_write:
        write_section(text, SECTION)
    return 0


#: The heading of this benchmark's section of docs/benchmarks.md.
SECTION = "## Search"
NAMES = {"ours": "ours", "pagefind": "Pagefind"}


def report(results: dict[tuple[int, str], dict[str, Any] | str], host: str) -> str:
    """The section: when and where, the targets, and the table beside Pagefind."""
    when = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    lines = [
        f"{SECTION} (`make bench BENCH_ARGS=--search`, run of {when})",
        "",
        f"{host}.",
        "",
        "The index and Pagefind build the same generated products in the same run; the bytes are",
        "what a server sends gzipped; the query times are Chromium's with a 4x CPU slowdown over",
        "loopback. Targets: a first query at 50,000 products fetches at most 100 kB gzipped; the",
        "median of 20 queries under 50 ms.",
        "",
        "| | " + " | ".join(f"{s:,} {NAMES[who]}" for s, who in results) + " |",
        "|---" * (len(results) + 1) + "|",
    ]
    for label, show in ROWS:
        cells = [show(r) if isinstance(r, dict) else "-" for r in results.values()]
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    lines += [f"\n{key[0]:,} {key[1]}: {r}" for key, r in results.items() if isinstance(r, str)]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main())
