"""A broken theme template stops the build with one line naming the template and line."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from generator.errors import TemplateError
from tests.support.fixture_site import THEME, fixture_plan, write_plan


def theme_copy(tmp_path: Path) -> Path:
    theme = tmp_path / "theme"
    shutil.copytree(THEME, theme)
    return theme


def render_all(theme: Path) -> None:
    write_plan(fixture_plan(), theme.parent / "out", theme=theme)


def test_undefined_name_names_the_template_and_line(tmp_path: Path) -> None:
    theme = theme_copy(tmp_path)
    (theme / "page.html").write_text(
        '{% extends "base.html" %}\n{% block content %}\n<p>{{ no_such_thing }}</p>\n'
        "{% endblock %}\n"
    )
    expected = r"^page\.html, line 3: UndefinedError: .*no_such_thing"
    with pytest.raises(TemplateError, match=expected):
        render_all(theme)


def test_error_inside_a_partial_names_the_partial(tmp_path: Path) -> None:
    theme = theme_copy(tmp_path)
    breadcrumb = theme / "partials" / "breadcrumb.html"
    source = breadcrumb.read_text().replace("{{ crumb.name }}", "{{ crumb.title }}", 1)
    breadcrumb.write_text(source)
    with pytest.raises(TemplateError, match=r"^partials/breadcrumb\.html, line \d+: "):
        render_all(theme)


def test_syntax_error_names_the_template_and_line(tmp_path: Path) -> None:
    theme = theme_copy(tmp_path)
    (theme / "article.html").write_text("line one\n{% if %}\n")
    with pytest.raises(TemplateError, match=r"article\.html, line 2: "):
        render_all(theme)


def test_missing_template_is_reported_with_the_template_asking_and_the_page(
    tmp_path: Path,
) -> None:
    theme = theme_copy(tmp_path)
    collection = theme / "collection.html"
    source = collection.read_text()
    collection.write_text(
        source.replace(
            "{% block content %}", '{% block content %}{% include "partials/nope.html" %}', 1
        )
    )
    with pytest.raises(
        TemplateError,
        match=r"^collection\.html, line \d+: template 'partials/nope\.html' not found "
        r".*/bo-suu-tap/he-2026",
    ):
        render_all(theme)


def test_a_template_missing_from_the_theme_comes_from_the_default(tmp_path: Path) -> None:
    theme = theme_copy(tmp_path)
    (theme / "collection.html").unlink()
    render_all(theme)
    assert list((tmp_path / "out").glob("bo-suu-tap/he-2026*"))


def test_template_error_is_one_line(tmp_path: Path) -> None:
    theme = theme_copy(tmp_path)
    (theme / "404.html").write_text("{{ 1 / 0 }}")
    with pytest.raises(TemplateError) as caught:
        render_all(theme)
    assert "\n" not in str(caught.value)
    assert "404.html, line 1" in str(caught.value)
