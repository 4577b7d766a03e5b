"""The demo build as a merchant deploys it: real nginx with the shipped server block (no
`storefront serve`), `storefront session` and the companion as separate processes on other
ports, each started exactly as deploy/README.md says."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from companion.seed.demo import DEMO_KEY
from tests.browser.live_server import DEMO_PRODUCTS
from tests.generator.test_deploy_nginx import running_nginx
from tests.support.processes import free_port, running_companion, running_session


@dataclass(frozen=True, slots=True)
class Deployed:
    site: str  # nginx's origin: what the shopper's browser opens
    api_url: str  # the companion's API base, for reading what the backend computes


@contextmanager
def deployed(out: Path, work: Path, *, order_discounts: bool = True) -> Iterator[Deployed]:
    """``order_discounts``: False plays a backend that follows the spec to the letter (order-
    level coupons and promotions priced in the quote, not written to the order)."""
    extra = [] if order_discounts else ["--no-order-discounts"]
    with (
        running_companion(work, products=DEMO_PRODUCTS, extra=extra) as api_url,
        running_session(
            work, api_url=api_url, key=DEMO_KEY, extra=["--trusted-proxy", "127.0.0.1"]
        ) as (session, _process),
        running_nginx(out, work / "nginx", session=session.removeprefix("http://")) as site,
    ):
        yield Deployed(site, api_url)


@contextmanager
def session_down(out: Path, work: Path) -> Iterator[str]:
    """nginx with the shipped config whose session service is not running: its origin."""
    with running_nginx(out, work / "nginx-down", session=f"127.0.0.1:{free_port()}") as site:
        yield site
