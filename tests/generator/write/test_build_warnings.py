"""The build's warnings in its output: written when it has some, gone with the next build that
has none, whether that build swaps a new output in or updates the last one in place."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from generator.model import UnusableUrl
from generator.render.pages import build_environment
from generator.write.build_warnings import WARNINGS_FILE, read_warnings
from generator.write.site import IncrementalResult, write_incremental
from tests.support.fixture_site import THEME, cms_plan

UNUSABLE = (
    UnusableUrl("product 1", "javascript:alert(document.domain)//"),
    UnusableUrl("menu main: item 'Áo'", "/a\\b\n"),
)


def build(
    out: Path, unusable: tuple[UnusableUrl, ...], previous: IncrementalResult | None = None
) -> IncrementalResult:
    plan = dataclasses.replace(cms_plan("/", "/a", text="x"), unusable_urls=unusable)
    return write_incremental(
        plan,
        build_environment(THEME),
        out,
        theme_dir=THEME,
        previous=previous.state if previous is not None else None,
    )


@pytest.mark.parametrize("in_place", [True, False], ids=["in place", "swapped in"])
def test_the_warnings_come_and_go_with_the_builds(tmp_path: Path, in_place: bool) -> None:
    out = tmp_path / "out"
    first = build(out, UNUSABLE)
    assert read_warnings(out) == UNUSABLE
    assert WARNINGS_FILE in first.report.extra_files
    second = build(out, (), previous=first if in_place else None)
    assert not (out / WARNINGS_FILE).exists()
    assert read_warnings(out) == ()
    assert (out / "a.html").is_file()
    build(out, UNUSABLE[:1], previous=second if in_place else None)
    assert read_warnings(out) == UNUSABLE[:1]


def test_a_file_that_is_not_a_builds_is_refused(tmp_path: Path) -> None:
    (tmp_path / WARNINGS_FILE).write_text('{"unusable_urls": [{"what": 1}]}', encoding="utf-8")
    with pytest.raises(ValueError, match="not a"):
        read_warnings(tmp_path)
