"""An output folder that is a mount point (a tmpfs, a volume, a bind mount), as in containers
and CI: it cannot be renamed, so a build updates it by its contents.

The tests mount a tmpfs, or bind a folder, on the output folder; they need root (or the
capability to mount) and are skipped where mounting is not permitted."""

from __future__ import annotations

import dataclasses
import os
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from generator.model import UnusableUrl
from generator.render.pages import build_environment
from generator.write import output as write_module
from generator.write.build_warnings import WARNINGS_FILE, read_warnings
from generator.write.site import IncrementalResult, write_incremental
from generator.write.target import MARKER_FILE
from tests.support.fixture_site import THEME, cms_plan

BESIDES_PAGES = {".nojekyll", "_headers", "_csp.conf", MARKER_FILE, "sitemap.xml", "robots.txt"}
SECONDS = 30
UNUSABLE = UnusableUrl("product 1", "javascript:alert(document.domain)//")


def _run(*command: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, capture_output=True, text=True, check=False)


@pytest.fixture(params=["tmpfs", "bind"])
def mounted(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Path]:
    """An empty output folder that is a mount point: a tmpfs of its own, or another folder of
    the same file system bound there (which ``os.path.ismount`` does not see)."""
    if shutil.which("mount") is None:
        pytest.skip("no mount command")
    out = tmp_path / "out"
    out.mkdir()
    if request.param == "tmpfs":
        mounting = _run("mount", "-t", "tmpfs", "-o", "size=64m", "tmpfs", str(out))
    else:
        volume = tmp_path / "volume"
        volume.mkdir()
        mounting = _run("mount", "--bind", str(volume), str(out))
    if mounting.returncode != 0:
        pytest.skip(f"cannot mount here: {mounting.stderr.strip() or mounting.returncode}")
    try:
        yield out
    finally:
        _wait_for_deleters()
        if _run("umount", str(out)).returncode != 0:
            _run("umount", "--lazy", str(out))


def _wait_for_deleters() -> None:
    """The background deleters of replaced outputs are done (they hold files in the mount)."""
    deadline = time.monotonic() + SECONDS
    while write_module._deleting:
        assert time.monotonic() < deadline, "a deleter did not end"
        write_module._reap()
        time.sleep(0.02)


def build(
    out: Path, *paths: str, text: str, previous: IncrementalResult | None = None
) -> IncrementalResult:
    """CMS pages written into ``out``: whole (a first or --full build) unless ``previous``."""
    return write_incremental(
        cms_plan(*paths, text=text),
        build_environment(THEME),
        out,
        theme_dir=THEME,
        previous=previous.state if previous is not None else None,
    )


def files_under(root: Path) -> set[str]:
    """The output's files; not the build's working folders (hidden, the old ones deleted in
    the background)."""
    entries = [e for e in root.iterdir() if not e.name.startswith(".storefront.")]
    files = [e for e in entries if e.is_file()]
    files += [p for e in entries if e.is_dir() for p in e.rglob("*") if p.is_file()]
    return {p.relative_to(root).as_posix() for p in files}


def pages_under(root: Path) -> set[str]:
    return {name for name in files_under(root) if not name.startswith("_assets/")}


def test_builds_update_a_mounted_output_by_its_contents(mounted: Path) -> None:
    root = mounted.stat()
    (mounted / ".keep").write_text("kept")
    first = build(mounted, "/", "/old", "/a/b", text="one")
    assert pages_under(mounted) == {"index.html", "old.html", "a/b.html", ".keep", *BESIDES_PAGES}
    assert "<p>one</p>" in (mounted / "a" / "b.html").read_text()

    rebuilt = build(mounted, "/", "/old", "/a/b", text="two", previous=first)  # in place
    assert rebuilt.counts.rendered == 3
    assert "<p>two</p>" in (mounted / "a" / "b.html").read_text()

    build(mounted, "/", "/new", text="three")  # --full: the old pages go
    assert pages_under(mounted) == {"index.html", "new.html", ".keep", *BESIDES_PAGES}
    assert "<p>three</p>" in (mounted / "index.html").read_text()
    assert (mounted / ".keep").read_text() == "kept"

    after = mounted.stat()
    assert (after.st_dev, after.st_ino) == (root.st_dev, root.st_ino)  # still the mount
    _wait_for_deleters()
    assert [p.name for p in mounted.iterdir() if p.name.startswith(".storefront.")] == []
    assert {p.name for p in mounted.parent.iterdir()} <= {"out", "volume"}


def test_the_warnings_of_a_build_go_with_the_next_build_that_has_none(mounted: Path) -> None:
    warned = dataclasses.replace(cms_plan("/", text="one"), unusable_urls=(UNUSABLE,))
    write_incremental(warned, build_environment(THEME), mounted, theme_dir=THEME, previous=None)
    assert read_warnings(mounted) == (UNUSABLE,)
    build(mounted, "/", text="two")
    assert not (mounted / WARNINGS_FILE).exists()


def test_a_volumes_lost_and_found_is_neither_refused_nor_removed(mounted: Path) -> None:
    (mounted / "lost+found").mkdir()
    build(mounted, "/", text="one")
    build(mounted, "/", text="two")
    assert (mounted / "lost+found").is_dir()
    assert "<p>two</p>" in (mounted / "index.html").read_text()


def test_what_a_killed_build_left_inside_a_mounted_output_goes(
    mounted: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(write_module.shutil, "which", lambda name: None)  # deleted before return
    build(mounted, "/", text="one")
    for name in (".storefront.tmp-k1ll3d01", ".storefront.old-k1ll3d02", ".storefront.tmp-n0t0urs"):
        (mounted / name).mkdir()
        (mounted / name / "index.html").write_text("left behind")
    (mounted / ".storefront.tmp-k1ll3d01" / MARKER_FILE).write_text("")
    (mounted / ".storefront.old-k1ll3d02" / MARKER_FILE).write_text("")
    build(mounted, "/", text="two")
    assert [p.name for p in mounted.iterdir() if p.name.startswith(".storefront.")] == [
        ".storefront.tmp-n0t0urs"  # no marker: not a build's
    ]


def test_an_ordinary_output_is_not_taken_for_a_mount_point(tmp_path: Path) -> None:
    out = tmp_path / "out"
    build(out, "/", text="one")
    inode = out.stat().st_ino
    build(out, "/", text="two")
    assert out.stat().st_ino != inode  # swapped in whole, as before
    assert not os.path.ismount(out)
