"""--from-cache renders the last crawl with no API at all; --full ignores every record."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from companion.webhooks.events import Entity
from generator.config import BUNDLED_THEME
from generator.errors import ConfigError
from tests.support.incremental_store import (
    CrawledStores,
    DemoStore,
    build,
    config_for,
    folder_bytes,
)


def test_from_cache_renders_the_last_crawl_without_the_api(
    tmp_path: Path, crawled_stores: CrawledStores
) -> None:
    store = crawled_stores.copy(tmp_path, products=6)
    try:
        crawled = folder_bytes(tmp_path / "out")
        store.set_price(store.ids(Entity.PRODUCT)[0], 1_000)  # not seen: no API is asked
    finally:
        store.close()
    summary, printed = build(None, config_for(tmp_path, out="again", full=True, from_cache=True))
    assert summary.requests == 0
    assert folder_bytes(tmp_path / "again") == crawled
    assert "fetched 0 answers from the API" in printed


def test_from_cache_without_a_crawl_is_a_one_line_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="no crawl cache"):
        build(None, config_for(tmp_path, from_cache=True))


def test_full_renders_every_page_again(tmp_path: Path) -> None:
    store = DemoStore(tmp_path, products=6)
    try:
        first, _ = build(store, config_for(tmp_path))
        again, printed = build(store, config_for(tmp_path, full=True))
    finally:
        store.close()
    found = re.search(r"rendered (\d+) pages, kept (\d+)", printed)
    assert found is not None
    assert (int(found[1]), int(found[2])) == (again.pages, 0)
    assert again.requests == first.requests


def test_template_edit_renders_only_the_pages_that_use_it(tmp_path: Path) -> None:
    theme = tmp_path / "theme"
    shutil.copytree(BUNDLED_THEME, theme)
    store = DemoStore(tmp_path, products=6)
    try:
        build(store, config_for(tmp_path, templates=theme))
        article = theme / "article.html"
        article.write_text(article.read_text().replace("</article>", "<!-- x --></article>", 1))
        summary, printed = build(store, config_for(tmp_path, templates=theme))
    finally:
        store.close()
    found = re.search(r"rendered (\d+) pages", printed)
    assert found is not None
    assert int(found[1]) == summary.pages_by_kind["article"]
    out = tmp_path / "out"
    articles = list((out / "bai-viet").glob("*.html"))
    assert articles
    assert all(b"<!-- x -->" in page.read_bytes() for page in articles)


def test_templates_kept_between_builds_follow_every_edit(tmp_path: Path) -> None:
    """Compiled templates and what each template names are kept between builds (in the cache
    folder and the build state), keyed by source: an edit is seen at once, a new partial
    included by an edit is followed, and an edit of that partial re-renders its pages."""
    theme = tmp_path / "theme"
    shutil.copytree(BUNDLED_THEME, theme)
    store = DemoStore(tmp_path, products=6)
    out = tmp_path / "out"
    product = theme / "product.html"
    partial = theme / "partials" / "extra_note.html"
    try:
        first, _ = build(store, config_for(tmp_path, templates=theme))
        products = first.pages_by_kind["product"]
        assert list((tmp_path / "cache" / "templates").rglob("*.cache"))  # compiled, kept

        partial.write_text("<p>first note</p>\n")
        source = product.read_text()
        assert "{% endblock %}" in source
        head, _, tail = source.rpartition("{% endblock %}")
        product.write_text(head + '{% include "partials/extra_note.html" %}{% endblock %}' + tail)
        _, printed = build(store, config_for(tmp_path, templates=theme))
        assert _rendered(printed) == products
        assert all(b"first note" in page.read_bytes() for page in (out / "san-pham").glob("*.html"))

        partial.write_text("<p>second note</p>\n")
        _, printed = build(store, config_for(tmp_path, templates=theme))
        assert _rendered(printed) == products
        pages = list((out / "san-pham").glob("*.html"))
        assert pages and all(b"second note" in page.read_bytes() for page in pages)

        _, printed = build(store, config_for(tmp_path, templates=theme))
        assert _rendered(printed) == 0
    finally:
        store.close()


def _rendered(printed: str) -> int:
    found = re.search(r"rendered (\d+) pages", printed)
    assert found is not None
    return int(found[1])


def test_the_code_digest_is_taken_when_the_generator_is_imported() -> None:
    """The code a build runs is the code it imported: a generator upgraded in place while a
    build runs must not have the new code's digest recorded for what the old code rendered."""
    shown = subprocess.run(
        [
            sys.executable,
            "-c",
            "from generator.write import incremental as i; "
            "print(i.code_digest.cache_info().misses)",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    assert shown.stdout.strip() == "1"  # already worked out, by the import itself


def test_session_url_puts_netlifys_proxy_rule_in_the_output(tmp_path: Path) -> None:
    """Set by the environment, as on Netlify; a build without it writes no rule."""
    import argparse

    from generator.config import SETTINGS, resolve
    from generator.xstore import Descriptor

    environ = {"STOREFRONT_SESSION_URL": "https://session.example.vn/"}
    args = argparse.Namespace(**{s.name: None for s in SETTINGS})
    session_url = resolve(args, environ=environ, descriptor=Descriptor()).session_url
    assert session_url == "https://session.example.vn"
    store = DemoStore(tmp_path, products=2)
    try:
        config = replace(config_for(tmp_path), session_url=session_url)
        build(store, config)
        build(store, config_for(tmp_path, out="plain", cache="cache-plain"))
    finally:
        store.close()
    rule = (tmp_path / "out" / "_redirects").read_text(encoding="utf-8")
    assert "/session/*  https://session.example.vn/session/:splat  200" in rule
    assert not (tmp_path / "plain" / "_redirects").exists()
