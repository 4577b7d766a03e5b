"""--cache-dir is the build's own folder: one that overlaps the output or the theme, a root, or
a folder of someone's files is refused before the first request, and so is a second build
using it while a build does."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from generator.cache_folder import MARKER, hold_cache_dir
from tests.support.incremental_store import DemoStore, build, config_for, refused_build


@pytest.mark.parametrize("cache", ["out", "out/state", "."])
def test_a_cache_dir_that_overlaps_the_output_is_refused(
    store: DemoStore, tmp_path: Path, cache: str
) -> None:
    config = config_for(tmp_path, cache=cache)
    asked, error = refused_build(store, config)
    assert asked == []
    assert error.startswith(f"--cache-dir {tmp_path / cache} overlaps --out")
    assert not (tmp_path / "out").exists()


def test_a_cache_dir_in_the_theme_layer_is_refused(store: DemoStore, tmp_path: Path) -> None:
    theme = tmp_path / "theme"
    theme.mkdir()
    config = dataclasses.replace(config_for(tmp_path, cache="theme/state"), templates=theme)
    asked, error = refused_build(store, config)
    assert asked == []
    assert "overlaps the theme layer" in error
    assert list(theme.iterdir()) == []


def test_a_folder_of_other_files_is_not_filled_with_build_state(
    store: DemoStore, tmp_path: Path
) -> None:
    mine = tmp_path / "cache"
    mine.mkdir()
    (mine / "notes.txt").write_text("mine", encoding="utf-8")
    asked, error = refused_build(store, config_for(tmp_path))
    assert asked == []
    assert error == (
        f"--cache-dir {mine}: it holds files that are not a build's state; empty it or choose "
        "another folder"
    )
    assert [p.name for p in mine.iterdir()] == ["notes.txt"]


def test_a_build_marks_its_cache_and_takes_one_an_earlier_version_left(
    store: DemoStore, tmp_path: Path
) -> None:
    config = config_for(tmp_path)
    build(store, config)
    assert (config.cache_dir / MARKER).is_file()
    (config.cache_dir / MARKER).unlink()  # as an earlier version left it: its files, no marker
    build(store, config)
    assert (config.cache_dir / MARKER).is_file()


def test_a_second_build_using_the_cache_folder_is_refused_before_its_first_request(
    store: DemoStore, tmp_path: Path
) -> None:
    """Two outputs, one cache folder: the second build would rewrite the crawl cache the first
    is reading."""
    config = config_for(tmp_path)
    config.cache_dir.mkdir()
    with hold_cache_dir(config.cache_dir):  # as a build of another output holds it
        asked, error = refused_build(store, config_for(tmp_path, out="other"))
    assert asked == []
    assert error.startswith("another build") and "is using the cache folder" in error
    assert "\n" not in error
    build(store, config_for(tmp_path, out="other"))  # free again once let go
    assert (tmp_path / "other" / "index.html").is_file()
