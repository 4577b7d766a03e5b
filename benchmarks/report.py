"""The text of `make bench`: the figures beside their targets and their peer's.

``report`` formats the rows ``bench.py`` measured as the section ``SECTION`` of
docs/benchmarks.md (``benchmarks.doc.write_section``).
"""

from __future__ import annotations

import os
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from benchmarks.doc import machine

#: The section of docs/benchmarks.md ``report`` writes.
SECTION = "## Building the store (`make bench`"

#: (label, row key, the target for it or "", the peer's figure or "").
FIGURES: tuple[tuple[str, str, str, str], ...] = (
    ("pages", "pages", "", ""),
    ("full crawl: requests", "full_requests", "", ""),
    ("full crawl: requests per product page", "requests_per_product_page", "at most 2.2", ""),
    ("full build: seconds", "full_seconds", "", ""),
    ("full build: request wall seconds", "full_request_seconds", "", ""),
    ("no-change rebuild: requests", "nochange_requests", "", ""),
    ("no-change rebuild: share of the full crawl's requests", "nochange_share", "at most 0.03", ""),
    ("no-change rebuild: seconds", "nochange_seconds", "", ""),
    ("no-change rebuild: seconds beyond its requests", "nochange_beyond_requests", "", ""),
    ("no-change rebuild: pages rendered", "nochange_rendered", "", ""),
    ("one-product change: requests", "change_requests", "", ""),
    ("one-product change: seconds", "change_seconds", "", ""),
    ("one-product change: request wall seconds", "change_request_seconds", "", ""),
    (
        "one-product change: seconds beyond its requests",
        "change_beyond_requests",
        "under 1 at 10,000; under 2 at 50,000",
        "Hugo's warm server: 3.2 at 10,000, 17 at 50,000",
    ),
    ("one-product change: pages rendered", "change_rendered", "", ""),
    ("`--from-cache --full`: seconds", "render_seconds", "", ""),
    (
        "`--from-cache --full`: whole command, pages/s",
        "render_pages_per_second",
        "at least 2,500 at 10,000; 1,700 at 50,000",
        "Hugo: 2,490 at 10,000, 1,700 at 50,000",
    ),
    ("- slowest and fastest of the runs, pages/s", "render_pages_per_second_range", "", ""),
    (
        "`--from-cache --full`: render and write phase, pages/s",
        "render_phase_pages_per_second",
        "",
        "",
    ),
    ("`--from-cache --full`: user CPU seconds (build and workers)", "render_cpu_user", "", ""),
    ("`--from-cache --full`: kernel CPU seconds (build and workers)", "render_cpu_system", "", ""),
    ("file system: microseconds to create a file, just before", "file_create_us", "", ""),
    ("file system: seconds waited for it to settle, before", "settle_seconds", "", ""),
    ("peak RSS of the largest process, MB", "peak_rss_mb", "", ""),
    (
        "peak memory of the build and its render workers together (PSS), MB",
        "peak_tree_pss_mb",
        "under 500 at 50,000; under 800 at 100,000",
        "Hugo: 2,500 at 50,000",
    ),
    ("- of the full build", "full_peak_tree_pss_mb", "", ""),
    ("- of the no-change rebuild", "nochange_peak_tree_pss_mb", "", ""),
    ("- of the one-product change", "change_peak_tree_pss_mb", "", ""),
    ("- of `--from-cache --full`", "render_peak_tree_pss_mb", "", ""),
    ("output, MB", "output_mb", "", ""),
    ("output bytes per page", "bytes_per_page", "about 7,000", "Hugo's pages: about 7,000"),
)
#: The builds whose phases are shown, by the prefix of their row keys.
BUILDS = (
    ("full", "full build"),
    ("nochange", "no-change rebuild"),
    ("change", "one-product change"),
    ("render", "`--from-cache --full`"),
)


