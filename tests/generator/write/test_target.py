"""An output folder or a --cache-dir the build would refuse is refused before its first request,
and so is a second build of an output that a build is writing."""

from __future__ import annotations

from pathlib import Path

import pytest

from generator.write.place import hold_output
from tests.support.incremental_store import DemoStore, build, config_for, refused_build


def test_a_folder_the_build_did_not_write_costs_no_requests(
    store: DemoStore, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "notes.txt").write_text("mine", encoding="utf-8")
    asked, error = refused_build(store, config_for(tmp_path))
    assert asked == []
    assert "not written by a build" in error
    assert (out / "notes.txt").read_text(encoding="utf-8") == "mine"


def test_the_home_folder_costs_no_requests(
    store: DemoStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    asked, error = refused_build(store, config_for(tmp_path, out="home"))
    assert asked == []
    assert "choose a subfolder" in error


def test_a_file_costs_no_requests(store: DemoStore, tmp_path: Path) -> None:
    (tmp_path / "out").write_text("a file", encoding="utf-8")
    asked, error = refused_build(store, config_for(tmp_path))
    assert asked == []
    assert "not a folder" in error


def test_a_path_through_a_file_costs_no_requests(store: DemoStore, tmp_path: Path) -> None:
    (tmp_path / "README.md").write_text("a file", encoding="utf-8")
    asked, error = refused_build(store, config_for(tmp_path, out="README.md/site"))
    assert asked == []
    assert error.startswith(f"cannot make the folder {tmp_path / 'README.md'} of the output")
    assert "\n" not in error


@pytest.mark.parametrize("cache", ["a-file", "a-file/cache"])
def test_a_cache_dir_that_cannot_be_made_costs_no_requests(
    store: DemoStore, tmp_path: Path, cache: str
) -> None:
    (tmp_path / "a-file").write_text("a file", encoding="utf-8")
    asked, error = refused_build(store, config_for(tmp_path, cache=cache))
    assert asked == []
    assert error.startswith(f"--cache-dir {tmp_path / cache}: cannot make this folder")
    assert not (tmp_path / "out").exists()


def test_a_second_build_of_an_output_being_built_is_refused_before_its_first_request(
    store: DemoStore, tmp_path: Path
) -> None:
    """The first build holds the output's lock from before its crawl: the second one, which
    would share its crawl cache, stops at once and names the holder."""
    config = config_for(tmp_path)
    with hold_output(config.out):  # as a build in another process holds it
        asked, error = refused_build(store, config)
    assert asked == []
    assert error.startswith("another build") and "\n" not in error
    build(store, config)
    assert (config.out / "index.html").is_file()  # the lock is free again once it is let go
