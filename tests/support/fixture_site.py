"""The fixture store planned, rendered and written with the default theme, for the tests."""

from __future__ import annotations

import functools
from pathlib import Path

import lxml.html

from generator.plan.site_plan import SitePlan, plan_site
from generator.render.pages import RenderedPage, build_environment, render_site
from generator.write.output import WriteReport, write_site
from generator.write.sitemap import SitemapLimits
from tests.support.fixture_store import SITE_URL, small_catalog

REPO = Path(__file__).resolve().parents[2]
THEME = REPO / "site-templates"
SCHEMAS = REPO / "generator" / "audit" / "sitemaps_xsd"


def fixture_plan() -> SitePlan:
    return plan_site(small_catalog(), SITE_URL)


def rendered_pages(plan: SitePlan | None = None) -> dict[str, RenderedPage]:
    """Rendered pages by url path (public spelling); the fixture store's are rendered once."""
    if plan is None:
        return dict(_fixture_pages())
    return {page.path: page for page in render_site(plan, build_environment(THEME))}


@functools.cache
def _fixture_pages() -> tuple[tuple[str, RenderedPage], ...]:
    plan = fixture_plan()
    return tuple((page.path, page) for page in render_site(plan, build_environment(THEME)))


def html_of(path: str) -> lxml.html.HtmlElement:
    return lxml.html.document_fromstring(rendered_pages()[path].html)


def build_site(out_dir: Path, *, limits: SitemapLimits | None = None) -> WriteReport:
    plan = fixture_plan()
    return write_site(
        render_site(plan, build_environment(THEME)),
        out_dir,
        theme_dir=THEME,
        site_url=SITE_URL,
        sitemap_limits=limits,
    )
