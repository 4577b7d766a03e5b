"""The islands' shell pages in the site plan: noindex, out of the sitemap, yielding to merchants."""

from __future__ import annotations

from dataclasses import replace

from generator.crawl.settings import CrawlSettings
from generator.plan.site_plan import plan_site
from generator.shells import SHELL_PATHS, SHELLS
from tests.support.fixture_store import SITE_URL, small_catalog


def test_every_shell_is_planned_without_canonical_and_out_of_the_sitemap() -> None:
    plan = plan_site(small_catalog(), SITE_URL)
    shells = {p.path: p for p in plan.pages if p.path in SHELL_PATHS}
    assert set(shells) == SHELL_PATHS
    for shell in SHELLS:
        page = shells[shell.path]
        assert page.kind == shell.kind and page.template == shell.template
        assert page.canonical_path is None and not page.in_sitemap
    assert plan.links.href("/gio-hang") == "/gio-hang"


def test_merchant_page_at_a_shell_path_wins_over_the_shell() -> None:
    catalog = small_catalog()
    merchant = replace(catalog.pages[0], url="/gio-hang")
    plan = plan_site(replace(catalog, pages=(merchant, *catalog.pages[1:])), SITE_URL)
    at_cart = [p for p in plan.pages if p.path == "/gio-hang"]
    assert [p.kind for p in at_cart] == ["cms_page"]


def test_crawl_treats_shell_paths_as_built_in() -> None:
    assert SHELL_PATHS <= CrawlSettings().builtin_paths