def report(rows: list[dict[str, Any]], pacing: dict[str, Any] | None, *, repo: Path) -> str:
    lines = [
        f"{SECTION}, run of {datetime.now(UTC):%Y-%m-%d %H:%M} UTC)",
        "",
        "Written by `make bench` (`benchmarks/bench.py`); figures only, no pass/fail, with the",
        "targets and the peer's figures beside them. The companion serves the seeded demo",
        "store from its own process on a loopback port; every build is a fresh `storefront",
        "build --api-url ...` process against it over HTTP, so the times are the generator's",
        "from process start to exit. The request wall time is the time with at least one",
        "request in flight; the rest of the build's time is beyond its requests.",
        "",
        f"- Date: {datetime.now(UTC):%Y-%m-%d %H:%M} UTC",
        f"- Machine: {machine()}",
        f"- Load average (1 min) when the run ended: {os.getloadavg()[0]:.1f}",
        "",
        "| figure | target | peer | "
        + " | ".join(f"{r['products']:,} products" for r in rows)
        + " |",
        "|---|---|---|" + "---:|" * len(rows),
    ]
    for label, key, target, peer in FIGURES:
        values = " | ".join(_shown(r.get(key)) for r in rows)
        lines.append(f"| {label} | {target} | {peer} | {values} |")
    lines += ["", "Phases, seconds (wall, from process start):", ""]
    lines += [
        "| build | phase | " + " | ".join(f"{r['products']:,}" for r in rows) + " |",
        "|---|---|" + "---:|" * len(rows),
    ]
    for prefix, name in BUILDS:
        phases: list[str] = []
        for row in rows:
            phases += [p for p in row[f"{prefix}_phases"] if p not in phases]
        for phase in phases:
            values = " | ".join(_shown(r[f"{prefix}_phases"].get(phase)) for r in rows)
            lines.append(f"| {name} | {phase} | {values} |")
    lines.append("")
    if pacing is not None:
        lines += [
            "Pacing (1,000 products, full crawl under a client rate window against a companion",
            f"enforcing the same rate): rate {pacing['rate']}; {pacing['requests']} requests in",
            f"{pacing['crawl_seconds']} s of crawl; share of the allowed rate used: "
            f"{pacing['share_of_allowed_rate']} (target: at least 0.9); 429 answers: "
            f"{pacing['rate_limited']} (target: 0).",
            "",
        ]
    lines += [
        f"Islands (cart, checkout, account, listing JS): {islands(repo)} bytes gzipped in all,",
        "each file compressed on its own as a server sends it "
        f"(target: at most {islands_budget():,}).",
        "",
        "### Reading the figures",
        "",
        "- The companion runs on the same machine and shares its CPUs with the build: the",
        "  request wall time includes the companion's own work, as it would a remote API's.",
        "- Phases: interpreter start, imports and settings (the `storefront` command's imports),",
        "  crawl (list walk, details, crawl cache), plan (site plan and templates), render and",
        "  write (rendering, fingerprints, writing, the swap or update in place), other (state",
        "  and crawl cache saved, the summary), exit (the process ending).",
        "- The peak memory of the build with its workers sums the proportional set size of",
        "  every process of the build, sampled every 0.2 s, so pages shared after the fork count",
        "  once; the largest process's peak RSS is exact (the kernel's high-water mark of the",
        "  build process, or of its largest render worker).",
        "- Before each build the bench waits for the background deletion of an output an",
        "  earlier build replaced, and flushes the disk's writeback (`sync`): each build is",
        "  timed for its own work, not for the one before it.",
        "- The pacing run uses a rate above the real 600/min so that it ends in a minute.",
        "- `--from-cache --full` runs three times per size, each into a folder of its own; the",
        "  table shows the median run (its phases and memory too) and the range. The same",
        "  build varied by a third from one run to the next on this machine.",
        "- Every page is a file, and creating a file is the kernel's work. This machine's ext4",
        "  has no journal, and without one ext4 skips, at every file it creates, each inode of",
        "  the group freed in the last minutes: after a large deletion (a replaced output, an",
        "  earlier bench's folder) a file cost up to 500 microseconds instead of about 20, 5 s",
        "  at 10,000 pages. A journaled file system does not do this. Before the whole renders",
        "  the bench creates 2,000 empty files in its folder, and again every 20 s (10 minutes",
        "  at most) until one costs at most 100 microseconds; the table shows the last probe",
        "  and the wait. The probes' files stay until the bench ends.",
    ]
    if not any(r["products"] >= 100_000 for r in rows):
        lines.append("- 100,000 products: `make bench` (this run was `--quick` or `--sizes`).")
    if not any(r["products"] == 50_000 for r in rows):
        lines.append("- 50,000 products: `make bench BENCH_ARGS=--large`.")
    lines.append("")
    return "\n".join(lines)


def islands(repo: Path) -> str:
    from generator.render.theme import island_sizes

    sizes = island_sizes(repo / "site-templates")
    return f"{sum(sizes.values()):,} ({len(sizes)} files)"


def islands_budget() -> int:
    from generator.render.theme import ISLANDS_BUDGET

    return ISLANDS_BUDGET


def _shown(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:g}" if abs(value) < 1000 else f"{value:,.0f}"
    if isinstance(value, int):
        return f"{value:,}" if abs(value) >= 10_000 else str(value)
    return str(value)
