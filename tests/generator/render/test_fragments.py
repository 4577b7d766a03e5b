"""``{% fragment %}``: rendered once per key, same bytes and same link dependencies per page."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import jinja2

from generator.config import BUNDLED_THEME
from generator.model import PackedProduct
from generator.plan.links import Links, RecordingLinks
from generator.render.fragments import CONTEXT_NAME, FragmentCache, PageFragments
from generator.render.pages import build_environment, render_page, render_recorded
from tests.support.fixture_site import fixture_plan


def _theme(tmp_path: Path, source: str) -> jinja2.Template:
    (tmp_path / "page.html").write_text(source, encoding="utf-8")
    return build_environment(tmp_path).get_template("page.html")


class Counter:
    def __init__(self) -> None:
        self.calls = 0

    def __call__(self) -> int:
        self.calls += 1
        return self.calls


def test_a_fragment_renders_once_per_key(tmp_path: Path) -> None:
    template = _theme(tmp_path, '{% fragment "n", key %}{{ key }}:{{ count() }}{% endfragment %}')
    cache, count = FragmentCache(), Counter()

    def render(key: object) -> str:
        fragments = PageFragments(cache, None)
        return template.render(key=key, count=count, **{CONTEXT_NAME: fragments})

    assert [render("a"), render("b"), render("a"), render("b")] == ["a:1", "b:2", "a:1", "b:2"]
    assert count.calls == 2


def test_an_unhashable_key_renders_every_time(tmp_path: Path) -> None:
    template = _theme(tmp_path, '{% fragment "n", key %}{{ count() }}{% endfragment %}')
    cache, count = FragmentCache(), Counter()
    pages = [
        template.render(key=["a"], count=count, **{CONTEXT_NAME: PageFragments(cache, None)})
        for _ in range(2)
    ]
    assert pages == ["1", "2"]


def test_without_a_cache_the_body_renders_as_it_is(tmp_path: Path) -> None:
    template = _theme(tmp_path, '<p>{% fragment "n" %}{{ "<b>" }}{% endfragment %}</p>')
    assert template.render() == "<p>&lt;b&gt;</p>"


def test_a_reused_fragment_reports_its_links_to_each_page(tmp_path: Path) -> None:
    template = _theme(
        tmp_path,
        '{{ href("/before") }}{% fragment "menu" %}{{ href("/a") }}{{ href("/b") or "" }}'
        '{% endfragment %}{{ href("/after") }}',
    )
    links, cache = Links(["/a", "/before", "/after"]), FragmentCache()
    asked = []
    for _ in range(2):
        recorder = RecordingLinks(links)
        html = template.render(href=recorder.href, **{CONTEXT_NAME: PageFragments(cache, recorder)})
        asked.append((html, list(recorder.asked)))
    assert asked[0] == asked[1] == ("/before/a/after", ["/before", "/a", "/b", "/after"])


def test_nested_captures_collect_into_every_open_block() -> None:
    recorder = RecordingLinks(Links(["/a"]))
    with recorder.capture() as outer:
        recorder.href("/a")
        with recorder.capture() as inner:
            recorder.is_page("/b")
        recorder.replay(["/c"])
    recorder.href("/d")
    assert list(inner) == ["/b"]
    assert list(outer) == ["/a", "/b", "/c"]
    assert list(recorder.asked) == ["/a", "/b", "/c", "/d"]


def test_the_theme_renders_the_same_pages_and_links_with_shared_fragments() -> None:
    """Every page rendered with no fragment kept, against all pages sharing one cache."""
    plan = fixture_plan()
    env = build_environment(BUNDLED_THEME)
    alone = []
    for page in plan.pages:
        recorder = RecordingLinks(plan.links)
        rendered = render_page(dataclasses.replace(plan, links=recorder), page, env, None)
        alone.append((rendered, tuple(recorder.asked)))
    shared = FragmentCache()
    for _ in range(2):
        assert [render_recorded(plan, page, env, shared) for page in plan.pages] == alone
    assert shared.kept  # the header, the footer and the cards were kept


def test_a_partial_imported_without_context_links_and_keeps_its_fragments(tmp_path: Path) -> None:
    """Macros of a partial imported without context see ``href`` and the page's fragments."""
    plan = fixture_plan()
    page = plan.pages[0]
    linked = next(p.path for p in plan.pages if p.kind == "product")
    (tmp_path / "partial.html").write_text(
        '{% macro card(url) %}{% fragment "card", url %}'
        '[{{ href(url) }}|{{ href("/no-such-page") or "text" }}|{{ count() }}]'
        "{% endfragment %}{% endmacro %}",
        encoding="utf-8",
    )
    target = tmp_path / page.template
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(
        '{% from "partial.html" import card %}{{ card(url) }}{{ card(url) }}', encoding="utf-8"
    )
    env = build_environment(tmp_path)
    env.globals["count"] = count = Counter()
    env.globals["url"] = linked
    cache = FragmentCache()
    first, first_urls = render_recorded(plan, page, env, cache)
    second, second_urls = render_recorded(plan, page, env, cache)
    expected = f"[{plan.links.href(linked)}|text|1]"
    assert first.html == second.html == expected * 2
    assert count.calls == 1  # one body render for both calls on both pages
    assert first_urls == second_urls
    assert first_urls[-2:] == (linked, "/no-such-page")  # after what the page context asked


def test_products_sharing_their_related_products_share_one_rendered_grid() -> None:
    plan = fixture_plan()
    env = build_environment(BUNDLED_THEME)
    products = [page for page in plan.pages if page.kind == "product"]
    related = {
        page.subject.related
        for page in products
        if isinstance(page.subject, PackedProduct) and page.subject.related
    }
    assert related, "the fixture has products with related products"
    # A second copy of a product's page (as another product of its category would be):
    # the same choice of related products, one grid kept for both.
    shared = FragmentCache()
    for page in [*products, *products]:
        render_recorded(plan, page, env, shared)
    grids = [key for key in shared.kept if isinstance(key, tuple) and key[2] == "related-products"]
    assert len(grids) == len(related)
