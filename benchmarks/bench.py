"""`make bench`: how many requests and how much time builds of the demo store take.

For each size (1,000, 10,000 and 100,000 products; --quick: the first two only; --large adds
50,000) it seeds the demo store into a SQLite file once, starts the companion on it as its own
process (loopback port, rate limits out of the way), and runs each build as a fresh process
against it over real HTTP (``build.py``: `storefront build --api-url ... --key ...` with a
timing transport), so the times are the generator's alone, from process start to exit:

- full crawl (--full): requests per product page;
- no-change rebuild and one-product-change rebuild: requests, wall time, the request wall time
  (at least one request in flight) and the time beyond it;
- render throughput of --from-cache --full: pages per second of the whole command;
- a phase breakdown of every build; peak RSS (the largest process, and the build with its render
  workers together); output size;
- before each build the disk is let finish what earlier ones left (the background deletion of
  a replaced output, the writeback of their files), so each is measured for its own work;
- the project's modules are compiled first, as an installed package's are;
- pacing: a crawl of the 1,000-product store under a client rate window against a companion
  enforcing the same rate: share of the allowed rate used, 429 answers seen;
- with --resume, only a large first build at the real limits on a simulated clock, stopped twice
  and continued (``resume.py``), written to a section of its own;
- beside Hugo (``peer.py``, sizes up to 50,000): the store exported through the public
  API into the data of a Hugo site with the same page set (benchmarks/hugo_site/), Hugo and
  `--from-cache --full` timed alternately on tmpfs, the ratio of their pages per second;
  with --peer, only that (and the full build that fills the crawl cache), --keep DIR keeping
  each size's store and crawl cache for the next run;
- with --sale, only a sale on one key: page views replayed at 600 and 3,000 product views a
  minute, a greedy client and purchases meanwhile, against the companion at the real limits
  (``sale.py``), written to a section of its own;
- with --hostile, only builds against hostile answers (an oversize list, an endless body, a
  gzip bomb) and their peak memory (``hostile.py``), written to a section of its own.

Figures only, no pass/fail; the issue's targets are printed beside them. The results are
printed and written to their section of docs/benchmarks.md (the other sections are kept).
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from benchmarks.doc import machine, write_section
from benchmarks.hostile import SECTION as HOSTILE_SECTION
from benchmarks.hostile import hostile_report, measure_hostile
from benchmarks.peer import SECTION as PEER_SECTION
from benchmarks.peer import compare, peer_report
from benchmarks.procs import Run, companion_server, measured_run, settle_inodes
from benchmarks.report import SECTION as BUILD_SECTION
from benchmarks.report import report
from benchmarks.resume import SECTION as RESUME_SECTION
from benchmarks.resume import measure_resume, resume_report
from benchmarks.sale import RATES as SALE_RATES
from benchmarks.sale import SECTION as SALE_SECTION
from benchmarks.sale import measure_sale, sale_report

REPO = Path(__file__).resolve().parents[1]
#: The measured build, run as a script of its own: this tree's, or another revision's
#: (``against``), whose older checkouts keep it at ``OLD_BUILD_SCRIPT``.
BUILD_SCRIPT = Path("benchmarks") / "build.py"
OLD_BUILD_SCRIPT = Path("scripts") / "bench_build.py"
SIZES = (1_000, 10_000, 100_000)
QUICK = (1_000, 10_000)
LARGE = (50_000,)
SITE_URL = "https://shop.example.vn"
#: Rate limits of the companion and windows of the client when the bench is not about pacing.
NO_LIMIT = 10_000_000
#: The pacing run: the client keeps under PACING_RATE requests per PACING_WINDOW seconds, the
#: companion enforces the same rate per minute (scaled up from 600/min so the run is short, but
#: kept well under what the companion answers on this machine, so the pacing is what is seen).
PACING_RATE = 50
PACING_WINDOW = 1.0
PACING_PRODUCTS = 1_000
#: Runs of `--from-cache --full` per size, the median shown: the same build on this machine
#: varied by a third from one run to the next (the host's CPUs as much as the disk). Each
#: writes a folder of its own, so that none follows the deletion of another's output (see
#: ``procs.file_create_microseconds``).
RENDER_RUNS = 3
#: Before the whole renders, the bench waits (``SETTLE_LIMIT_SECONDS`` at most) until creating
#: a file costs at most ``SETTLED_CREATE_US`` microseconds, as on a disk with no large deletion
#: in its last minutes (see ``procs.file_create_microseconds``).
SETTLED_CREATE_US = 100
SETTLE_LIMIT_SECONDS = 600
#: The largest store set beside Hugo in a whole `make bench` (--peer takes any size).
PEER_MAX_PRODUCTS = 50_000


def main() -> int:
    if "--search" in sys.argv[1:]:  # the search index's figures alone (benchmarks/search.py)
        from benchmarks.search import main as search

        return search([arg for arg in sys.argv[1:] if arg != "--search"])
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="1,000 and 10,000 products only")
    parser.add_argument("--large", action="store_true", help="also 50,000 products")
    parser.add_argument("--sizes", help="comma-separated sizes instead of 1000,10000,100000")
    parser.add_argument("--no-pacing", action="store_true", help="skip the pacing run")
    parser.add_argument("--no-write", action="store_true", help="print only; keep the docs")
    parser.add_argument(
        "--hostile",
        action="store_true",
        help="only the builds against hostile answers (peak memory; benchmarks/hostile.py)",
    )
    parser.add_argument(
        "--resume",
        action="store_true",
        help="only a first build at the real limits on a simulated clock, stopped twice "
        "(benchmarks/resume.py)",
    )
    parser.add_argument("--resume-products", type=int, default=10_000, help="its store's size")
    parser.add_argument(
        "--sale",
        action="store_true",
        help="only a sale on one key: recorded page views, a greedy client and purchases "
        "(benchmarks/sale.py)",
    )
    parser.add_argument(
        "--sale-seconds", type=float, default=90.0, help="each rate's replay (past a minute)"
    )
    parser.add_argument(
        "--sale-grace",
        type=float,
        default=60.0,
        help="seconds after the last view for the answers still to come",
    )
    parser.add_argument(
        "--sale-session-workers", type=int, default=1, help="`storefront session --workers`"
    )
    parser.add_argument(
        "--sale-rates",
        default=",".join(str(r) for r in SALE_RATES),
        help="product views a minute, comma-separated",
    )
    parser.add_argument(
        "--peer", action="store_true", help="only the comparison with Hugo (benchmarks/peer.py)"
    )
    parser.add_argument("--no-peer", action="store_true", help="skip the comparison with Hugo")
    parser.add_argument("--peer-runs", type=int, default=3, help="runs of each tool per size")
    parser.add_argument(
        "--keep", type=Path, help="with --peer: keep each size's store and crawl cache here"
    )
    args = parser.parse_args()
    if args.hostile:
        return bench_hostile_answers(write=not args.no_write)
    if args.resume:
        return bench_resumed_build(args.resume_products, write=not args.no_write)
    if args.sale:
        rates = tuple(int(r) for r in args.sale_rates.split(","))
        return bench_sale(
            rates,
            args.sale_seconds,
            args.sale_grace,
            args.sale_session_workers,
            write=not args.no_write,
        )
    sizes = [int(s) for s in args.sizes.split(",")] if args.sizes else list(SIZES)
    if args.quick and not args.sizes:
        sizes = list(QUICK)
    if args.large:
        sizes = sorted({*sizes, *LARGE})
    compile_bytecode()
    if args.peer:
        return bench_beside_hugo(sizes, args.peer_runs, args.keep, write=not args.no_write)
    rows = []
    pacing = None
    peers = []
    with tempfile.TemporaryDirectory(prefix="storefront-bench-") as folder:
        for size in sizes:
            peer_runs = 0 if args.no_peer or size > PEER_MAX_PRODUCTS else args.peer_runs
            rows.append(measure(Path(folder) / str(size), size, peer_runs=peer_runs))
            peer = rows[-1].pop("peer", None)
            peers += [peer] if peer else []
            print(json.dumps(rows[-1]), flush=True)
        if not args.no_pacing:
            pacing = measure_pacing(Path(folder) / "pacing")
            print(json.dumps(pacing), flush=True)
    text = report(rows, pacing, repo=REPO)
    print(text)
    peer_text = peer_report(peers, machine()) if peers else ""
    print(peer_text)
    if not args.no_write:
        write_section(text, BUILD_SECTION)
        if peers:
            write_section(peer_text, PEER_SECTION)
    return 0


def bench_beside_hugo(sizes: list[int], runs: int, keep: Path | None, *, write: bool) -> int:
    """Only the comparison with Hugo: per size, the store seeded and crawled by a full build
    (both kept in ``keep`` for the next run when given), then ``peer.compare``."""
    rows = []
    with tempfile.TemporaryDirectory(prefix="storefront-bench-peer-") as scratch:
        for size in sizes:
            folder = (keep or Path(scratch)) / str(size)
            folder.mkdir(parents=True, exist_ok=True)
            db = folder / "store.sqlite3"
            key = seed(db, size) if not db.exists() else demo_key()
            log = folder / "companion.log"
            with companion_server(
                db, rate_per_minute=NO_LIMIT, rate_per_hour=NO_LIMIT, log=log
            ) as url:
                if not (folder / "cache" / "crawl.sqlite3").exists():
                    build({"api_url": url, "key": key, "folder": folder, "full": True})
                rows.append(compare(size, api_url=url, key=key, cache=folder / "cache", runs=runs))
            print(json.dumps(rows[-1]), flush=True)
    text = peer_report(rows, machine())
    print(text)
    if write:
        write_section(text, PEER_SECTION)
    return 0


def bench_resumed_build(products: int, *, write: bool) -> int:
    compile_bytecode()
    with tempfile.TemporaryDirectory(prefix="storefront-bench-resume-") as folder:
        row = measure_resume(Path(folder) / "resume", products, seed)
    text = resume_report(row, machine())
    print(text)
    if write:
        write_section(text, RESUME_SECTION)
    return 0


def bench_sale(
    rates: tuple[int, ...], seconds: float, grace: float, workers: int, *, write: bool
) -> int:
    compile_bytecode()
    with tempfile.TemporaryDirectory(prefix="storefront-bench-sale-") as folder:
        result = measure_sale(
            Path(folder) / "sale",
            rates=rates,
            seconds=seconds,
            grace=grace,
            session_workers=workers,
        )
    text = sale_report(result, machine())
    print(text)
    if write:
        write_section(text, SALE_SECTION)
    return 0


def bench_hostile_answers(*, write: bool) -> int:
    compile_bytecode()
    with tempfile.TemporaryDirectory(prefix="storefront-bench-hostile-") as folder:
        rows = measure_hostile(Path(folder) / "hostile", seed)
    text = hostile_report(rows, machine())
    print(text)
    if write:
        write_section(text, HOSTILE_SECTION)
    return 0


def compile_bytecode() -> None:
    """Compile the project's modules, as installing a package does: an editable install
    compiles nothing, and with ``PYTHONDONTWRITEBYTECODE`` set no build would ever write its
    bytecode, so each would compile the generator again from source at its start."""
    for package in ("generator", "companion"):
        compileall.compile_dir(REPO / package, quiet=1)


def measure(folder: Path, size: int, *, peer_runs: int = 0) -> dict[str, Any]:
    folder.mkdir(parents=True)
    db = folder / "store.sqlite3"
    started = time.perf_counter()
    key = seed(db, size)
    seeded = time.perf_counter() - started
    log = folder / "companion.log"
    with companion_server(db, rate_per_minute=NO_LIMIT, rate_per_hour=NO_LIMIT, log=log) as url:
        common = {"api_url": url, "key": key, "folder": folder}
        full = build({**common, "full": True})
        again = build(common)
        change_one_price(db)
        changed = build(common)
        _settle_disk(folder)
        waited, create_us = settle_inodes(
            folder, settled_us=SETTLED_CREATE_US, limit=SETTLE_LIMIT_SECONDS
        )
        renders = [
            build({**common, "full": True, "from_cache": True, "out": f"render-{n}"})
            for n in range(1, RENDER_RUNS + 1)
        ]
        peer = (
            compare(size, api_url=url, key=key, cache=folder / "cache", runs=peer_runs)
            if peer_runs
            else None
        )
    renders.sort(key=lambda figures: figures["seconds"])
    render = renders[len(renders) // 2]  # the median run
    product_pages = full["pages_by_kind"].get("product", 0)
    output = folder_bytes(folder / "out")
    builds = {"full": full, "nochange": again, "change": changed, "render": render}
    row: dict[str, Any] = {
        "products": size,
        "seed_seconds": round(seeded, 1),
        "pages": full["pages"],
        "product_pages": product_pages,
        "requests_per_product_page": round(full["requests"] / max(product_pages, 1), 3),
        "nochange_share": round(again["requests"] / max(full["requests"], 1), 4),
        "render_pages_per_second": round(render["pages"] / render["seconds"]),
        "render_pages_per_second_range": "{:,.0f} to {:,.0f}".format(
            render["pages"] / renders[-1]["seconds"], render["pages"] / renders[0]["seconds"]
        ),
        "render_phase_pages_per_second": _per_second(render, "render and write"),
        "render_cpu_user": render["cpu_user"],
        "render_cpu_system": render["cpu_system"],
        "file_create_us": round(create_us),
        "settle_seconds": round(waited),
        "peak_rss_mb": round(max(b["peak_rss_mb"] for b in builds.values())),
        "peak_tree_pss_mb": round(max(b["peak_tree_pss_mb"] for b in builds.values())),
        "output_mb": round(output / 1_048_576, 1),
        "bytes_per_page": round(output / max(full["pages"], 1)),
    }
    if peer_runs:
        row["peer"] = peer
    for name, figures in builds.items():
        for key_name in (
            "requests",
            "seconds",
            "request_seconds",
            "beyond_requests",
            "rendered",
            "peak_tree_pss_mb",
        ):
            row[f"{name}_{key_name}"] = figures[key_name]
        row[f"{name}_phases"] = figures["phases"]
    return row


def seed(db: Path, products: int) -> str:
    """The demo store in ``db``; its publishable key."""
    from companion.app import create_app
    from companion.seed.demo import DEMO_KEY, seed_demo
    from companion.settings import CompanionSettings

    app = create_app(CompanionSettings(database=str(db)))
    try:
        seed_demo(app.state.services.engine, products=products)
    finally:
        app.state.services.engine.dispose()
    return DEMO_KEY


def demo_key() -> str:
    from companion.seed.demo import DEMO_KEY

    return DEMO_KEY


def build(job: dict[str, Any], tree: Path = REPO) -> dict[str, Any]:
    """One build in a fresh process against the running companion, by the generator of
    ``tree`` (another checkout's, for ``against``); its figures."""
    folder: Path = job["folder"]
    _settle_disk(folder)
    spawned = time.monotonic()
    child_job = {
        "api_url": job["api_url"],
        "key": job["key"],
        "out": str(folder / job.get("out", "out")),
        "cache": str(folder / "cache"),
        "site_url": SITE_URL,
        "full": bool(job.get("full")),
        "from_cache": bool(job.get("from_cache")),
        "windows": job.get("windows", [(NO_LIMIT, 60.0)]),
        "spawned": spawned,
    }
    script = tree / BUILD_SCRIPT
    if not script.exists():
        script = tree / OLD_BUILD_SCRIPT
    # The tree's own generator, not the installed one.
    env = {**os.environ, "PYTHONPATH": str(tree)} if tree != REPO else None
    command = [sys.executable, str(script), json.dumps(child_job)]
    run = measured_run(command, cwd=folder, spawned=spawned, env=env)
    if run.returncode != 0:
        raise SystemExit(f"bench build of {tree} failed: {run.stderr.strip().splitlines()[-3:]}")
    figures: dict[str, Any] = json.loads(run.stdout.strip().splitlines()[-1])
    return _with_process_figures(figures, run)


def _settle_disk(folder: Path, *, limit: float = 120.0) -> None:
    """Let the disk finish what earlier builds left it: the background deletion of an output
    a build replaced (``write.discard``) and the writeback of the files they wrote. Each build
    is then measured for its own work, not for the one before it."""
    deadline = time.monotonic() + limit
    while _deleting_under(folder) and time.monotonic() < deadline:
        time.sleep(0.2)
    os.sync()


def _deleting_under(folder: Path) -> bool:
    """Whether an ``rm -rf`` of something under ``folder`` still runs."""
    marker = os.fsencode(folder)
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            argv = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if len(argv) > 2 and argv[0].endswith(b"rm") and any(marker in arg for arg in argv):
            return True
    return False


def _with_process_figures(figures: dict[str, Any], run: Run) -> dict[str, Any]:
    phases: dict[str, float] = dict(figures["phases"])
    phases["exit"] = run.ended - figures.pop("done")
    return {
        **figures,
        "seconds": round(run.seconds, 2),
        "request_seconds": round(figures["request_seconds"], 2),
        "beyond_requests": round(run.seconds - figures["request_seconds"], 2),
        "phases": {name: round(seconds, 2) for name, seconds in phases.items()},
        "peak_rss_mb": round(figures["peak_rss_mb"]),
        "peak_tree_pss_mb": round(run.peak_tree_pss_mb),
        "cpu_user": round(run.cpu_user, 2),
        "cpu_system": round(run.cpu_system, 2),
    }


def change_one_price(db: Path) -> None:
    """A merchant's edit: the first product's price, through the companion's catalogue API."""
    from sqlalchemy import select

    from companion.catalog_admin import set_product_price
    from companion.db import schema
    from companion.db.engine import make_engine

    engine = make_engine(str(db), pooled=False)
    try:
        with engine.begin() as conn:
            row = conn.execute(
                select(schema.products.c.id, schema.products.c.store_id, schema.products.c.price)
                .where(schema.products.c.url.is_not(None))
                .order_by(schema.products.c.id)
                .limit(1)
            ).one()
            price = (row.price or 100_000) + 1_000
            now = datetime.now(UTC).replace(tzinfo=None)
            set_product_price(conn, store_id=row.store_id, product_id=row.id, price=price, now=now)
    finally:
        engine.dispose()


def measure_pacing(folder: Path) -> dict[str, Any]:
    """A crawl under a client window against a companion enforcing the same rate."""
    folder.mkdir(parents=True)
    db = folder / "store.sqlite3"
    key = seed(db, PACING_PRODUCTS)
    per_minute = int(PACING_RATE * 60 / PACING_WINDOW)
    log = folder / "companion.log"
    with companion_server(
        db, rate_per_minute=per_minute, rate_per_hour=per_minute * 60, log=log
    ) as url:
        figures = build(
            {
                "api_url": url,
                "key": key,
                "folder": folder,
                "full": True,
                "windows": [(PACING_RATE, PACING_WINDOW)],
            }
        )
    crawl_seconds = figures["phases"].get("crawl", 0.0)
    allowed = crawl_seconds / PACING_WINDOW * PACING_RATE
    return {
        "rate": f"{PACING_RATE} per {PACING_WINDOW:g} s ({per_minute}/min, "
        f"{per_minute / 600:g}x the real limit)",
        "requests": figures["requests"],
        "crawl_seconds": round(crawl_seconds, 1),
        "share_of_allowed_rate": round(figures["requests"] / allowed, 3) if allowed else None,
        "rate_limited": figures["rate_limited"],
    }


def _per_second(figures: dict[str, Any], phase: str) -> int | None:
    seconds = figures["phases"].get(phase)
    return round(figures["pages"] / seconds) if seconds else None


def folder_bytes(folder: Path) -> int:
    return sum(path.stat().st_size for path in folder.rglob("*") if path.is_file())


if __name__ == "__main__":
    sys.exit(main())
