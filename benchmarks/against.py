"""`make bench-against REF=<revision>`: this tree's build figures beside another revision's.

This machine's speed drifts by a third from hour to hour, so a figure compared with one taken
on another day means little. This runs both versions of the generator in one run, on one store:

- the demo store of ``--products`` products (default 10,000) is seeded once and served by the
  companion of this tree (loopback, rate limits out of the way);
- ``REF`` is checked out into a temporary worktree; each tree fills its own crawl cache with a
  full crawl; then ``--runs`` rounds (default 3) of one product's price change (the same change
  for both trees), each tree rebuilding; then ``--runs`` rounds of each tree rendering its last
  crawl whole (``--from-cache --full``). The trees alternate, the first of a round changing
  from round to round;
- each build is a fresh process (``build.py`` of its own tree), timed from start to exit.

It prints the median of each figure per tree and their ratio: the one-product change's time
beyond its requests, the whole render's pages per second, and the peak memory of a build with
its render workers (proportional set size, the most of all its builds).
"""

from __future__ import annotations

import argparse
import compileall
import json
import shutil
import statistics
import subprocess
import tempfile
from pathlib import Path
from typing import Any

from benchmarks.bench import NO_LIMIT, REPO, change_one_price
from benchmarks.bench import build as bench_build
from benchmarks.bench import seed as seed_store
from benchmarks.procs import companion_server


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("ref", help="the git revision to measure beside this tree")
    parser.add_argument("--products", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="storefront-against-") as scratch:
        folder = Path(scratch)
        other = folder / "other-tree"
        subprocess.run(
            ["git", "-C", str(REPO), "worktree", "add", "--detach", str(other), args.ref],
            check=True,
            capture_output=True,
        )
        try:
            figures = compare(folder, {"this": REPO, args.ref: other}, args.products, args.runs)
        finally:
            subprocess.run(
                ["git", "-C", str(REPO), "worktree", "remove", "--force", str(other)],
                check=False,
                capture_output=True,
            )
    print(table(figures, this="this", other=args.ref, products=args.products, runs=args.runs))
    return 0


def compare(
    folder: Path, trees: dict[str, Path], products: int, runs: int
) -> dict[str, dict[str, list[float]]]:
    for tree in trees.values():
        for package in ("generator", "companion"):
            compileall.compile_dir(tree / package, quiet=1)
    db = folder / "store.sqlite3"
    key = seed_store(db, products)
    figures: dict[str, dict[str, list[float]]] = {
        name: {"change_beyond": [], "render_pages_per_second": [], "peak_pss_mb": []}
        for name in trees
    }
    log = folder / "companion.log"
    with companion_server(db, rate_per_minute=NO_LIMIT, rate_per_hour=NO_LIMIT, log=log) as url:
        common = {"api_url": url, "key": key}
        for name, tree in trees.items():
            full = build(tree, folder / name, {**common, "full": True})
            figures[name]["peak_pss_mb"].append(full["peak_tree_pss_mb"])
        names = list(trees)
        # The one-product changes first, then the whole renders: a render writes another
        # output folder, and the records it leaves would make the next change a whole render.
        for run in range(runs):
            order = names if run % 2 == 0 else names[::-1]
            change_one_price(db)
            for name in order:
                changed = build(trees[name], folder / name, common)
                figures[name]["change_beyond"].append(changed["beyond_requests"])
                for phase, seconds in changed["phases"].items():
                    figures[name].setdefault(f"change phase: {phase}", []).append(seconds)
                figures[name]["peak_pss_mb"].append(changed["peak_tree_pss_mb"])
        for run in range(runs):
            order = names if run % 2 == 0 else names[::-1]
            for name in order:
                job = {**common, "full": True, "from_cache": True, "out": f"render-{run}"}
                render = build(trees[name], folder / name, job)
                figures[name]["render_pages_per_second"].append(render["pages"] / render["seconds"])
                figures[name]["peak_pss_mb"].append(render["peak_tree_pss_mb"])
                shutil.rmtree(folder / name / f"render-{run}", ignore_errors=True)
        print(json.dumps(figures), flush=True)
    return figures


def build(tree: Path, folder: Path, job: dict[str, Any]) -> dict[str, Any]:
    """One build by the generator of ``tree`` into ``folder``; its figures."""
    folder.mkdir(parents=True, exist_ok=True)
    return bench_build({**job, "folder": folder}, tree)


def table(
    figures: dict[str, dict[str, list[float]]], *, this: str, other: str, products: int, runs: int
) -> str:
    rows = [
        ("one-product change beyond its requests (s)", "change_beyond"),
        ("--from-cache --full (pages/s)", "render_pages_per_second"),
        ("peak memory with workers (MB)", "peak_pss_mb"),
    ]
    lines = [
        f"{products:,} products, {runs} alternated runs per tree, medians "
        f"(peak memory: the most of any build)",
        "",
        f"| figure | {other} | this tree | this / {other} |",
        "|---|---:|---:|---:|",
    ]
    # The one-product change's phases (medians), as build.py splits a build's time.
    phases = sorted(
        {name for name in figures[this] if name.startswith("change phase: ")}
        & {name for name in figures[other] if name.startswith("change phase: ")}
    )
    rows += [(f"- {name.removeprefix('change ')} (s)", name) for name in phases]
    for label, name in rows:
        pick = max if name == "peak_pss_mb" else statistics.median
        mine, theirs = pick(figures[this][name]), pick(figures[other][name])
        ratio = f"{mine / theirs:.2f}" if theirs else "-"
        lines.append(f"| {label} | {theirs:,.2f} | {mine:,.2f} | {ratio} |")
    return "\n".join(lines)


if __name__ == "__main__":
    raise SystemExit(main())
