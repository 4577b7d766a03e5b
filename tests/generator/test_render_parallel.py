"""Rendering across processes gives exactly the single-process pages, in order."""

from __future__ import annotations

from generator.config import BUNDLED_THEME
from generator.render import build_environment
from generator.render_parallel import render_many
from tests.generator.fixture_site import fixture_plan


def test_parallel_rendering_equals_single_process_rendering() -> None:
    plan = fixture_plan()
    pages = list(plan.pages) * 3  # enough work for two workers and several chunks
    single = list(render_many(plan, pages, build_environment(BUNDLED_THEME), workers=1))
    parallel = list(
        render_many(plan, pages, build_environment(BUNDLED_THEME), workers=2, min_pages=1, chunk=5)
    )
    assert [page.path for page, _ in parallel] == [page.path for page in pages]
    assert parallel == single


def test_each_page_records_the_urls_it_linked() -> None:
    plan = fixture_plan()
    home = next(page for page in plan.pages if page.path == "/")
    [(_, urls)] = render_many(plan, [home], build_environment(BUNDLED_THEME), workers=1)
    assert urls  # the menus alone link somewhere
    assert all(isinstance(url, str) and url for url in urls)
