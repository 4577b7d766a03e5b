"""The storefront generator: crawl -> plan -> render -> write (docs/architecture.md)."""

import sys

# httpx's package imports its own command-line client whenever that client's dependencies are
# installed (click, pygments, rich: the companion's server brings them), a cost at every
# command's start for a tool the generator never runs. An entry of None makes that import
# fail, and httpx then goes without it.
sys.modules.setdefault("httpx._main", None)  # type: ignore[arg-type]
