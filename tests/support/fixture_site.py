"""The fixture store planned, rendered and written with the default theme, for the tests.

``build_site`` writes through ``write_incremental``, the write stage a build uses; the pages
``rendered_pages`` gives are rendered as a build's workers render them."""

from __future__ import annotations

import functools
from pathlib import Path

import lxml.html

from generator.model import CmsPage
from generator.plan.links import Links
from generator.plan.site_plan import Page, SitePlan, plan_site
from generator.render.fragments import FragmentCache
from generator.render.pages import RenderedPage, build_environment, render_recorded
from generator.write.output import WriteReport
from generator.write.site import write_incremental
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
    return dict(_rendered(plan))


@functools.cache
def _fixture_pages() -> tuple[tuple[str, RenderedPage], ...]:
    return _rendered(fixture_plan())


def _rendered(plan: SitePlan) -> tuple[tuple[str, RenderedPage], ...]:
    env = build_environment(THEME)
    fragments = FragmentCache()
    return tuple((page.path, render_recorded(plan, page, env, fragments)[0]) for page in plan.pages)


def html_of(path: str) -> lxml.html.HtmlElement:
    return lxml.html.document_fromstring(rendered_pages()[path].html)


def write_plan(
    plan: SitePlan,
    out_dir: Path,
    *,
    theme: Path = THEME,
    limits: SitemapLimits | None = None,
    public_dir: Path | None = None,
) -> WriteReport:
    """``plan`` written whole into ``out_dir``, as a first or ``--full`` build writes it."""
    return write_incremental(
        plan,
        build_environment(theme),
        out_dir,
        theme_dir=theme,
        previous=None,
        public_dir=public_dir,
        sitemap_limits=limits,
    ).report


def build_site(out_dir: Path, *, limits: SitemapLimits | None = None) -> WriteReport:
    return write_plan(fixture_plan(), out_dir, limits=limits)


def cms_plan(*paths: str, text: str = "x") -> SitePlan:
    """A plan of CMS pages at ``paths`` (as given, unchecked), each showing ``text``, on the
    fixture store's site: for what the write stage does with pages whatever the plan said."""
    pages = tuple(
        Page(
            path=path,
            kind="cms_page",
            subject=CmsPage(number, text, f"p{number}", path, f"<p>{text}</p>", None, None, None),
            name=text,
            title=text,
            description=text,
            canonical_path=path,
            lastmod=None,
            in_sitemap=True,
            breadcrumb=(),
            image_url=None,
        )
        for number, path in enumerate(paths, start=1)
    )
    return SitePlan(site_url=SITE_URL, site=small_catalog().site, pages=pages, links=Links([]))


def write_with_settings(tmp_path: Path, settings: str | None) -> Path:
    """The fixture plan written into ``tmp_path/out`` with a theme of only ``settings`` (the text
    of a ``theme.toml``; None: no settings file); the output folder."""
    theme = tmp_path / "theme"
    theme.mkdir(parents=True)
    if settings is not None:
        (theme / "theme.toml").write_text(settings, encoding="utf-8")
    out = tmp_path / "out"
    write_plan(fixture_plan(), out, theme=theme)
    return out
