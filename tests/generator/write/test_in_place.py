"""An incremental build updates the output in place: only what changed is moved in, what went
away is deleted, and an interrupted update is followed by a build that writes everything."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from companion.webhooks.events import Entity
from generator.config import BUNDLED_THEME
from generator.errors import WriteError
from generator.write import site as incremental_write
from generator.write.in_place import commit_in_place, fits
from generator.write.incremental import STATE_FILE
from tests.support.incremental_store import (
    CrawledStores,
    DemoStore,
    build,
    config_for,
    folder_bytes,
)


def _tree(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)


def test_commit_moves_staged_files_in_and_deletes_what_went(tmp_path: Path) -> None:
    out, staging = tmp_path / "out", tmp_path / "staging"
    _tree(out, {"index.html": "old", "a/b/c.html": "gone", "a/keep.html": "kept", "x.html": "x"})
    _tree(staging, {"index.html": "new", "d/e.html": "added"})
    files = ["index.html", "d/e.html"]
    assert fits(out, files, ["a/b/c.html"])
    commit_in_place(staging, out, files, ["a/b/c.html", "missing.html"])
    assert folder_bytes(out) == {
        "a": None,  # still holds keep.html; a/b went with its last file
        "a/keep.html": b"kept",
        "d": None,
        "d/e.html": b"added",
        "index.html": b"new",
        "x.html": b"x",
    }
    assert not staging.exists()


def test_a_staged_file_that_cannot_take_its_place_does_not_fit(tmp_path: Path) -> None:
    out = tmp_path / "out"
    _tree(out, {"a/index.html": "folder here", "b.html": "a file"})
    assert not fits(out, ["a"])  # a folder where the file goes
    assert not fits(out, ["b.html/c.html"])  # a file where a folder must be
    assert fits(out, ["b.html/c.html"], gone=["b.html"])  # unless that file is going
    assert fits(out, ["a/other.html", "new/page.html", "b.html"])


def _price_change(store: DemoStore) -> None:
    store.set_price(store.ids(Entity.PRODUCT)[0], 654_000)


def _full_build(store: DemoStore, folder: Path) -> dict[str, bytes | None]:
    """What a --full build of the store's data now writes (beside the incremental output)."""
    build(store, config_for(folder, out="full", cache="full-cache", full=True))
    return folder_bytes(folder / "full")


def test_a_rebuild_keeps_the_output_folder_and_its_unchanged_files(
    tmp_path: Path, crawled_stores: CrawledStores
) -> None:
    store = crawled_stores.copy(tmp_path, products=6)
    try:
        out = tmp_path / "out"
        folder_inode = out.stat().st_ino
        inodes = {p: p.stat().st_ino for p in out.rglob("*.html")}
        before = folder_bytes(out)
        _price_change(store)
        build(store, config_for(tmp_path))
        full = _full_build(store, tmp_path)
    finally:
        store.close()
    assert out.stat().st_ino == folder_inode  # updated in place, not swapped
    after = folder_bytes(out)
    assert after == full
    changed = {name for name in after if before.get(name) != after[name]}
    assert changed and "sitemap.xml" in changed
    for path, inode in inodes.items():
        name = path.relative_to(out).as_posix()
        assert (path.stat().st_ino == inode) == (name not in changed), name
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith("out.")] == []


def test_a_failed_rebuild_changes_nothing_in_place(tmp_path: Path) -> None:
    theme = tmp_path / "theme"
    store = DemoStore(tmp_path, products=6)
    try:
        shutil.copytree(BUNDLED_THEME, theme)
        build(store, config_for(tmp_path, templates=theme))
        before = folder_bytes(tmp_path / "out")
        _price_change(store)
        product = theme / "product.html"
        source = product.read_text()
        assert "{% block content %}" in source
        broken = source.replace("{% block content %}", "{% block content %}{{ no_such_name }}")
        product.write_text(broken)
        with pytest.raises(Exception, match="no_such_name"):
            build(store, config_for(tmp_path, templates=theme))
    finally:
        store.close()
    assert folder_bytes(tmp_path / "out") == before
    assert (tmp_path / "cache" / STATE_FILE).is_file()  # nothing was committed: records kept


def test_an_interrupted_update_is_followed_by_a_whole_build(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, crawled_stores: CrawledStores
) -> None:
    store = crawled_stores.copy(tmp_path, products=6)
    try:
        _price_change(store)

        def interrupted(staging: Path, out: Path, files: list[str], gone: set[str]) -> None:
            first = sorted(files)[0]
            os.replace(staging / first, out / first)  # one file moved, then the machine stops
            raise WriteError("disk gone")

        with monkeypatch.context() as patched:
            patched.setattr(incremental_write, "commit_in_place", interrupted)
            with pytest.raises(WriteError):
                build(store, config_for(tmp_path))
        assert not (tmp_path / "cache" / STATE_FILE).exists()  # forgotten before the update
        _, printed = build(store, config_for(tmp_path))
        full = _full_build(store, tmp_path)
    finally:
        store.close()
    assert "kept 0" in printed  # no records: every page rendered again
    assert folder_bytes(tmp_path / "out") == full


def test_a_file_that_cannot_be_updated_in_place_makes_a_whole_new_output(
    tmp_path: Path, crawled_stores: CrawledStores
) -> None:
    store = crawled_stores.copy(tmp_path, products=6)
    try:
        out = tmp_path / "out"
        folder_inode = out.stat().st_ino
        _price_change(store)
        (out / "sitemap.xml").unlink()
        (out / "sitemap.xml").mkdir()  # a folder where the build writes a file
        build(store, config_for(tmp_path))
        full = _full_build(store, tmp_path)
    finally:
        store.close()
    assert out.stat().st_ino != folder_inode  # swapped in whole
    assert folder_bytes(out) == full
