"""Total size of the theme's islands, gzipped one file at a time (as a server sends them).

    python scripts/island_size.py [--theme DIR] [--budget BYTES] [--verbose]

Prints the total in bytes on the first line (what a benchmark reads); with --verbose, each file
too. Exits 1 when the total is above the budget (default ISLANDS_BUDGET, the islands' target),
or an island loaded only on use (ON_DEMAND_BUDGETS, outside the total) is above its own.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from generator.render.theme import ISLANDS_BUDGET, ON_DEMAND_BUDGETS, island_sizes

REPO = Path(__file__).resolve().parents[1]
BUDGET = ISLANDS_BUDGET


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--theme", type=Path, default=REPO / "site-templates")
    parser.add_argument("--budget", type=int, default=BUDGET)
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args(argv)
    sizes = island_sizes(args.theme)
    total = sum(sizes.values())
    print(total)
    on_demand = island_sizes(args.theme, on_demand=True)
    if args.verbose:
        for name, size in sizes.items():
            print(f"{size:>7}  {name}")
        print(f"{total:>7}  total gzipped (budget {args.budget})")
        for name, size in on_demand.items():
            print(f"{size:>7}  {name}, loaded on use (budget {ON_DEMAND_BUDGETS[name]})")
    over = [name for name, size in on_demand.items() if size > ON_DEMAND_BUDGETS[name]]
    return 0 if total <= args.budget and not over else 1


if __name__ == "__main__":
    sys.exit(main())
